"""Every test session prepares into its own cache folder (engine.machinery.cache), never a developer's.

The folder is made before any test imports the engine and removed at the end; servers that
browser tests start inherit it, so they map the arrays the session already prepared. The
background warm-up (ui/warmup.py) is off: AppTest has a Streamlit runtime, and a warm-up thread
loading every model behind the tests would make them slower and their imports unpredictable;
tests/pages/test_warmup.py switches it on where it is the subject.

The suite runs in parallel (pytest-xdist, `-n auto --dist loadgroup` in pyproject.toml): one worker per core,
at most MAX_WORKERS. Each test file is one unit of work, so its module fixtures are made once; the browser tests
that read the tour (tests/e2e/tour.py) are one unit, so the tour is taken once. The workers share the session's
cache folder (the cache is safe for several processes: engine.machinery.cache), so what one prepared the other
maps. Each worker has its own folder of training slots (engine.machinery.machine_slots), so two workers, and
the suite and a training elsewhere on the machine, never wait on each other's runs. One core, or one file or
test named on the command line, runs in this process as before.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

BROWSER_TESTS = "tests/e2e/"           # their units start first (pytest_xdist_make_scheduler)
MAX_WORKERS = 4                        # each starts its own app server and browser for the browser tests
_SHARED_CACHE = "PLAYGROUND_TEST_CACHE"   # the session's cache folder, handed by pytest to its xdist workers

if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(_SHARED_CACHE):
    _folder = os.environ[_SHARED_CACHE]    # made, and removed at the end, by the process that started the workers
else:
    _folder = tempfile.mkdtemp(prefix="playground-test-cache-")
    os.environ[_SHARED_CACHE] = _folder
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)
os.environ["PLAYGROUND_CACHE"] = _folder
os.environ["PLAYGROUND_WARM_UP"] = "0"
_locks = tempfile.mkdtemp(prefix="playground-test-locks-")
os.environ["PLAYGROUND_LOCKS"] = _locks
atexit.register(shutil.rmtree, _locks, ignore_errors=True)


try:                                   # Hypothesis keeps its examples but drops its per-example deadline (200 ms by
    from hypothesis import settings    # default): on a machine the browser tests load, one slow example is a slow
                                       # machine, not a bug. Speed is measured in bench/, never by a test.
    settings.register_profile("playground", deadline=None)
    settings.load_profile("playground")
except ImportError:
    pass


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker per core, at most MAX_WORKERS; none (this process alone) on one core or for a run of
    one file, where starting workers would cost more than it saves. PYTEST_XDIST_AUTO_NUM_WORKERS still wins."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    files = {arg.split("::")[0] for arg in config.args}
    if len(files) == 1 and os.path.isfile(next(iter(files))):
        return 0
    return min(cores, MAX_WORKERS) if cores > 1 else 0


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that read the browser tour go to one worker together (an xdist_group mark), so it is taken once."""
    for item in items:
        if "tour" in item.fixturenames and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group("tour"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup`, with each test file one unit of work (its module fixtures made once, its record files
    written by one process) where xdist would hand out ungrouped tests one by one. The browser tests' units go
    first (a browser test costs seconds where most others cost milliseconds), then the rest, most tests first, so
    the workers finish on small files together rather than one waiting on the other's long last file."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from collections import OrderedDict

    from xdist.scheduler import LoadGroupScheduling

    class ByGroupOrFile(LoadGroupScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return nodeid.split("::")[0] if scope == nodeid else scope

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:      # the queue is made, most tests first: browser units to the front, stably
                browser = {"tour"} | {scope for scope in self.workqueue if scope.startswith(BROWSER_TESTS)}
                self.workqueue = OrderedDict(sorted(self.workqueue.items(), key=lambda unit: unit[0] not in browser))
                self.ordered = True
            super()._assign_work_unit(node)

    return ByGroupOrFile(config, log)


@pytest.fixture(scope="module")
def smollm2_installed():
    """Skip, saying why, where the SmolLM2 weights package is missing (engine.pretrained.smollm2 names it)."""
    from engine.pretrained import smollm2 as pretrained

    try:
        pretrained.model_path()
    except ValueError as error:
        pytest.skip(str(error))
