"""Process-wide settings for a server shared by a class (imported by app.py before numpy loads).

- numpy's OpenBLAS on one thread: a page's products are small (a GloVe search is a
  50,000 x 50 matrix times a vector), so a second BLAS thread saves nothing, and on a server
  whose cores every session shares its spinning made such a product 10-20 times dearer
  (0.5 ms -> 8 ms CPU under load). An explicit setting in the environment still wins.
- glibc malloc with two arenas: by default each thread that allocates gets its own heap (up
  to 8 per core) and keeps what is freed in it; Streamlit runs every session's script in its
  own thread, so memory grew with the class (14 -> 7 MiB per session in bench.load at N = 10).
- After every run, what malloc holds freed goes back to the system (malloc_trim, about 1 ms):
  loading the corpus, the n-gram counts and SmolLM2 leaves ~130 MiB of freed heap behind.
Off Linux/glibc the two malloc settings do nothing.
"""
from __future__ import annotations

import ctypes
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

M_ARENA_MAX = -8  # glibc's malloc.h

try:
    _libc = ctypes.CDLL("libc.so.6")
    _libc.mallopt(M_ARENA_MAX, 2)
except (OSError, AttributeError):
    _libc = None


def return_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's malloc_trim)."""
    if _libc is not None:
        try:
            _libc.malloc_trim(0)
        except AttributeError:
            pass
