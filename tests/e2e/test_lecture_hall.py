"""A lecture hall in real Chromium: `python -m deploy.serve --processes 2` (two Streamlit processes
behind HAProxy on free loopback ports), students in separate browser contexts.

- each student keeps one process: HAProxy's cookie names it, and its access log shows every
  request of that student's page served by that process, across reruns and reloads;
- an upload and a /media file reach the process that holds the session, through the proxy;
- a process dies (SIGKILL): its student reloads onto the other one, same page, same URL state,
  while the other student's session there carries on; deploy.serve starts the dead one again;
- the processes are forks of one preloaded parent (deploy/preload.py) and share its memory;
- SIGTERM to deploy.serve stops HAProxy, the fork server and every Streamlit process.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PageTimeout

from deploy import haproxy
from deploy.serve import healthy
from tests.e2e.conftest import ROOT, _free_port
from tests.e2e.helpers import error_texts, main_text, open_page, wait_for_app
from tests.e2e.test_url_and_widths import teaching_text
from tests.media import png_bytes

PROCESSES = 2
CAUSAL = "Causal mask (a token sees only itself and earlier ones)"
LINE = re.compile(r" streamlit/(s\d+) .*?\"(\w+) (\S+) HTTP")     # HAProxy's httplog: backend/server ... "GET /x"


def free_run_of_ports(count: int) -> int:
    """The first of `count` consecutive free loopback ports."""
    for _ in range(50):
        first = _free_port()
        sockets = [socket.socket() for _ in range(1, count)]
        try:
            for offset, sock in enumerate(sockets, 1):
                sock.bind(("127.0.0.1", first + offset))
            return first
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
    pytest.fail("no run of free loopback ports")


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    found = []
    for child in children(pid):
        found += [child] + descendants(child)
    return found


def listening_inode(port: int) -> str:
    """The inode of the loopback socket listening on `port` (/proc/net/tcp: state 0A is LISTEN)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":
            return fields[9]
    raise AssertionError(f"nothing listens on port {port}")


def memory_kib(pid: int) -> dict[str, int]:
    rows = (line.split(":") for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    return {name: int(value.split()[0]) for name, value in rows}


class Hall:
    """`python -m deploy.serve` with its access log in a file."""

    def __init__(self, folder: Path):
        self.port, self.first = _free_port(), free_run_of_ports(PROCESSES)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / "haproxy-access.log"
        env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0", PLAYGROUND_LOCKS=str(folder / "locks"))
        with open(self.log, "w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "deploy.serve", "--processes", str(PROCESSES), "--port", str(self.port),
                 "--first-backend-port", str(self.first), "--address", "127.0.0.1", "--access-log"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while not healthy(self.url, timeout=1):
            if self.process.poll() is not None or time.time() > deadline:
                self.stop()
                pytest.fail(f"deploy.serve did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.3)

    def backend_port(self, server: str) -> int:
        """The loopback port of HAProxy's server sN (the processes are s1, s2, ... from the first port)."""
        return self.first + int(server[1:]) - 1

    def pid_on(self, port: int) -> int:
        """The process of deploy.serve (a fork of its fork server) holding the socket that listens on `port`."""
        socket_name = f"socket:[{listening_inode(port)}]"
        for pid in descendants(self.process.pid):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) == socket_name:
                        return pid
                except OSError:
                    continue
        raise AssertionError(f"no Streamlit process of deploy.serve listens on {port}")

    def served(self, path_start: str) -> list[tuple[str, str]]:
        """(server, method) of every logged request whose path starts with `path_start`."""
        found = []
        for line in self.log.read_text().splitlines():
            match = LINE.search(line)
            if match and match.group(3).startswith(path_start):
                found.append((match.group(1), match.group(2)))
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture(scope="module")
def hall(tmp_path_factory, browser):
    try:
        haproxy.binary()
    except haproxy.HAProxyMissing as missing:
        pytest.skip(str(missing))
    running = Hall(tmp_path_factory.mktemp("hall"))
    yield running
    running.stop()


@pytest.fixture
def student(browser):
    """new_student() -> a page in a browser context of its own (its own cookies, its own session)."""
    contexts = []

    def new_student():
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(60_000)
        contexts.append(context)
        return context.new_page()

    yield new_student
    for context in contexts:
        context.close()


def sticky(page) -> str:
    """The server HAProxy's cookie names for this browser (s1, s2, ...)."""
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert haproxy.COOKIE in cookies, cookies
    return cookies[haproxy.COOKIE]


def back_on_its_page(page, hall, tries: int = 2) -> None:
    """The calculator drawn again after the crash. A student whose reload landed in the moment HAProxy still counted
    the dead process as up (a loaded CI machine: its retries spent before the redispatch) sees the proxy's error
    page and reloads once more, as a student would; a second failure says what the page and the proxy showed."""
    for attempt in range(1, tries + 1):
        try:
            page.get_by_text("Step by step for the query").first.wait_for(timeout=45_000)
            return
        except PageTimeout:
            if attempt == tries:
                log = hall.log.read_text().splitlines()[-15:]
                pytest.fail("after the crash the page did not come back on the live process:\n"
                            f"page: {page.locator('body').inner_text()[:400]!r}\nproxy log:\n" + "\n".join(log))
            page.reload(wait_until="domcontentloaded")


def test_an_upload_and_a_media_file_reach_the_students_process(hall, student, tmp_path):
    page = student()
    open_page(page, hall.url, "beyond?picture=upload%20your%20own&side=0&patch=20")
    server = sticky(page)
    picture = tmp_path / "mine.png"
    picture.write_bytes(png_bytes(np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)))
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(picture))
    wait_for_app(page, after_input=True)
    page.get_by_text("a grid of 2 x 3 = 6 tokens").first.wait_for(timeout=30_000)
    assert "40 x 60 pixels, p = 20: a grid of 2 x 3 = 6 tokens" in main_text(page)
    assert not error_texts(page)
    uploads = hall.served("/_stcore/upload_file")
    assert uploads and {s for s, _ in uploads} == {server}, uploads
    # st.audio's file lives in the process's memory and is served from /media
    open_page(page, hall.url, "beyond?kind=audio")
    page.locator("audio").first.wait_for(state="attached", timeout=30_000)
    status = page.evaluate("async () => (await fetch(document.querySelector('audio').src)).status")
    assert status == 200
    assert {s for s, _ in hall.served("/media/")} == {server}
    assert sticky(page) == server


def test_students_keep_their_process_and_one_survives_the_others_crash(hall, student):
    a = student()
    open_page(a, hall.url, "attention")
    a.get_by_text(CAUSAL).click()                                # a rerun over the websocket
    wait_for_app(a, after_input=True)
    a.wait_for_function("() => location.search.includes('causal=1')", timeout=30_000)
    link, seen, server_a = a.url, teaching_text(a), sticky(a)
    b = student()
    open_page(b, hall.url, "position")
    server_b = sticky(b)
    assert server_a != server_b, "leastconn: A's websocket holds one process, B gets the other"
    a.reload(wait_until="domcontentloaded")
    wait_for_app(a)
    assert sticky(a) == server_a and teaching_text(a) == seen
    assert {s for s, _ in hall.served("/attention")} == {server_a}
    assert {s for s, _ in hall.served("/position")} == {server_b}

    crashed = hall.backend_port(server_a)
    os.kill(hall.pid_on(crashed), signal.SIGKILL)                # deploy.serve waits RESTART_DELAY_S to restart it
    a.reload(wait_until="domcontentloaded")
    back_on_its_page(a, hall)
    wait_for_app(a)
    assert sticky(a) == server_b, "the cookie now names the live process"
    assert "causal=1" in a.url and a.url == link
    assert teaching_text(a) == seen, "the same page and values, rebuilt from the URL"
    assert hall.served("/attention")[-1][0] == server_b

    assert not error_texts(b) and sticky(b) == server_b          # B's session never noticed
    b.get_by_text("sinusoidal (Vaswani et al.)").click()
    wait_for_app(b, after_input=True)
    assert "now order matters" in main_text(b) and not error_texts(b)

    deadline = time.time() + 90                                  # deploy.serve starts the dead one again
    while not healthy(f"http://127.0.0.1:{crashed}", timeout=1):
        assert time.time() < deadline, "deploy.serve did not restart the killed process"
        time.sleep(0.5)


def test_the_processes_are_forks_of_one_preloaded_parent_and_share_its_memory(hall):
    backends = [hall.pid_on(hall.first + i) for i in range(PROCESSES)]
    parents = {int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) for pid in backends}
    assert len(parents) == 1 and parents != {hall.process.pid}, parents       # one fork server, not deploy.serve
    for pid in backends:
        memory = memory_kib(pid)
        # anonymous pages shared with the parent and the sibling count a half or a third each in Pss:
        # the imported libraries and the loaded data (hundreds of MiB) are not copied per process
        assert memory["Anonymous"] - memory["Pss_Anon"] >= 50 * 1024, memory


def test_sigterm_stops_haproxy_and_every_process(hall):
    family = descendants(hall.process.pid)       # HAProxy, the fork server (and its resource tracker), the processes
    commands = [Path(f"/proc/{pid}/cmdline").read_text() for pid in family]
    assert sum("haproxy" in command for command in commands) == 1, commands
    assert sum("forkserver" in command for command in commands) == PROCESSES + 1, commands   # forks keep its command
    assert {hall.pid_on(hall.first + i) for i in range(PROCESSES)} <= set(family)
    hall.process.send_signal(signal.SIGTERM)
    assert hall.process.wait(30) == 128 + signal.SIGTERM
    deadline = time.time() + 10
    while any(Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()
              for pid in family):
        assert time.time() < deadline, "a child of deploy.serve outlived it"
        time.sleep(0.2)
    assert not healthy(hall.url, timeout=1)
