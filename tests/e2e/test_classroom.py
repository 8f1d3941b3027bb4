"""Class mode in Chromium: a teacher at 1920 px in projector mode and two students on phones (390 px), on a
server whose class store lives in a temp folder. The students join by the QR code's link, answer, see the
reveal, vote again and follow the teacher to another page; axe checks the student's section at 390 px. While the
question is open, the parts of the page that give its answer are veiled on the projector and on the phones.
Who is who is the browser (its signed cookie): a second tab is the same student, a reload keeps the teacher, a
link with another student's id acts as nobody. The lesson moves one scene per press, in projector mode.
Screenshots: artifacts/screenshots/class-*.png."""
from __future__ import annotations

import os
import re
import sys
import time

import pytest

from tests.e2e.conftest import _free_port, serving
from tests.e2e.helpers import screenshot, start_class, teacher_page, wait_for_app
from tests.e2e.test_accessibility import WCAG


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0",
               PLAYGROUND_DATA=str(tmp_path_factory.mktemp("class-data")))
    env.pop("PLAYGROUND_REDIS_URL", None)
    # the phones follow by running the teacher's page, as before issue 42 (its veils, its URL): following by the
    # class view, the default, is tests/e2e/test_class_view_browser.py
    env["PLAYGROUND_CLASS_VIEW"] = "0"
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


VEILED = "Veiled until the reveal"


def main_text(page) -> str:
    """The main area's text, outside the class's own boxes."""
    return page.evaluate("""() => {
        const main = document.querySelector("[data-testid='stMain']").cloneNode(true);
        main.querySelectorAll(".st-key-class_student, .st-key-class_teacher").forEach((box) => box.remove());
        return main.innerText;
    }""")


def ask_free(teacher, prompt: str, options: str, right: str | None = None) -> None:
    """The teacher asks their own question (`right`: the right option's text; None: a poll)."""
    teacher.get_by_text("Ask the class", exact=True).click()
    teacher.get_by_role("textbox", name="Question").fill(prompt)
    teacher.get_by_role("textbox", name="Question").press("Tab")
    wait_for_app(teacher, after_input=True)
    box = teacher.get_by_role("textbox", name="Options, one per line")
    box.fill(options)
    box.press("Tab")
    wait_for_app(teacher, after_input=True)
    if right is not None:
        teacher.get_by_role("combobox", name="The right option").click()
        teacher.get_by_role("option", name=right, exact=True).click()
        wait_for_app(teacher, after_input=True)
    teacher.get_by_role("button", name="Ask my question").click()
    wait_for_app(teacher, after_input=True)


def test_a_class_teacher_projector_and_two_phones(class_app, browser):
    teacher = teacher_page(browser, 1920, 1080)
    code = start_class(teacher, f"{class_app}/attention?present=1")
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
    # predict, then reveal: crane's weights (0.298 on crane) are veiled on the projector and on every phone
    until(lambda: VEILED in main_text(first))
    for screen in (teacher, first, second):
        wait_for_app(screen)
        text = main_text(screen)
        assert VEILED in text and "0.298" not in text and "0.293" not in text, "the page gives the answer away"
        assert screen.locator("[data-testid='stMain'] [data-testid='stVegaLiteChart']").count() == 0
    screenshot(teacher, "class-projector-veiled", full_page=False)
    screenshot(first, "class-phone-veiled")
    first.locator(".st-key-class_student .tp-q button").filter(has_text="3: lake").click()
    until(lambda: "Answer received: 3: lake" in student_text(first))
    first.locator(".st-key-class_student .tp-q button").filter(has_text="0: crane").click()     # a change of mind
    until(lambda: "Answer received: 0: crane" in student_text(first))
    second.locator(".st-key-class_student .tp-q button").filter(has_text="3: lake").click()
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
    until(lambda: "0.298" in main_text(first) and VEILED not in main_text(first))     # the page, whole again
    assert "0.298" in main_text(teacher) and VEILED not in main_text(teacher)
    screenshot(teacher, "class-projector-reveal", full_page=False)
    screenshot(second, "class-phone-reveal")
    sizes = teacher.locator(".st-key-class_teacher [data-testid='stVegaLiteChart'] svg text").evaluate_all(
        "texts => texts.map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert sizes and min(sizes) >= 24, "the projector's histogram reads from the back of the room"

    teacher.get_by_role("button", name="Vote again").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "Round 2" in student_text(second))
    second.locator(".st-key-class_student .tp-q button").filter(has_text="0: crane").click()
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
    for phone in students:     # a student's link holds the class, never an identity (that is the browser's cookie)
        names = {pair.split("=")[0] for pair in phone.url.split("?")[1].split("&")}
        assert "class" in names and "sid" not in names
    for context in [teacher.context] + [phone.context for phone in students]:
        context.close()


def test_who_is_who_is_the_browser(class_app, browser):
    """A reload keeps the teacher; a second tab of a phone is the same student with the same vote; a link naming
    another student's id acts as nobody; a free question's Markdown is its characters (no image fetched, no link)."""
    teacher_context = browser.new_context(viewport={"width": 1400, "height": 1200})
    teacher_context.set_default_timeout(120_000)
    teacher = teacher_context.new_page()
    code = start_class(teacher, f"{class_app}/")
    ask_free(teacher, "Which is ![bigger](http://203.0.113.9/x.png)? See https://203.0.113.9/y",
             "[ten](http://203.0.113.9)\ntwelve")
    phone_context = browser.new_context(viewport={"width": 390, "height": 844})
    phone_context.set_default_timeout(120_000)
    phone = phone_context.new_page()
    phone.goto(f"{class_app}/?class={code}")
    wait_for_app(phone, 120_000)
    until(lambda: "Which is" in student_text(phone))
    box = phone.locator(".st-key-class_student")
    assert "![bigger](http://203.0.113.9/x.png)" in box.inner_text().replace("\u2060", "")   # every character typed
    assert box.locator("img").count() == 0 and box.locator("a").count() == 0
    phone.locator(".st-key-class_student .tp-q button").filter(has_text="[ten]").click()
    until(lambda: "Answer received" in student_text(phone))

    tab = phone_context.new_page()                      # a second tab of the same phone: the same student
    tab.goto(f"{class_app}/?class={code}")
    wait_for_app(tab, 120_000)
    until(lambda: "Answer received: [ten]" in student_text(tab))
    assert tab.locator(".st-key-class_student .tp-q button[aria-pressed=true]").count() == 1
    tab.locator(".st-key-class_student .tp-q button").filter(has_text="twelve").click()
    until(lambda: "Answer received: twelve" in student_text(tab))
    until(lambda: "1 of 1 answered" in teacher.locator(".st-key-class_teacher").inner_text())

    teacher.reload()                                    # the teacher's reload: still the teacher of the class
    wait_for_app(teacher, 120_000)
    until(lambda: code in teacher.locator("[data-testid='stSidebar']").inner_text())
    assert teacher.get_by_role("button", name="Reveal").count() == 1
    other_tab = teacher_context.new_page()              # another page in a new tab: the teacher too
    other_tab.goto(f"{class_app}/context")
    wait_for_app(other_tab, 120_000)
    assert f"Class code {code}" in other_tab.locator("[data-testid='stSidebar']").inner_text()

    stranger_context = browser.new_context(viewport={"width": 390, "height": 844})
    stranger = stranger_context.new_page()
    stranger.goto(f"{class_app}/?class={code}&sid=anything-at-all")   # a link with an id acts as nobody
    wait_for_app(stranger, 120_000)
    until(lambda: "Which is" in student_text(stranger))
    assert "Answer received" not in student_text(stranger)
    assert stranger.locator(".st-key-class_student .tp-q button[aria-pressed=true]").count() == 0
    until(lambda: "1 of 2 answered" in teacher.locator(".st-key-class_teacher").inner_text()
          or "1 of 2 answered" in other_tab.locator(".st-key-class_teacher").inner_text())
    screenshot(tab, "class-phone-second-tab", full_page=False)
    for context in (teacher_context, phone_context, stranger_context):
        context.close()


def test_the_lesson_moves_one_scene_per_press_in_projector_mode(class_app, browser):
    """Issue 39: scene 5 kept the causal mask the teacher had turned on; a step to another page dropped projector
    mode; presses got lost; the buttons read "P.. PageUp"."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    context.set_default_timeout(120_000)
    teacher = context.new_page()
    start_class(teacher, f"{class_app}/attention?present=1")
    teacher.locator("[data-testid='stSidebar'] label").filter(has_text="Causal mask").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "causal=1" in teacher.evaluate("() => location.search"))
    teacher.get_by_text("Lesson", exact=True).click()
    wait_for_app(teacher, after_input=True)
    for key in ("class_previous", "class_next"):        # each label in full, beside its key
        label = teacher.locator(f".st-key-{key} button:visible").inner_text().split()
        assert label[-1] in ("PageUp", "PageDown") and label[-2] in ("Previous", "Start")
    sidebar = teacher.locator("[data-testid='stSidebar']")

    def scene() -> str:
        found = re.search(r"Scene \d+ of \d+", sidebar.inner_text())
        return found.group() if found else ""

    teacher.get_by_role("button", name="Start").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: scene().startswith("Scene 1 of"))
    # every press moves exactly one scene: the key (a presenter's clicker) and the button, in turn
    for number in range(2, 6):
        wait_for_app(teacher)
        if number % 2:
            teacher.locator(".st-key-class_next button:visible").click()
        else:
            teacher.keyboard.press("PageDown")
        until(lambda: scene() == f"Scene {number} of 11")
    until(lambda: scene().startswith("Scene 5 of") and teacher.evaluate("() => location.pathname") == "/attention")
    wait_for_app(teacher)
    query = teacher.evaluate("() => location.search")
    assert "present=1" in query and "causal=1" not in query, query
    causal = teacher.locator("[data-testid='stSidebar'] input[role='switch'][aria-label^='Causal mask']")
    assert causal.count() == 1 and not causal.is_checked()       # the scene's page as its link says
    screenshot(teacher, "class-projector-scene-5", full_page=False)
    teacher.keyboard.press("PageUp")
    until(lambda: scene().startswith("Scene 4 of") and teacher.evaluate("() => location.pathname") == "/context")
    assert "present=1" in teacher.evaluate("() => location.search")
    context.close()
