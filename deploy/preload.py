"""What every Streamlit process of a lecture hall shares: imported once, then forked.

`deploy.serve` starts its processes from a fork server (Python's multiprocessing
"forkserver", as gunicorn's --preload or Android's zygote): one parent process imports this
module, which loads the libraries (numpy, pandas, Altair, Streamlit, torch: about 220 MiB of
each process's private memory when it imports them itself) and the read-only data every page
opens on (the corpus, both tokenizers' tables, GloVe's words and index, SmolLM2 and the shipped
model); each Streamlit process is then a fork of it and shares those pages with its siblings
until it writes to them. `gc.freeze()` keeps the collector from touching (and so copying) them.

Nothing here runs torch: a fork after torch has started its thread pool is not safe, so the
computations (the warm-up of ui/warmup.py) run in each process, after the fork. A failure is
logged and skipped: the process then loads that part itself, as `streamlit run` does.
"""
from __future__ import annotations

import gc
import logging
import time

import ui.server  # noqa: F401  first, before numpy loads (BLAS threads, malloc arenas)

log = logging.getLogger(__name__)
LIBRARIES = ("numpy", "pandas", "pyarrow", "altair", "PIL", "segno", "streamlit", "streamlit.web.cli",
             "torch", "safetensors", "engine", "ui.loaders", "ui.pretrained_views", "ui.shell", "ui.warmup")


def preload() -> float:
    """Import the libraries and load the shared data; seconds taken."""
    import importlib

    begin = time.perf_counter()
    # "missing ScriptRunContext" on each cached call: the caches need no session here (nor in the warm-up)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    for name in LIBRARIES:
        try:
            importlib.import_module(name)
        except Exception as error:   # the fork server must start anyway: each process then imports it itself
            log.warning("preload: %s not imported (%s)", name, error)
    try:
        from ui.warmup import shared_data

        shared_data()
    except Exception as error:   # a package missing or a damaged file: the page that needs it says so
        log.warning("preload: shared data not loaded (%s)", error)
    ui.server.return_freed_memory()
    gc.collect()
    gc.freeze()
    return time.perf_counter() - begin


SECONDS = preload()
