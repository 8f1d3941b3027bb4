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


def test_the_websockets_message_limits_are_the_named_ones():
    """server.maxMessageSize (MB) bounds a message either way: uvicorn refuses a bigger one from the browser from its
    frame header (a 150 MB message peaked at +309 MB under the default, 200); server.maxWidgetStateSize bounds every
    value a browser sends in one run."""
    from engine import limits

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxMessageSize"] == limits.MAX_MESSAGE_MEGABYTES
    assert config["server"]["maxWidgetStateSize"] == limits.MAX_WIDGET_STATE_MEGABYTES
    assert limits.MAX_WIDGET_STATE_MEGABYTES * 1e6 > 4 * limits.MAX_MATRIX_TEXT_CHARS * 2   # the largest box, twice
    assert limits.LINK_MAX_CHARS > 3 * limits.MAX_MATRIX_TEXT_CHARS                         # ... and in a link


def test_no_page_sends_a_message_near_the_limit():
    """The largest messages a page can send, built at the limits that bound them, are under half of
    server.maxMessageSize (a message over it would reach the browser as Streamlit's error instead of the chart).
    How they were found: every page's first view and every widget moved once, over the websocket protocol, sent at
    most 0.24 MB (the head viewer); AppTest with every box opened and every switch on, 0.44 MB (the head viewer at 40
    tokens); what grows with the input is a picture drawn into a chart: Beyond words' spectrogram (30 s of noise at
    48 kHz in frames of 4,096 samples: 7.4 MB) and an uploaded 1024 x 1024 picture under its patches (1.3 MB)."""
    import io
    import json
    import wave

    import numpy as np

    from engine import limits
    from engine.beyond import modalities
    from engine.charts.images import data_url, patch_overlay, spectrogram_with_frames

    rate, seconds = limits.MAX_SAMPLE_RATE, limits.MAX_AUDIO_SECONDS
    noise = np.random.default_rng(0).uniform(-1, 1, int(rate * seconds))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes((noise * 32000).astype("<i2").tobytes())
    sound = modalities.read_wav(buffer.getvalue(), "noise")
    hop = -(-len(noise) // limits.MAX_AUDIO_FRAMES) + 1          # as many frames of the longest length as allowed
    result = modalities.frame_attention(sound, limits.MAX_FRAME, hop, 64, 0)
    spectrogram = len(json.dumps(spectrogram_with_frames(result.source, 0, result.attention.weights[0],
                                                         sound.segments), default=float))
    side = limits.MAX_IMAGE_SIDE
    picture = np.random.default_rng(0).integers(0, 256, (side, side, 3), dtype=np.uint8)
    overlay = len(json.dumps(patch_overlay(data_url(picture), side, side, 32, 32, 32, np.full(1024, 1 / 1024), 0,
                                           style="spotlight", display_width=500), default=float))
    largest = max(spectrogram, overlay)
    print(f"largest message parts: spectrogram {spectrogram / 1e6:.1f} MB, picture {overlay / 1e6:.1f} MB; "
          f"limit {limits.MAX_MESSAGE_MEGABYTES} MB")
    assert largest < limits.MAX_MESSAGE_MEGABYTES * 1e6 / 2
