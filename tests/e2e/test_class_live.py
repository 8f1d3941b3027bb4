"""The student's listener draws what only displays, with no Streamlit rerun (ui.class_live, issue 42), in Chromium:
a teacher at 1920 px and a phone at 390 px that follows by the class view. The question appears in the listener's
own element (buttons, fetched from the question route), the phone answers by a click (the vote route, no rerun),
the teacher's count moves, "locked" is drawn, the reveal is drawn by the listener too (the answer, the student's own,
the class's answers chart as an SVG image, from the question route), and when the teacher moves the reveal leaves
and the phone shows the new class view, fetched by the listener. No websocket message goes from the phone to the
server from the question to the new view: nothing reran. A reload draws the same. An Arabic phone reads the
question right to left. Screenshots: artifacts/screenshots/class-live-*.png."""
from __future__ import annotations

import os
import sys

import pytest

from tests.e2e.conftest import _free_port, serving
from tests.e2e.helpers import screenshot, start_class, teacher_page, wait_for_app
from tests.e2e.test_classroom import ask_free, student_text, until


@pytest.fixture(scope="module")
def live_app(tmp_path_factory):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0",
               PLAYGROUND_DATA=str(tmp_path_factory.mktemp("class-live-data")))
    for name in ("PLAYGROUND_REDIS_URL", "PLAYGROUND_CLASS_VIEW", "PLAYGROUND_CLASS_TRANSPORT"):
        env.pop(name, None)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with serving(command, url, f"{url}/_stcore/health", env) as served:
        yield served


def phone(browser, url: str):
    """A phone at 390 px, counting the messages its page sends on Streamlit's websocket (a rerun is one)."""
    context = browser.new_context(viewport={"width": 390, "height": 2400})
    context.set_default_timeout(120_000)
    page = context.new_page()
    sent: list[int] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(1)))
    page.goto(url)
    wait_for_app(page, 120_000)
    return page, sent


def live(page):
    return page.locator(".st-key-class_student .tp-live")


def question_buttons(page):
    return page.locator(".st-key-class_student .tp-q button.tp-q-option")


def teacher_text(teacher) -> str:
    return teacher.locator(".st-key-class_teacher").inner_text()


def test_the_listener_draws_the_question_takes_the_vote_and_follows_without_a_rerun(live_app, browser):
    teacher = teacher_page(browser, 1920, 1080)
    code = start_class(teacher, f"{live_app}/attention")
    page, sent = phone(browser, f"{live_app}/?class={code}")
    until(lambda: "Attention calculator" in live(page).inner_text())            # the view, drawn by the listener
    until(lambda: "1 joined" in teacher_text(teacher))
    wait_for_app(page)
    assert sent, "the phone's websocket frames are not counted"      # its first run was one: the count works

    before = len(sent)
    ask_free(teacher, "Which word comes first?", "crane\nlake", right="lake")
    until(lambda: question_buttons(page).count() == 2, 60)
    assert "Which word comes first?" in live(page).inner_text()
    assert page.locator(".st-key-class_student [data-testid='stRadio']").count() == 0    # not drawn twice
    assert student_text(page).count("Which word comes first?") == 1
    found = page.evaluate("""() => {
        const b = document.querySelector('.st-key-class_student .tp-q button');
        return {size: parseFloat(getComputedStyle(b).fontSize), height: b.getBoundingClientRect().height,
                scroll: document.documentElement.scrollWidth, legend: !!document.querySelector('.tp-q legend')};
    }""")
    assert found["size"] >= 16 and found["height"] >= 44 and found["scroll"] <= 391 and found["legend"], found
    screenshot(page, "class-live-phone-question", full_page=False)

    page.get_by_role("button", name="lake").click()
    until(lambda: "Answer received: lake" in live(page).inner_text(), 30)
    assert page.get_by_role("button", name="lake").get_attribute("aria-pressed") == "true"
    until(lambda: "1 of 1 answered" in teacher_text(teacher), 30)
    page.get_by_role("button", name="crane").click()                             # changeable until locked
    until(lambda: "Answer received: crane" in live(page).inner_text(), 30)
    assert len(sent) == before, "the phone's page reran between the question and its answer"
    screenshot(page, "class-live-phone-answered", full_page=False)

    page.reload()                                                                # a reload draws the same
    wait_for_app(page, 120_000)
    until(lambda: "Answer received: crane" in live(page).inner_text(), 60)
    assert question_buttons(page).count() == 2
    before = len(sent)

    teacher.get_by_role("button", name="Lock answers").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "Answers are locked" in live(page).inner_text(), 30)
    assert question_buttons(page).first.is_disabled()
    assert len(sent) == before, "locked was drawn by a rerun"

    teacher.get_by_role("button", name="Reveal").click()
    wait_for_app(teacher, after_input=True)
    reveal = page.locator(".st-key-class_student .tp-live .tp-r")
    until(lambda: reveal.count() == 1 and "The answer: lake" in reveal.inner_text(), 30)   # drawn by the listener
    assert "Yours was crane." in reveal.inner_text() and "round 1: 0 of 1 (0%)" in reveal.inner_text()
    assert question_buttons(page).count() == 0
    assert student_text(page).count("Which word comes first?") == 1
    assert "answers" in reveal.locator("img.tp-chart").get_attribute("alt")    # what the chart shows, in words
    drawn = page.evaluate("""() => {
        const img = document.querySelector('.tp-r img.tp-chart');
        return {width: img.getBoundingClientRect().width, loaded: img.complete && img.naturalWidth > 0,
                scroll: document.documentElement.scrollWidth};
    }""")
    assert drawn["loaded"] and 300 <= drawn["width"] <= 390 and drawn["scroll"] <= 391, drawn
    assert len(sent) == before, "the reveal was drawn by a rerun"
    screenshot(page, "class-live-phone-reveal", full_page=False)

    teacher.goto(f"{live_app}/context?k=3")                                      # the teacher moves
    wait_for_app(teacher, 120_000)
    until(lambda: "Context: window vs attention" in live(page).inner_text(), 60)
    until(lambda: reveal.count() == 0, 30)                                       # the reveal leaves with its page
    assert len(sent) == before, "the follow was drawn by a rerun"
    screenshot(page, "class-live-phone-follow")

    page.get_by_role("button", name="Explore from here").click()                # it may rerun the fragment
    until(lambda: page.evaluate("() => location.pathname") == "/context")
    wait_for_app(page, 120_000)
    assert "k=3" in page.evaluate("() => location.search")


def test_an_arabic_phone_reads_the_question_right_to_left(live_app, browser):
    teacher = teacher_page(browser, 1920, 1080)
    code = start_class(teacher, f"{live_app}/attention")
    page, _ = phone(browser, f"{live_app}/?class={code}&lang=ar")
    until(lambda: "1 joined" in teacher_text(teacher))
    wait_for_app(page)
    ask_free(teacher, "Which word comes first?", "crane\nlake")
    until(lambda: question_buttons(page).count() == 2, 60)
    section = page.locator(".st-key-class_student .tp-q")
    assert section.get_attribute("lang") == "ar" and section.get_attribute("dir") == "rtl"
    question_buttons(page).nth(1).click()
    until(lambda: "lake" in page.locator(".st-key-class_student .tp-q-status").inner_text(), 30)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
    screenshot(page, "class-live-phone-ar", full_page=False)
