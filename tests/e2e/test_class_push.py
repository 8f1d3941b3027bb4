"""Students are told, not polling (ui.class_events), in Chromium: a teacher at 1920 px and two phones at 390 px.

The phones' class box holds the listener (a components v2 component, no iframe): it parks a request on the class's
events route, and the question appears on the phones only because the listener was told (the fragment has no timer
in push mode). A third phone whose browser cannot reach the route (every request to it aborted) falls back to the
fragment's timer, says so once, and still sees the question. Screenshots: artifacts/screenshots/class-push-*.png."""
from __future__ import annotations

import json

from engine import limits
from tests.e2e.helpers import screenshot, wait_for_app
from tests.e2e.test_classroom import ask_free, class_app, start_class, student_text, until  # noqa: F401 (fixture)

EVENTS = "/api/class/"


def phone(browser, url: str, blocked: bool = False):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(120_000)
    if blocked:
        context.route(f"**{EVENTS}**", lambda route: route.abort())
    page = context.new_page()
    told: list[dict] = []

    def record(response) -> None:
        if EVENTS in response.url and response.status == 200:
            try:
                told.append(json.loads(response.body()))
            except Exception:       # a reply cut by the page going away
                pass
    page.on("response", record)
    page.goto(url)
    wait_for_app(page, 120_000)
    return page, told


def test_phones_are_told_the_question_and_a_blocked_route_falls_back_to_polling(class_app, browser):  # noqa: F811
    teacher_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    teacher_context.set_default_timeout(120_000)
    teacher = teacher_context.new_page()
    code = start_class(teacher, f"{class_app}/attention")
    phones = [phone(browser, f"{class_app}/?class={code}") for _ in range(2)]
    blocked, blocked_told = phone(browser, f"{class_app}/?class={code}", blocked=True)
    until(lambda: "3 joined" in teacher.locator(".st-key-class_teacher").inner_text())
    for page, _ in phones:
        # the listener is mounted in the class box, and takes no room there
        assert page.locator(".st-key-class_student [data-testid='stElementContainer']:has(.stBidiComponent)").count() \
            == 1
        assert "Question" not in student_text(page)

    ask_free(teacher, "Which word comes first?", "crane\nlake")
    for page, told in phones:
        until(lambda page=page: "Which word comes first?" in student_text(page), 30)
        # it came by the route: an event that says the question is open
        assert any(event["status"] == "open" and event["question"] == 1 for event in told)
        assert not any("key" in name.lower() for event in told for name in event)
    screenshot(phones[0][0], "class-push-phone-question", full_page=False)

    for page, _ in phones:
        page.locator(".st-key-class_student .tp-q button").filter(has_text="lake").click()   # the listener's own
        until(lambda page=page: "Answer received: lake" in student_text(page), 30)
    try:
        until(lambda: "2 of 3 answered" in teacher.locator(".st-key-class_teacher").inner_text(), 30)
    except AssertionError:
        screenshot(teacher, "class-push-teacher-failed", full_page=False)
        raise AssertionError(teacher.locator(".st-key-class_teacher").inner_text()) from None

    teacher.get_by_role("button", name="Reveal").click()
    wait_for_app(teacher, after_input=True)
    for page, told in phones:
        try:
            until(lambda page=page: page.locator(".st-key-class_student .tp-r img.tp-chart").count() == 1, 30)
        except AssertionError:
            screenshot(page, "class-push-phone-failed", full_page=False)
            raise AssertionError(f"{student_text(page)}\ntold: {told}") from None
    screenshot(phones[0][0], "class-push-phone-reveal", full_page=False)

    # the blocked phone: its listener failed CLASS_EVENTS_FAILURES times, said so once, and polls on a timer
    until(lambda: "cannot reach the class's events" in blocked.locator("body").inner_text(), 90)
    screenshot(blocked, "class-push-phone-fallback", full_page=False)
    until(lambda: "The class's answers" in student_text(blocked), 30 + limits.CLASS_FALLBACK_POLL_S)
    assert blocked_told == []
