"""`run(coroutine)`: asyncio.run on a thread of its own. A test that follows a browser test in the same worker finds
the main thread's event loop taken (playwright's sync API keeps its loop running there for the session's browser),
and asyncio.run refuses to start in a thread whose loop is running."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run(coroutine):
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fresh-loop") as pool:
        return pool.submit(asyncio.run, coroutine).result()
