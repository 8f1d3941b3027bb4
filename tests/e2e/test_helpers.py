"""The browser tests' own waiting (tests/e2e/helpers.py), on a stand-in for Streamlit's app element: a rerun that
is already over when a test looks for it still counts as its input's rerun."""
from __future__ import annotations

from tests.e2e.helpers import _RUN_STARTED, wait_for_app

APP = """<div data-testid="stApp" data-test-script-state="notRunning" data-test-connection-state="CONNECTED">
<div data-testid="stMain"><p data-testid="stMarkdown">A page</p></div></div>"""
RUN = """(states) => { const app = document.querySelector("[data-testid='stApp']");
    for (const state of states) app.setAttribute('data-test-script-state', state); }"""


def test_a_rerun_over_before_the_wait_begins_counts_as_the_inputs(browser_page):
    page = browser_page
    page.set_content(APP)
    wait_for_app(page)
    assert not page.evaluate(_RUN_STARTED)                 # nothing ran since: an input that reruns nothing waits
    page.evaluate(RUN, ["running", "notRunning"])            # a whole run between two looks (one task, one record)
    assert page.evaluate(_RUN_STARTED)                     # the old check (showing 'running' now) saw nothing
    wait_for_app(page, after_input=True)
    assert not page.evaluate(_RUN_STARTED)
    page.evaluate(RUN, ["running"])
    page.evaluate(RUN, ["notRunning"])                       # in two tasks: two records
    page.evaluate(RUN, ["running", "notRunning", "running", "notRunning"])
    assert page.evaluate("() => window.__runs - window.__runsSeen") == 3
