/* c4core.h: small C helpers of the Cython search engine (engine.pyx).
 *
 * Compiler builtins only (gcc and clang, x86-64 and aarch64 alike): no
 * intrinsics, nothing that needs -march.
 */
#ifndef C4PI_C4CORE_H
#define C4PI_C4CORE_H

#include <stddef.h>
#include <sys/mman.h>
static inline int c4_popcount(unsigned long long x) { return __builtin_popcountll(x); }
static inline int c4_ctz(unsigned long long x) { return __builtin_ctzll(x); }
/* Popcount without a call: the builtin where it is one instruction (aarch64,
   or x86-64 built with popcnt); else (x86-64 baseline, where the builtin
   calls libgcc) a loop over the few set bits of a threat mask. */
static inline int c4_popcount_sparse(unsigned long long x) {
#if defined(__aarch64__) || defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) { x &= x - 1; n++; }   /* Kernighan: threat masks have few bits */
    return n;
#endif
}
/* The table: anonymous memory (zeroed lazily by the kernel), 2 MB aligned
   and marked for transparent huge pages where the kernel offers them. */
static inline void *c4_table_alloc(size_t bytes, void **base, size_t *total) {
    size_t align = (size_t)2 << 20;
    char *p;
    *total = bytes + align;
    p = (char *)mmap(NULL, *total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == (char *)MAP_FAILED) { *base = NULL; return NULL; }
    *base = p;
    p = (char *)(((size_t)p + align - 1) & ~(align - 1));
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}
static inline void c4_prefetch(const void *p) { __builtin_prefetch(p); }
static inline void c4_table_free(void *base, size_t total) { if (base) munmap(base, total); }
static inline int c4_load_flag(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void c4_store_flag(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

/* Hot bitboard helpers, forced inline (gcc otherwise keeps a call in negamax). */
#if defined(__GNUC__)
#define C4_INLINE static inline __attribute__((always_inline))
#else
#define C4_INLINE static inline
#endif
#include <stdint.h>
/* Table words are read and written whole (relaxed atomics: plain loads and
   stores on x86-64 and aarch64), so threads sharing a table never see an
   entry torn between two positions. */
C4_INLINE uint64_t c4_load64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
C4_INLINE void c4_store64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#define C4_BOTTOM 0x0040810204081ULL            /* bit 0 of every column */
#define C4_BOARD (C4_BOTTOM * 0x3FULL)           /* every playable cell */
#define C4_KEY49 ((1ULL << 49) - 1)
#define C4_MATCH 0xFF000000FFFFFFFFULL           /* check and generation of an entry */
/* Columns (0-based) in centre-first order, 4, 3, 5, 2, 6, 1, 7, and their masks. */
static const int C4_ORDER[7] = {3, 2, 4, 1, 5, 0, 6};
static const unsigned long long C4_ORDER_MASK[7] = {
    0x3FULL << 21, 0x3FULL << 14, 0x3FULL << 28, 0x3FULL << 7, 0x3FULL << 35, 0x3FULL, 0x3FULL << 42};
C4_INLINE unsigned long long c4_line_cells(unsigned long long pos, int s) {
    unsigned long long r, p = (pos << s) & (pos << (2 * s));
    r = p & (pos << (3 * s));
    r |= p & (pos >> s);
    p = (pos >> s) & (pos >> (2 * s));
    r |= p & (pos << s);
    r |= p & (pos >> (3 * s));
    return r;
}
/* Empty cells that would complete a four for the discs pos. */
C4_INLINE unsigned long long c4_winning_cells(unsigned long long pos, unsigned long long mask) {
    unsigned long long r = (pos << 1) & (pos << 2) & (pos << 3);
    r |= c4_line_cells(pos, 7) | c4_line_cells(pos, 6) | c4_line_cells(pos, 8);
    return r & (C4_BOARD ^ mask);
}

#endif /* C4PI_C4CORE_H */
