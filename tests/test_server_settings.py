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


def test_the_servers_upload_limit_is_the_largest_page_limit():
    """server.maxUploadSize (MiB) covers the largest upload a page takes and no more, everywhere it is set."""
    import re

    from engine import limits

    largest = max(limits.MAX_USER_TEXT_BYTES, limits.MAX_IMAGE_UPLOAD_BYTES, limits.MAX_WAV_BYTES)
    assert limits.MAX_UPLOAD_MEGABYTES == -(-largest // 2**20)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == limits.MAX_UPLOAD_MEGABYTES
    for file in [ROOT / "Dockerfile", *sorted((ROOT / "deploy").rglob("*")), ROOT / ".dockerignore"]:
        if file.is_file():
            for value in re.findall(r"maxUploadSize\D{1,6}(\d+)", file.read_text(errors="replace")):
                assert int(value) == limits.MAX_UPLOAD_MEGABYTES, file
    ignored = (ROOT / ".dockerignore").read_text() if (ROOT / ".dockerignore").exists() else ""
    assert ".streamlit" not in ignored, "the image must carry .streamlit/config.toml"


def test_every_file_uploader_has_its_own_limit():
    """Each st.file_uploader passes max_upload_size from its engine limit, so the browser refuses a bigger file."""
    import re

    calls = []
    for file in sorted((ROOT / "views").glob("*.py")) + sorted((ROOT / "ui").glob("*.py")):
        text = file.read_text()
        for match in re.finditer(r"st\.file_uploader\(", text):
            call = text[match.start():text.find("\n\n", match.start())]
            calls.append((file.name, "max_upload_size=page.upload_megabytes(limits." in call))
    assert calls and all(ok for _, ok in calls), calls


def test_no_message_is_sent_as_a_reference_to_the_browsers_cache():
    """global.minCachedMessageSize above the largest message the server may send: Streamlit's forward-message
    cache is off, so fast page switching cannot leave the browser missing a cached element (streamlit#11357)."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    largest_message = config.get("server", {}).get("maxMessageSize", 200) * 1e6
    assert config["global"]["minCachedMessageSize"] > largest_message
