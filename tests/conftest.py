"""Every test session prepares into its own cache folder (engine.machinery.cache), never a developer's.

The folder is made before any test imports the engine and removed at the end; servers that
browser tests start inherit it, so they map the arrays the session already prepared. The
background warm-up (ui/warmup.py) is off: AppTest has a Streamlit runtime, and a warm-up thread
loading every model behind the tests would make them slower and their imports unpredictable;
tests/pages/test_warmup.py switches it on where it is the subject.
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

_folder = tempfile.mkdtemp(prefix="playground-test-cache-")
os.environ["PLAYGROUND_CACHE"] = _folder
os.environ["PLAYGROUND_WARM_UP"] = "0"
atexit.register(shutil.rmtree, _folder, ignore_errors=True)


@pytest.fixture(scope="module")
def smollm2_installed():
    """Skip, saying why, where the SmolLM2 weights package is missing (engine.pretrained.smollm2 names it)."""
    from engine.pretrained import smollm2 as pretrained

    try:
        pretrained.model_path()
    except ValueError as error:
        pytest.skip(str(error))
