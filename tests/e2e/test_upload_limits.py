"""A file bigger than a page takes never reaches the server's memory (issue: a 190 MB .txt on the N-gram page
was refused with the 2 MB sentence after the server had grown by ~360 MB, kept; a 150 MB WAV peaked at +431 MB).

The browser refuses it before sending (the uploader's own limit, ui.page.upload_megabytes), and a client that
skips the browser's check is cut off by server.maxUploadSize (engine.limits.MAX_UPLOAD_MEGABYTES) while the body
streams in. Either way the server's resident memory stays within 50 MB of what it was before."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

from engine.language.corpus import OWN_TEXT
from tests.e2e.conftest import _free_port, serving
from tests.e2e.helpers import open_page, screenshot, wait_for_app

BIG = 190 * 10**6
MARGIN_MB = 50


class PeakMemory:
    """The resident memory of a process, sampled every 10 ms in a thread: `peak` above `idle` in MB."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.idle, self.peak, self.running = self.rss(), 0.0, False

    def rss(self) -> float:
        with open(f"/proc/{self.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024

    def __enter__(self):
        self.idle, self.peak, self.running = self.rss(), self.rss(), True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()
        return self

    def sample(self) -> None:
        while self.running:
            self.peak = max(self.peak, self.rss())
            time.sleep(0.01)

    def __exit__(self, *exc) -> None:
        time.sleep(1.0)   # what arrives late still counts
        self.running = False
        self.thread.join()

    @property
    def growth(self) -> float:
        return self.peak - self.idle


@pytest.fixture(scope="module")
def server():
    """`streamlit run app.py` as the README starts it (its .streamlit/config.toml), with its process id."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0")
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"]
    with serving(command, url, f"{url}/_stcore/health", env) as served:
        found = subprocess.run(["pgrep", "-f", "--", f"--server.port {port}"], capture_output=True, text=True)
        pids = [int(p) for p in found.stdout.split() if int(p) != os.getpid()]
        yield served, pids[0]


@pytest.fixture
def big_text(tmp_path):
    path = tmp_path / "big.txt"
    with open(path, "wb") as file:
        file.write(b"to be or not to be " * (BIG // 19))
    return path


def test_a_190_mb_text_is_refused_in_the_browser_and_the_server_does_not_grow(server, browser, big_text):
    url, pid = server
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    open_page(page, url, "ngram?source=" + urllib.parse.quote(OWN_TEXT), timeout_ms=180_000)
    uploads = []
    page.on("request", lambda request: uploads.append(request.url) if "/upload_file/" in request.url else None)
    with PeakMemory(pid) as memory:
        page.locator("input[type='file']").set_input_files(str(big_text))
        page.get_by_text("File must be 2.0MB or smaller").wait_for(timeout=60_000)
    screenshot(page, "upload-190mb-refused", full_page=False)
    context.close()
    print(f"refused 190 MB text in the browser: server +{memory.growth:.1f} MB (idle {memory.idle:.0f} MB)")
    assert not uploads, "the browser sent the file"
    assert memory.growth < MARGIN_MB


def test_a_client_that_skips_the_browsers_check_is_cut_off_by_the_server(server, browser, tmp_path):
    """A small file first, to learn the upload address and the XSRF pair a browser sends; then 190 MB to the
    same address, streamed without a length as a hostile client would."""
    import requests

    url, pid = server
    small = tmp_path / "small.txt"
    small.write_text("to be or not to be, that is the question\n" * 100)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    open_page(page, url, "ngram?source=" + urllib.parse.quote(OWN_TEXT), timeout_ms=180_000)
    sent = []
    page.on("request", lambda request: sent.append(request) if "/upload_file/" in request.url else None)
    page.locator("input[type='file']").set_input_files(str(small))
    wait_for_app(page, timeout_ms=180_000, after_input=True)
    assert sent, "the small file was not uploaded"
    request = sent[0]
    headers = {k: v for k, v in request.all_headers().items() if k.lower() in ("x-xsrftoken", "cookie")}
    context.close()

    boundary = "harden190"
    headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"

    def body():   # a generator: requests sends it chunked, with no Content-Length to refuse it by
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\n"
               "Content-Type: text/plain\r\n\r\n").encode()
        chunk = b"x" * 2**20
        for _ in range(BIG // len(chunk)):
            yield chunk
        yield f"\r\n--{boundary}--\r\n".encode()

    with PeakMemory(pid) as memory:
        try:
            reply = requests.request(request.method, request.url, headers=headers,
                                     data=body(), timeout=120)
            status = reply.status_code
        except requests.ConnectionError:   # the server closed the connection mid-body
            status = "closed"
    print(f"190 MB streamed past the browser: {status}; server +{memory.growth:.1f} MB (idle {memory.idle:.0f} MB)")
    assert status in (400, 413, "closed")
    assert memory.growth < MARGIN_MB
