# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Position helpers around the engine: fast move parsing, validity checks, book
position codes and the conversion of the bitbully-databases source records.

Bitboards are ``(current, mask)`` as in :mod:`c4game.board`.
"""

from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t

from cython_solver.search cimport (
    book_mix,
    disc_count,
    four_in_row,
    position_code,
    winning_moves,
)

cdef enum:
    WIDTH = 7
    HEIGHT = 6
    CELLS = 42

cdef uint64_t BOARD = 0x0040810204081 * 0x3F
cdef uint64_t TOP_ROW = 0x0040810204081 << (HEIGHT - 1)


cdef inline uint64_t _column_mask(int col) noexcept nogil:
    return <uint64_t>0x3F << (7 * col)


def parse_moves(str moves):
    """``(current, mask, n)`` for a legal, unfinished move string, else ``None``
    (callers then ask the board model for the exact error)."""
    cdef uint64_t cur = 0, mask = 0
    cdef int col
    cdef Py_UCS4 ch
    if len(moves) >= CELLS:
        return None
    for ch in moves:
        if ch < 49 or ch > 55:                   # '1' .. '7'
            return None
        col = <int>ch - 49
        if mask & TOP_ROW & _column_mask(col):
            return None
        if four_in_row(cur ^ mask):              # the previous move won
            return None
        cur ^= mask
        mask |= (mask + (<uint64_t>1 << (7 * col))) & _column_mask(col)
    if four_in_row(cur ^ mask):
        return None
    return cur, mask, disc_count(mask)


def check_bitboards(uint64_t cur, uint64_t mask) -> bool:
    """True when ``(cur, mask)`` is a well-formed, unfinished position and ``cur``
    holds the discs of the side to move."""
    cdef int n = disc_count(mask), col
    cdef uint64_t bits
    if mask & ~BOARD or cur & ~mask:
        return False
    for col in range(WIDTH):
        bits = (mask >> (7 * col)) & 0x7F
        if bits & (bits + 1):                    # a gap under a disc
            return False
    if disc_count(cur) != n // 2 or n == CELLS:
        return False
    return not four_in_row(cur) and not four_in_row(cur ^ mask)


def winning_columns(uint64_t cur, uint64_t mask) -> list:
    """Columns (0-based) where the side to move completes a four at once."""
    cdef uint64_t w = winning_moves(cur, mask)
    return [col for col in range(WIDTH) if w & _column_mask(col)]


def mirror_bitboards(uint64_t cur, uint64_t mask) -> tuple:
    """The left-right mirror image of a position."""
    return _mirror(cur), _mirror(mask)


cdef uint64_t _mirror(uint64_t x) noexcept nogil:
    cdef uint64_t r = 0
    cdef int col
    for col in range(WIDTH):
        r |= ((x >> (7 * col)) & 0x7F) << (7 * (WIDTH - 1 - col))
    return r


def book_code(uint64_t cur, uint64_t mask, bint mirrored=False) -> int:
    """The book code of a position: per column ``10`` for a disc of the side to
    move, ``11`` for the opponent's, ``0`` closing the column."""
    return position_code(cur, mask, mirrored)


def canonical_code(uint64_t cur, uint64_t mask) -> int:
    """The smaller of the codes of a position and of its mirror image."""
    cdef uint32_t a = position_code(cur, mask, 0), b = position_code(cur, mask, 1)
    return a if a < b else b


def mix_code(uint32_t code) -> int:
    """The 32-bit bijection that orders book entries."""
    return book_mix(code)


def decode_code(uint32_t code, int n_discs) -> tuple:
    """Invert :func:`book_code` for a position of ``n_discs`` discs."""
    cdef uint64_t cur = 0, mask = 0
    if not _decode(code, 2 * n_discs + WIDTH, &cur, &mask) or disc_count(mask) != n_discs:
        raise ValueError(f"{code:#x} is not the code of a {n_discs}-disc position")
    return cur, mask


cdef bint _decode(uint32_t code, int nbits, uint64_t *cur, uint64_t *mask) noexcept nogil:
    """Read ``nbits`` code bits (most significant first); ``10`` marks a disc of
    the side to move, ``11`` an opponent's, ``0`` ends a column."""
    cdef int pos = nbits - 1, col = 0, row = 0
    cdef uint64_t cell
    cur[0] = 0
    mask[0] = 0
    if nbits > 32:
        return False
    while col < WIDTH:
        if pos < 0:
            return False
        if not (code >> pos) & 1:
            pos -= 1
            col += 1
            row = 0
            continue
        if row >= HEIGHT or pos < 1:
            return False
        cell = <uint64_t>1 << (7 * col + row)
        mask[0] |= cell
        if not (code >> (pos - 1)) & 1:
            cur[0] |= cell
        pos -= 2
        row += 1
    return pos == -1


cdef int _score_from_distance(int value, int ply) noexcept nogil:
    """A source value (0 draw; 100 - p when the side to move wins after p plies;
    -(100 - p) when it loses after p plies) as a SPEC §2 score; 127 if invalid."""
    cdef int plies, k
    if value == 0:
        return 0
    if value > 0:
        plies = 100 - value
        if plies < 1 or plies % 2 == 0 or plies > CELLS - ply:
            return 127
        k = (plies + 1) // 2
        return (CELLS + 1 - ply) // 2 - k + 1
    plies = 100 + value
    if plies < 2 or plies % 2 == 1 or plies > CELLS - ply:
        return 127
    k = plies // 2
    return -((CELLS - ply) // 2 - k + 1)


def convert_source(const uint8_t[::1] raw, int ply, uint32_t[::1] codes, int8_t[::1] scores):
    """Convert bitbully-databases "12-ply with distances" records (a 4-byte
    big-endian position code then a signed distance byte each) into canonical
    book codes and SPEC §2 scores. Returns ``None``, or ``(index, reason)`` for
    the first record that is not a valid entry.

    The source's code is ours shifted left by one pad bit: its player "1" (bits
    ``10``) is the first player, who is to move in every 12-disc position.
    """
    cdef Py_ssize_t count = raw.shape[0] // 5, i
    cdef uint32_t word, a, b
    cdef uint64_t cur, mask
    cdef int score, reason
    if raw.shape[0] % 5:
        return (count, "the file size is not a multiple of 5 bytes")
    if codes.shape[0] < count or scores.shape[0] < count:
        raise ValueError("output arrays are too small")
    reason = 0
    with nogil:
        for i in range(count):
            word = ((<uint32_t>raw[5 * i] << 24) | (<uint32_t>raw[5 * i + 1] << 16)
                    | (<uint32_t>raw[5 * i + 2] << 8) | raw[5 * i + 3])
            if word & 1 or not _decode(word >> 1, 2 * ply + WIDTH, &cur, &mask):
                reason = 1
            elif disc_count(mask) != ply or disc_count(cur) != ply // 2:
                reason = 2
            elif four_in_row(cur) or four_in_row(cur ^ mask):
                reason = 3
            elif winning_moves(cur, mask):
                reason = 4
            else:
                score = _score_from_distance(<int8_t>raw[5 * i + 4], ply)
                if score == 127:
                    reason = 5
            if reason:
                break
            a = position_code(cur, mask, 0)
            b = position_code(cur, mask, 1)
            codes[i] = a if a < b else b
            scores[i] = <int8_t>score
    if reason:
        return (i, {1: "undecodable position code", 2: f"not a {ply}-disc position",
                    3: "a four in a row", 4: "the side to move wins at once",
                    5: "an impossible distance value"}[reason])
    return None


def mix_codes(const uint32_t[::1] codes, uint32_t[::1] out) -> None:
    """``out[i] = mix_code(codes[i])`` for a whole array."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(codes.shape[0]):
            out[i] = book_mix(codes[i])
