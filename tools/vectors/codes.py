"""Sign-bit codes of the vector matrix's rows, kept in memory, and the Hamming prefilter over them.

A row's code keeps one bit per dimension, whether it is above zero (a 512-dimension row is 64
bytes): the codes of 1.5 million passages take 96 MB of memory and nothing on disk. The Hamming
distance between two codes follows the angle between the rows, roughly; scanning the codes
(SimSIMD's popcount kernels) costs a fraction of the int8 scan, so a large index scans the
codes for a few thousand candidates and scores only their int8 rows exactly. How many
candidates keep the exact scan's results is measured in bench/bench_vectors.py.

Codes are computed from the mapped matrix when first needed and extended as rows are appended
(rows before the end of the file never change). A matrix written anew (compaction, another
model) is told by its file identity and first row, and its codes are computed again.
"""

from __future__ import annotations

import numpy as np
import simsimd

BLOCK = 65_536
"""Rows turned into codes at a time, so computing them never holds a large temporary."""
GROWTH = 1.25
"""How much room a full code buffer grows by, so appends rarely copy and waste little."""
SAMPLE = 16
"""One distance in this many guesses the cut that leaves the nearest rows; the rows under the
guess are then ranked exactly (all of them, should the guess leave too few)."""


class SignCodes:
    """The codes of one matrix's rows, grown as the matrix grows."""

    def __init__(self) -> None:
        self._buffer = np.empty((0, 0), dtype=np.uint8)
        self._rows = 0
        self._identity: tuple[int, int, bytes] | None = None

    def follow(self, matrix: np.ndarray, file_identity: tuple[int, int]) -> np.ndarray:
        """The codes of every row of `matrix`: a view later appends never change (a snapshot
        can keep it while the next one grows)."""
        width = (int(matrix.shape[1]) + 7) // 8
        identity = (*file_identity, matrix[0].tobytes()) if len(matrix) else None
        if identity != self._identity or len(matrix) < self._rows or self._width() != width:
            self._buffer = np.empty((0, width), dtype=np.uint8)
            self._rows = 0
            self._identity = identity
        if len(matrix) > len(self._buffer):
            grown = np.empty((max(len(matrix), int(len(self._buffer) * GROWTH)), width), np.uint8)
            grown[: self._rows] = self._buffer[: self._rows]
            self._buffer = grown
        for start in range(self._rows, len(matrix), BLOCK):
            stop = min(start + BLOCK, len(matrix))
            self._buffer[start:stop] = np.packbits(np.asarray(matrix[start:stop]) > 0, axis=1)
        self._rows = len(matrix)
        return self._buffer[: self._rows]

    def _width(self) -> int:
        return int(self._buffer.shape[1])


def nearest_codes(
    codes: np.ndarray, query: np.ndarray, count: int, inside: np.ndarray | None, threads: int
) -> np.ndarray:
    """Rows (ascending) whose codes are nearest to the int8 `query`'s: `count` of them, or every
    row `inside` allows when it allows fewer. A row outside `inside` (a boolean per row) is
    never among them. The scan runs on `threads` threads."""
    bits = int(codes.shape[1]) * 8
    code = np.packbits(query > 0)
    # Distances of at most a few hundred bits are exact in float32, at half the memory
    # traffic of the default float64 (a million rows: 4 MB written instead of 8 per query).
    found = simsimd.cdist(
        code[None], codes, metric="hamming", dtype="bin8", out_dtype="float32", threads=threads
    )
    distances = np.asarray(found).reshape(-1)
    if inside is not None:
        np.putmask(distances, ~inside, bits + 1)
    sample = np.cumsum(np.bincount(distances[::SAMPLE].astype(np.intp), minlength=bits + 2))
    guess = min(int(np.searchsorted(sample, 2 * count // SAMPLE + 16)), bits)
    rows = np.flatnonzero(distances <= guess)
    if len(rows) < count and guess < bits:
        rows = np.flatnonzero(distances <= bits)
    near = distances[rows].astype(np.intp)
    threshold = min(int(np.searchsorted(np.cumsum(np.bincount(near)), count)), bits)
    if len(rows) <= count:
        return rows
    tied = np.flatnonzero(near == threshold)[: count - int(np.count_nonzero(near < threshold))]
    return np.union1d(rows[near < threshold], rows[tied])
