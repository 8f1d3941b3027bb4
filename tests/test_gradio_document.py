"""The Gradio Space's page in one language (issue 41): the link's ?lang= wins over the browser's language for the
static text the browser translates too (gradio_tabs.document rewrites the served page: <html lang dir>, and a script
that makes navigator.language the chosen language before Gradio's frontend reads it), Arabic runs right to left with
its numbers, formulas, tables and charts left to right, and a table shows its numbers as the page prints them
(gradio_tabs.common.shown_table: 0.190, 0,190 in Spanish). In Chromium: tests/e2e/test_gradio_tabs.py."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from engine import i18n

gr = pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")

from gradio_tabs import common, document  # noqa: E402

# Gradio's own page, as its server fills it in (a Jinja template: its markup is what the middleware rewrites)
GRADIO_PAGE = (Path(gr.__file__).parent / "templates" / "frontend" / "index.html").read_bytes()


@pytest.mark.parametrize("query, accept, code", [
    ("lang=ko", "en-US,en;q=0.9", "ko"),            # the link wins over the browser
    ("", "ar-EG,ar;q=0.9", "ar"),                    # else the browser's
    ("lang=zh-Hans&x=1", "", "zh-Hans"),
    ("lang=tlh", "fr-FR,es;q=0.5", "es"),            # a language we do not speak: the browser's next one of ours
    ("", "fr-FR,de;q=0.5", "en"),                    # none of ours: English
])
def test_the_pages_language(query, accept, code):
    assert document.page_language(query.encode(), accept).code == code


def test_the_page_is_served_in_its_language_before_the_frontend_starts():
    page = document.in_language(GRADIO_PAGE, i18n.LANGUAGES["ar"])
    html_tag = page[page.index(b"<html"):page.index(b">", page.index(b"<html")) + 1]
    assert b'lang="ar"' in html_tag and b'dir="rtl"' in html_tag and b'lang="en"' not in html_tag
    ours, frontend = page.index(b'id="playground-language"'), page.index(b'<script type="module"')
    assert ours < frontend                        # a classic script in <head>: it runs before the frontend's modules
    assert b"Object.defineProperty(navigator, 'language', { get: () => locale" in page[ours:frontend]
    assert b'const locale = "ar"' in page and document.RTL_STYLE.encode() in page
    korean = document.in_language(GRADIO_PAGE, i18n.LANGUAGES["ko"])
    assert b'lang="ko" dir="ltr"' in korean and b'const locale = "ko"' in korean
    assert b"playground-direction" not in korean  # the right-to-left style only where it is needed
    # the frontend knows Chinese as zh-CN (and zh-TW): the locale it is handed is the name it looks up
    assert b'const locale = "zh-CN"' in document.in_language(GRADIO_PAGE, i18n.LANGUAGES["zh-Hans"])


def test_the_right_to_left_style_keeps_numbers_formulas_tables_and_charts_left_to_right():
    style = document.RTL_STYLE
    assert "html[dir=rtl] .prose" in style and "direction: rtl" in style
    kept = style[style.index("html[dir=rtl] .katex,"):style.index("{ direction: ltr")]
    for selector in (".katex", "pre", "code", ".table-wrap", "[data-testid=altair]", "input[type=range]"):
        assert f"html[dir=rtl] {selector}" in kept


def _served(app_page: bytes, content_type: str = "text/html; charset=utf-8"):
    """An ASGI app that answers every GET with `app_page`, in two pieces, behind the middleware."""
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", content_type.encode()),
                                (b"content-length", str(len(app_page)).encode())]})
        half = len(app_page) // 2
        await send({"type": "http.response.body", "body": app_page[:half], "more_body": True})
        await send({"type": "http.response.body", "body": app_page[half:]})
    return document.DocumentLanguage(app)


def test_the_middleware_rewrites_the_page_alone():
    from starlette.testclient import TestClient

    client = TestClient(_served(GRADIO_PAGE))
    page = client.get("/?lang=ar", headers={"accept-language": "en-US"})
    assert page.status_code == 200 and int(page.headers["content-length"]) == len(page.content)
    assert b'lang="ar" dir="rtl"' in page.content and b'const locale = "ar"' in page.content
    assert b'const locale = "ko"' in client.get("/", headers={"accept-language": "ko-KR,ko"}).content
    assert client.get("/gradio_api/info").content == GRADIO_PAGE            # anything but the page: as it is
    behind_a_proxy = TestClient(_served(GRADIO_PAGE), root_path="/space")
    assert b'dir="rtl"' in behind_a_proxy.get("/space/?lang=ar").content
    assert behind_a_proxy.get("/space/gradio_api/info").content == GRADIO_PAGE
    assert TestClient(_served(b"{}", "application/json")).get("/?lang=ar").content == b"{}"


def test_a_table_shows_its_numbers_as_the_page_prints_them():
    frame = common.table([("by", 0.19, 0.1235, 2359296, None), ("the", 0.298, float("nan"), 3, None)],
                         ["token", "weight", "P", "count", "note"])
    english = common.shown_table(frame)
    assert english["data"][0][:4] == ["by", 0.19, 0.1235, 2359296]        # an API caller still reads numbers
    # each float column with the decimals the tab rounded it to (0.19 beside 0.298: 0.190), counts grouped
    assert english["metadata"]["display_value"] == [["by", "0.190", "0.1235", "2,359,296", ""],
                                                    ["the", "0.298", "", "3", ""]]     # nan: a gap
    with i18n.use("es"):
        spanish = common.shown_table(frame)["metadata"]["display_value"]
    assert spanish[0][:4] == ["by", "0,190", "0,1235", "2.359.296"]
    assert common.shown_table(common.table([(0.5,)], ["x"], digits=3))["metadata"]["display_value"] == [["0.500"]]
    # sizes the tab did not round (a change that is rounding noise beside an exact 0): one way, as the page writes them
    noise = common.table([(5.551115123125783e-17,), (0.0,)], ["largest change"])
    assert [row[0] for row in common.shown_table(noise)["metadata"]["display_value"]] == ["5.55e-17", "0"]
    with i18n.use("es"):
        assert common.shown_table(common.table([(1.0 / 3,)], ["x"], formats={"x": "%.2f"}))[
            "metadata"]["display_value"] == [["0,33"]]


def test_an_events_tables_are_shown_in_its_callers_language(monkeypatch):
    import gradio_app
    from engine.chapter.attention import CHAPTER_MATRIX

    caller = SimpleNamespace(query_params={"lang": "es"}, headers={}, base_url="http://space.example/")
    monkeypatch.setattr(common, "_current_request", lambda: caller)
    event = next(fn for fn in gradio_app.demo.fns.values() if fn.api_name == "attention")
    weights, context, *_ = event.fn(CHAPTER_MATRIX, True, False, 0, 1.0, False, "identity", 0)
    by = next(row for row in weights["metadata"]["display_value"] if row[0] == "by")
    assert by[1:] == ["0,190", "0,314", "0,294", "0,202"]                  # the heatmap beside it: 0,190
    assert next(row for row in weights["data"] if row[0] == "by")[1] == 0.19
    assert context["metadata"]["display_value"][1][1:] == ["0,323", "0,638", "0,208"]   # by's context vector


def test_every_table_an_event_fills_is_read_only():
    """Gradio's browser shows a table's display values only in a table that cannot be edited."""
    import gradio_app

    filled = {id(component): component for fn in gradio_app.demo.fns.values() for component in fn.outputs
              if isinstance(component, gr.Dataframe)}
    assert len(filled) > 20 and all(component.interactive is False for component in filled.values())


def test_a_chart_in_a_right_to_left_language_is_drawn_as_svg():
    """On a canvas an Arabic title's brackets turn around; SVG text lets the page's style set each one's direction."""
    spec = {"mark": "bar", "title": "الاستعلام (المنتبِه)"}
    with i18n.use("ar"):
        assert '"embedOptions": {"renderer": "svg"}' in common.plot(spec).plot
    assert "usermeta" not in common.plot(spec).plot
