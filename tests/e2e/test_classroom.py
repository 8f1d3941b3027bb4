"""Class mode in Chromium: a teacher at 1920 px in projector mode and two students on phones (390 px), on a
server whose class store lives in a temp folder. The students join by the QR code's link, answer, see the
reveal, vote again and follow the teacher to another page; axe checks the student's section at 390 px.
Screenshots: artifacts/screenshots/class-*.png."""
from __future__ import annotations

import os
import sys
import time

import pytest

from tests.e2e.conftest import _free_port, serving
from tests.e2e.helpers import screenshot, wait_for_app
from tests.e2e.test_accessibility import WCAG


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0",
               PLAYGROUND_DATA=str(tmp_path_factory.mktemp("class-data")))
    env.pop("PLAYGROUND_REDIS_URL", None)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with serving(command, url, f"{url}/_stcore/health", env) as served:
        yield served


def until(check, seconds: float = 120.0) -> None:
    """Wait for `check()` to hold (a poll every CLASS_POLL_S brings news): fail after `seconds`, a generous
    bound (the suite runs on a busy 2-core machine; how fast the class follows is bench.classroom's to say)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.25)
    assert check()


def at_path(page) -> str:
    """The address the phone's browser shows now. Not `page.url`: playwright's sync API updates that only while
    it handles events, during a call into it, and a loop that only reads it and sleeps saw the old page forever
    (the CI failure: the phone had moved; nothing told playwright)."""
    return page.evaluate("() => location.pathname")


def student_text(page) -> str:
    box = page.locator(".st-key-class_student")
    return box.inner_text() if box.count() else ""


def test_a_class_teacher_projector_and_two_phones(class_app, browser):
    teacher_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    teacher_context.set_default_timeout(120_000)
    teacher = teacher_context.new_page()
    teacher.goto(f"{class_app}/attention?present=1")
    wait_for_app(teacher, 120_000)
    teacher.get_by_role("button", name="Start a class (teacher)").click()
    wait_for_app(teacher, after_input=True)
    code = teacher.locator(".st-key-class_teacher strong").first.inner_text().strip()
    assert len(code) == 8
    join = teacher.locator(".st-key-class_teacher img[alt^='QR code to join']")
    assert join.count() == 1 and f"?class={code}" in join.get_attribute("alt")
    screenshot(teacher, "class-projector-join", full_page=False)

    students = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(120_000)
        phone = context.new_page()
        phone.goto(f"{class_app}/?class={code}")      # the QR code's link
        wait_for_app(phone, 120_000)
        students.append(phone)
    until(lambda: "2 joined" in teacher.locator(".st-key-class_teacher").inner_text())
    waiting = student_text(students[0])               # the box's first line, drawn once; its polls draw nothing yet
    assert f"Class {code}: joined" in waiting and "Question" not in waiting
    screenshot(students[0], "class-phone-waiting", full_page=False)

    teacher.get_by_text("Ask the class", exact=True).click()
    teacher.get_by_role("button", name="Questions about this example").click()
    wait_for_app(teacher, after_input=True)
    teacher.get_by_role("button", name="Ask this question").click()
    wait_for_app(teacher, after_input=True)
    for phone in students:                            # followed the teacher to the calculator, question above it
        until(lambda: "Query 'crane'" in student_text(phone))
        assert "/attention" in phone.url and f"class={code}" in phone.url
    first, second = students
    first.get_by_text("3: lake").click()
    until(lambda: "Answer received: 3: lake" in student_text(first))
    first.get_by_text("0: crane").click()             # a change of mind
    until(lambda: "Answer received: 0: crane" in student_text(first))
    second.get_by_text("3: lake").click()
    until(lambda: "Answer received" in student_text(second))
    screenshot(first, "class-phone-answered", full_page=False)
    until(lambda: "2 of 2 answered" in teacher.locator(".st-key-class_teacher").inner_text())

    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    result = axe_module.Axe().run(first, context=".st-key-class_student",
                                  options={"runOnly": {"type": "tag", "values": WCAG}})
    serious = [v["id"] for v in result.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, serious
    assert first.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")

    teacher.get_by_role("button", name="Reveal").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "The answer: 0: crane" in teacher.locator(".st-key-class_teacher").inner_text())
    until(lambda: "Yours was 3: lake" in student_text(second))
    until(lambda: "Yours was right" in student_text(first))
    screenshot(teacher, "class-projector-reveal", full_page=False)
    screenshot(second, "class-phone-reveal")
    sizes = teacher.locator(".st-key-class_teacher [data-testid='stVegaLiteChart'] svg text").evaluate_all(
        "texts => texts.map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert sizes and min(sizes) >= 24, "the projector's histogram reads from the back of the room"

    teacher.get_by_role("button", name="Vote again").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "Round 2" in student_text(second))
    second.get_by_text("0: crane").click()
    until(lambda: "Answer received: 0: crane" in student_text(second))
    teacher.get_by_role("button", name="Reveal").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "round 2: 1 of 1 (100%)" in teacher.locator(".st-key-class_teacher").inner_text())
    screenshot(teacher, "class-projector-two-rounds", full_page=False)

    teacher.locator("[data-testid='stSidebar']").get_by_role("link", name="Context: window vs attention").click()
    wait_for_app(teacher, after_input=True)
    for phone in students:                            # everyone follows (within about 2 s: bench.classroom)
        until(lambda: at_path(phone) == "/context")
    wait_for_app(first)
    screenshot(first, "class-phone-followed", full_page=False)
    teacher.locator("[data-testid='stSidebar']").get_by_role("link", name="Attention calculator").click()
    wait_for_app(teacher, after_input=True)
    for phone in students:                            # and keep following: the move left their switch on
        until(lambda: at_path(phone) == "/attention")
    for phone in students:     # a student's link holds the class and their own anonymous id, nothing else of ours
        assert {name for name in phone.url.split("?")[1].split("&") if name.startswith(("class=", "sid="))}
    for context in [teacher_context] + [phone.context for phone in students]:
        context.close()
