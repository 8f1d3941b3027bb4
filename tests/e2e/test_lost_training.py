"""A training whose server process dies is said to be lost, with an offer to start it again (issue: under
deploy.serve, SIGKILL to the process running a Block builder training left the tab, reconnected to the other
process, on a silent idle page). The link carries bb_training=1 while a run trains; the new process sees the mark
in a session that never trained. Skips without HAProxy (tests/e2e/test_lecture_hall.py's hall)."""
from __future__ import annotations

import os
import signal
import time

import pytest

from deploy import haproxy
from tests.e2e import test_lecture_hall
from tests.e2e.helpers import open_page, screenshot, wait_for_app
from tests.e2e.test_lecture_hall import Hall, sticky, student  # noqa: F401  (fixture)

LOST = "the server that ran your training stopped"
START_SLOWER = 4   # a shared machine's preloading parent can take longer than the lecture hall's 120 s to serve


class _SlowerClock:
    """time for Hall's start loop, running START_SLOWER times slower: its deadline becomes 480 s."""
    sleep = staticmethod(time.sleep)

    @staticmethod
    def time() -> float:
        return time.time() / START_SLOWER


@pytest.fixture(scope="module")
def hall(tmp_path_factory, browser):
    try:
        haproxy.binary()
    except haproxy.HAProxyMissing as missing:
        pytest.skip(str(missing))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(test_lecture_hall, "time", _SlowerClock)
        running = Hall(tmp_path_factory.mktemp("hall"))
    yield running
    running.stop()


def test_a_killed_training_process_leaves_a_sentence_and_a_way_to_start_again(hall, student):  # noqa: F811
    page = student()
    page.set_default_timeout(180_000)
    open_page(page, hall.url, "block?bb_seconds=120&bb_steps=100000&bb_batch=4", timeout_ms=240_000)
    page.get_by_role("button", name="Train").click()
    page.wait_for_function("() => location.search.includes('bb_training=1')", timeout=120_000)
    server = sticky(page)
    os.kill(hall.pid_on(hall.backend_port(server)), signal.SIGKILL)
    page.get_by_text(LOST).wait_for(timeout=180_000)          # the tab reconnects on its own, to the other process
    wait_for_app(page, timeout_ms=240_000)
    assert sticky(page) != server
    assert "bb_seconds=120" in page.url and "bb_batch=4" in page.url
    screenshot(page, "block-training-lost", full_page=False)
    page.get_by_role("button", name="Start again").click()
    page.get_by_role("button", name="Stop").and_(page.locator(":enabled")).wait_for(timeout=180_000)
    assert not page.get_by_text(LOST).count()
    page.get_by_role("button", name="Stop").click()
    wait_for_app(page, timeout_ms=240_000, after_input=True)
