"""Keeps the C allocator from holding on to memory the index build has finished with.

A build reads, decodes, folds and compresses documents on several threads. glibc gives each
thread that allocates its own arena, and raises its threshold for serving large blocks from
`mmap` each time such a block is freed, so a document's buffers end up inside arenas that
rarely shrink: the process keeps the high-water mark of every thread at once. Two arenas and a
fixed threshold (large blocks always mapped, so freeing them returns them to the system) keep
the process near what it uses. Other C libraries are left as they are.

The settings hold for the whole process, so they are applied once: a test process starts
hundreds of toolboxes. glibc is reached through the symbols the process already has loaded,
not by asking `ldconfig` where it lives (a child process for every start).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import sys

log = logging.getLogger(__name__)
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENAS = 2
MAPPED_FROM = 256 * 1024
"""Bytes: blocks this large or larger come straight from the system and go straight back."""


@functools.cache
def tune_allocator() -> bool:
    """Apply the settings above where glibc is the allocator (once a process); whether they
    were applied."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt): nothing to tune
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(_M_ARENA_MAX, ARENAS)) and bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM))
    if not applied:
        log.debug("the C allocator refused its settings; memory use may run higher")
    return applied
