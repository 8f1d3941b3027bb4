"""The process-wide settings a class's server relies on (ui/server.py, .streamlit/config.toml)."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_post_script_gc_is_off():
    """A full gc.collect() after every run costs ~100 ms of GIL-held CPU per interaction here."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_server_settings_load_before_numpy_and_trim_runs():
    code = ("import os, sys; import ui.server as s; assert 'numpy' not in sys.modules; "
            "print(os.environ['OPENBLAS_NUM_THREADS']); s.return_freed_memory()")
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_app_imports_the_server_settings_first():
    lines = [line for line in (ROOT / "app.py").read_text().splitlines() if line.startswith(("import ", "from "))]
    assert lines[1].startswith("import ui.server"), lines[:3]  # after `from __future__ import annotations`
