"""The c4pi solver: a Cython bitboard negamax with a 12-disc opening book.

``Solver`` and ``Answer`` are the public API (see :mod:`cython_solver.solver`);
the book format lives in :mod:`cython_solver.book`, its builder in
:mod:`cython_solver.bookbuild`.
"""

from cython_solver.solver import Answer, Solver, bitboards

__all__ = ["Answer", "Solver", "bitboards"]
