"""Benchmarks: figures and ratios, not pass/fail tests."""
import os

# As app.py sets it for the server, before anything loads numpy: figures measured here are the server's.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
