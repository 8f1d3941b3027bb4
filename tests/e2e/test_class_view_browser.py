"""Following by the class view in Chromium (issue 42): a teacher at 1920 px and two phones at 390 px. The phones
join by the class link and show the teacher's page as its class view (no run of the page: no chart element of
Streamlit's, the charts are the view's SVG), fitted to the phone's width with readable text; the teacher moves and
both phones move with it; one phone explores from here (the real page at the teacher's settings) and comes back.
Screenshots: artifacts/screenshots/class-view-*.png."""
from __future__ import annotations

import os
import sys

import pytest

from tests.e2e.conftest import _free_port, serving
from tests.e2e.helpers import screenshot, start_class, teacher_page, wait_for_app
from tests.e2e.test_classroom import at_path, until


@pytest.fixture(scope="module")
def view_app(tmp_path_factory):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONUNBUFFERED="1", PLAYGROUND_WARM_UP="0",
               PLAYGROUND_DATA=str(tmp_path_factory.mktemp("class-view-data")))
    env.pop("PLAYGROUND_REDIS_URL", None)
    env.pop("PLAYGROUND_CLASS_VIEW", None)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with serving(command, url, f"{url}/_stcore/health", env) as served:
        yield served


VIEW = ".st-key-class_student .tp-v"     # the follower's view, drawn by the class box's listener (ui.class_live)


def view_text(page) -> str:
    box = page.locator(VIEW)
    return box.inner_text() if box.count() else ""


def fits(page) -> dict:
    """How the view sits on the screen: the page's own horizontal scroll, the widest drawing and the text size."""
    return page.evaluate("""() => {
        const view = document.querySelector('.st-key-class_student .tp-v .tp-view');
        const svgs = [...document.querySelectorAll('.st-key-class_student .tp-v img.tp-chart')];
        const main = document.querySelector("[data-testid='stMain']");
        return {
            pageScroll: Math.max(document.documentElement.scrollWidth, main ? main.scrollWidth : 0),
            viewport: window.innerWidth,
            widest: Math.max(0, ...svgs.map(s => s.getBoundingClientRect().width)),
            figureOverflow: Math.max(0, ...[...document.querySelectorAll('.st-key-class_student .tp-v figure')]
                                     .map(f => f.getBoundingClientRect().right - window.innerWidth)),
            charts: svgs.filter(s => s.complete && s.naturalWidth > 0).length,
            text: view ? parseFloat(getComputedStyle(view).fontSize) : 0,
            streamlitCharts: document.querySelectorAll("[data-testid='stMain'] [data-testid='stVegaLiteChart']").length,
        };
    }""")


def test_two_phones_follow_the_teacher_by_the_class_view(view_app, browser):
    teacher = teacher_page(browser, 1920, 1080)
    code = start_class(teacher, f"{view_app}/attention")
    assert len(code) == 8

    phones = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        context.set_default_timeout(120_000)
        phone = context.new_page()
        fetched_outside = []
        phone.on("request", lambda request, seen=fetched_outside: seen.append(request.url)
                 if not request.url.startswith((view_app, "data:", f"blob:{view_app}")) else None)
        phone.goto(f"{view_app}/?class={code}")
        wait_for_app(phone, 120_000)
        phones.append((phone, fetched_outside))
    for phone, _ in phones:
        until(lambda: "Attention calculator" in view_text(phone) and fits(phone)["charts"] > 0)
        wait_for_app(phone)
        found = fits(phone)
        assert found["streamlitCharts"] == 0, "a follower ran the page"
        assert found["pageScroll"] <= found["viewport"] + 1, found       # nothing wider than the phone
        assert found["figureOverflow"] <= 1, found                        # a wide chart scrolls inside its figure
        assert found["text"] >= 15, found                                 # readable on a phone
        assert phone.get_by_role("button", name="Explore from here").count() == 1
    screenshot(phones[0][0], "class-view-phone-attention")
    screenshot(phones[1][0], "class-view-phone2-attention", full_page=False)

    teacher.goto(f"{view_app}/context?k=3")                 # the teacher moves (a reload: still the teacher)
    wait_for_app(teacher, 120_000)
    screenshot(teacher, "class-view-teacher-1920", full_page=False)
    for phone, _ in phones:
        until(lambda: "Context: window vs attention" in view_text(phone))
        wait_for_app(phone)
        assert fits(phone)["pageScroll"] <= 391
    screenshot(phones[0][0], "class-view-phone-context")

    first = phones[0][0]
    first.get_by_role("button", name="Explore from here").click()
    until(lambda: at_path(first) == "/context")
    wait_for_app(first, 120_000)
    until(lambda: first.locator("[data-testid='stMain'] h1").count() > 0)
    assert "k=3" in first.evaluate("() => location.search")                # at the teacher's settings
    assert view_text(first) == ""
    screenshot(first, "class-view-phone-explored", full_page=False)
    first.get_by_role("button", name="Back to the teacher's page").click()
    until(lambda: "Context: window vs attention" in view_text(first))
    for phone, fetched_outside in phones:
        assert not fetched_outside, fetched_outside
    projector = teacher.context.new_page()                                 # the view as a page of its own, projected
    answer = projector.goto(f"{view_app}/api/class/{code}/view")
    assert answer.status == 200 and "Context: window vs attention" in projector.inner_text("h2")
    assert projector.evaluate("() => document.documentElement.scrollWidth") <= 1920
    projector.screenshot(path=str(screenshot(projector, "class-view-route-1920", full_page=False)))
