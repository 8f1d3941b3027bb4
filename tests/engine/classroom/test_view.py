"""The class view (engine.classroom.view, issue 42): a teacher's page made once per move as escaped HTML with its
charts as SVG; kept by both stores (put_view, view); made beside the teacher's run (ViewMaker).

Its pages in AppTest (every page's view, a follower who does not run the page, Explore from here) are in
tests/pages/test_class_view.py; the phones in Chromium in tests/e2e/test_class_view_browser.py."""
from __future__ import annotations

import html
import json
import re

import pytest

from engine import limits
from engine.charts import handout as paper
from engine.classroom import view as view_module
from engine.classroom.view import ClassView, ViewMaker, chart_svg, make_view
from tests.engine.classroom import test_store as contract
from tests.markdown_leaks import HOST, TOGETHER


# the store contract's fixtures: each store test below runs on SQLite and on Redis (skipped without redis-server)
redis_url, kind_spec, clock, store = contract.redis_url, contract.kind_spec, contract.clock, contract.store
start = contract.start


def bars(values: list[float], title: str = "Weights", width="container") -> dict:
    return {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "title": title, "width": width,
            "height": 120, "data": {"values": [{"key": k, "weight": v} for k, v in zip("abcdefgh", values)]},
            "mark": "bar", "encoding": {"x": {"field": "key", "type": "nominal"},
                                        "y": {"field": "weight", "type": "quantitative"}}}


def a_view(*blocks, title="Attention calculator", question="Which words does *crane* look at?") -> ClassView:
    return make_view("attention?x=1", title, question, [((), block) for block in blocks])


def drawing_of(img: str) -> str:
    """The SVG inside a chart's <img> (a data URL)."""
    import base64

    return base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', img).group(1)).decode()


def test_a_chart_is_an_svg_image_that_fits_the_screen_and_keeps_its_numbers():
    img = chart_svg(bars([0.298, 0.203, 0.206, 0.293]))
    assert img.startswith('<img class="tp-chart" src="data:image/svg+xml;base64,')
    assert "width:100%" in img and "height:auto" in img and "aspect-ratio:" in img
    assert "min-width:0px" in img                                                    # a column chart: stretches
    assert "max-width:" in img
    drawing = drawing_of(img)
    assert drawing.startswith("<svg") and 'viewBox="0 0 ' in drawing
    assert "0.30" in drawing or "0.3" in drawing                                      # its axis, drawn as text
    assert re.search(r'alt="[^"]+"', img)                                           # its sentence, for a reader
    fixed = chart_svg(bars([1, 2], width=900))
    assert f"min-width:{limits.CLASS_VIEW_MIN_CHART_PX}px" in fixed


def test_the_view_holds_title_question_formula_numbers_table_and_chart():
    view = a_view(paper.Text("Scores", heading=True),
                  paper.Chart(bars([0.298, 0.203]), "crane puts its largest weight, 0.298, on crane"),
                  paper.Formula(r"\alpha_{ij} = \frac{e^{s_{ij}}}{\sum_k e^{s_{ik}}}", r"\alpha_{11} = 0.298"),
                  paper.Table(("key", "weight"), (("crane", "0.298"), ("lake", "0.293"))),
                  paper.Code("print(1)"), paper.Challenge("Make *lake* win."))
    body = view.body()
    assert "<h2>Attention calculator</h2>" in body and "<em>crane</em>" in body
    assert body.count('class="tp-chart"') == 1 and view.charts == 1
    assert "α_11 = 0.298" in body                        # the numbers as the page prints them (plain formula)
    assert "<td class=tp-n>0.298</td>" in body and "<td>crane</td>" in body
    assert "<h3>Try this</h3>" in body and "Make <em>lake</em> win." in body
    assert "<script" not in body.lower()
    assert ClassView.from_json(view.to_json()) == ClassView.from_json(view.to_json())
    again = ClassView.from_json(view.to_json())
    assert again.body() == body and again.link == "attention?x=1"


def test_every_text_is_escaped_nothing_is_fetched_or_run():
    hostile = TOGETHER + " <script>alert(1)</script> <svg onload=alert(1)>"
    view = a_view(paper.Text(hostile), paper.Text(hostile, heading=True),
                  paper.Chart(bars([1, 2], title=hostile), hostile),
                  paper.Formula(r"x = 1", r"x = 1", caption=hostile),
                  paper.Table((hostile,), ((hostile,),)), paper.Code(hostile), paper.Challenge(hostile),
                  title=hostile, question=hostile)
    body = view.body()
    document = view.document(explore="/attention?x=1&class=K7QM2XPA")
    for shown in (body, document):
        tags, attributes = parsed(shown)
        assert not tags & {"script", "iframe", "object", "embed", "link", "foreignobject"}
        assert "a" not in tags or shown is document          # the route's page links to the real page, nothing more
        assert not [name for name, _ in attributes if name.startswith("on")]
        fetched = [value for name, value in attributes if name in ("src", "href", "xlink:href") and value]
        assert all(value.startswith(("data:image/svg+xml;base64,", "/attention?")) for value in fetched), fetched
        styles = [value for name, value in attributes if name == "style" and value]
        assert not [style for style in styles if "url(" in style and "url(#" not in style]   # nothing fetched
        assert not [value for name, value in attributes if name in ("src", "href") and HOST in (value or "")]
    assert "&lt;img src=//b.invalid/d&gt;" in body       # shown as the text it is
    assert "![a](http://b.invalid/c)" in body            # Markdown's image: its text, never a picture
    assert body.count('class="tp-chart"') == 1          # the chart (its title drawn as SVG text, escaped by Vega)
    assert "<script" not in drawing_of(body).lower()


def parsed(html: str) -> tuple[set[str], list[tuple[str, str | None]]]:
    """Every tag name and attribute a browser would build from `html`."""
    from html.parser import HTMLParser

    tags, attributes = set(), []

    class Reader(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.add(tag)
            attributes.extend(attrs)

    Reader().feed(html)
    return tags, attributes


def test_a_drawing_loses_anything_that_runs_or_fetches():
    dirty = ('<svg width="10" height="10"><script>x()</script><g onclick="x()"><image href="http://b.invalid/a"/>'
             '<image href="data:image/png;base64,AA"/><clipPath id="clip1"/><path clip-path="url(#clip1)"/></g>'
             '<foreignObject><div>x</div></foreignObject></svg>')
    clean = view_module._cleaned(dirty)
    assert "script" not in clean and "onclick" not in clean and "b.invalid" not in clean
    assert "foreignObject" not in clean and "data:image/png" in clean and "url(#clip1)" in clean


def test_veiled_sections_are_left_out_with_one_note_each():
    view = make_view("attention", "A", "Q?", [((), paper.Text("always")), (("result",), paper.Text("0.298 here")),
                                               (("result", "inner"), paper.Text("0.203 too")),
                                               ((), paper.Text("after"))])
    hidden = view.body(veiled=frozenset({"result"}))
    assert "0.298" not in hidden and "0.203" not in hidden and "always" in hidden and "after" in hidden
    assert hidden.count("Veiled until the reveal") == 1
    assert "0.298" in view.body() and "Veiled" not in view.body()
    inner = view.body(veiled=frozenset({"inner"}))         # a section inside another: veiled on its own
    assert "0.298" in inner and "0.203" not in inner


def test_a_view_over_the_limit_drops_its_largest_drawings_for_their_sentences(monkeypatch):
    small, big = bars([1, 2], "small"), bars(list(range(8)), "big", width=900)
    full = a_view(paper.Chart(small, "the small one"), paper.Chart(big, "the big one"))
    sizes = {chart_svg(small): "small", chart_svg(big): "big"}
    limit = len(full.to_json().encode()) - min(len(s) for s in sizes) // 2
    monkeypatch.setattr(limits, "CLASS_VIEW_MAX_BYTES", limit)
    cut = a_view(paper.Chart(small, "the small one"), paper.Chart(big, "the big one"))
    assert len(cut.to_json().encode()) <= limit and cut.charts == 1
    assert "the big one" in cut.body() and view_module.TOO_LARGE in cut.body()
    monkeypatch.setattr(limits, "CLASS_VIEW_MAX_BYTES", 400)
    tiny = a_view(paper.Text("x" * 2_000))
    assert len(tiny.to_json().encode()) <= 400 and view_module.TOO_LARGE in tiny.body()


def test_a_chart_that_cannot_be_drawn_leaves_its_sentence_and_charts_past_the_limit_too(monkeypatch):
    def refuse(spec):
        raise ValueError("too large")

    view = make_view("a", "A", "", [((), paper.Chart(bars([1]), "its sentence"))], draw=refuse)
    assert view.charts == 0 and "its sentence" in view.body()
    monkeypatch.setattr(limits, "CLASS_VIEW_MAX_CHARTS", 2)
    many = a_view(*[paper.Chart(bars([i, i + 1], f"chart {i}"), f"chart {i}") for i in range(4)])
    assert many.charts == 2 and many.body().count('class="tp-chart"') == 2 and "chart 3" in many.body()


def test_a_view_of_another_format_is_a_sentence():
    text = json.loads(a_view(paper.Text("x")).to_json())
    text["format"] = 99
    with pytest.raises(ValueError, match="another version"):
        ClassView.from_json(json.dumps(text))


# --- both stores ----------------------------------------------------------------------------------------------

def test_the_store_keeps_the_latest_view_and_moves_the_version(store):
    code, key = start(store)
    assert store.view(code) is None
    before = store.version(code)
    first = a_view(paper.Chart(bars([0.298, 0.203]), "w")).to_json()
    store.put_view(code, key, first)
    assert store.view(code) == first and store.version(code) == before + 1
    second = a_view(paper.Text("next"), title="Context").to_json()
    store.put_view(code, key, second)
    assert store.view(code) == second and store.version(code) == before + 2
    assert ClassView.from_json(store.view(code)).title == "Context"


def test_only_the_teacher_stores_a_view_and_never_one_over_the_limit(store):
    code, key = start(store)
    with pytest.raises(ValueError, match="Only the teacher"):
        store.put_view(code, "not-the-key", a_view(paper.Text("x")).to_json())
    with pytest.raises(ValueError, match=f"{limits.CLASS_VIEW_MAX_BYTES:,}"):
        store.put_view(code, key, "x" * (limits.CLASS_VIEW_MAX_BYTES + 1))
    with pytest.raises(ValueError):
        store.put_view(code, key, "")
    assert store.view(code) is None
    with pytest.raises(ValueError, match="No open class"):
        store.view("K7QM2XPA")
    store.end(code, key)
    with pytest.raises(ValueError, match="ended"):
        store.put_view(code, key, a_view(paper.Text("x")).to_json())


def test_the_view_maker_stores_beside_the_caller_and_not_twice_the_same(store):
    code, key = start(store)
    maker = ViewMaker()
    blocks = [((), paper.Chart(bars([0.298, 0.203]), "w")), ((), paper.Text("numbers"))]
    maker.submit(store, code, key, "attention?x=1", "Attention calculator", "Q?", blocks)
    assert maker.drain(60)
    stored = ClassView.from_json(store.view(code))
    assert stored.link == "attention?x=1" and stored.charts == 1
    version = store.version(code)
    maker.submit(store, code, key, "attention?x=1", "Attention calculator", "Q?", blocks)   # nothing changed
    assert maker.drain(60) and store.version(code) == version
    maker.submit(store, code, key, "", "Transformer Playground", "no view here", None)     # a page without a record
    assert maker.drain(60) and "no view here" in ClassView.from_json(store.view(code)).body()


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_view_that_cannot_be_made_says_so_in_the_teachers_language(store, monkeypatch, lang):
    from engine import i18n

    code, key = start(store)

    def broken(*args, **kwargs):
        raise RuntimeError("vl-convert fell over")

    monkeypatch.setattr(view_module, "make_view", broken)
    maker = ViewMaker()
    maker.submit(store, code, key, "attention", "Attention calculator", "Q?", [((), paper.Text("x"))], lang=lang)
    assert maker.drain(60) and maker.failures == 1
    stored = ClassView.from_json(store.view(code))
    with i18n.use(lang):
        sentence = i18n._("This page's class view could not be made: Explore from here to open the page itself.")
    assert stored.lang == lang and html.escape(sentence) in stored.body()
    assert f'dir="{i18n.LANGUAGES[lang].direction}"' in stored.body()


def test_a_view_is_made_in_the_teachers_language_and_its_veil_reads_in_the_followers():
    from engine import i18n

    blocks = [((), paper.Text("always")), (("result",), paper.Text("0.298 here"))]
    with i18n.use("es"):
        view = make_view("attention", "Calculadora", "¿Qué?", blocks)
        assert make_view("attention", "A", "", blocks, lang="ar").lang == "ar"
    again = ClassView.from_json(view.to_json())
    assert again.lang == "es" and again.parts == view.parts and again.title == view.title
    assert 'lang="es" dir="ltr"' in view.body()
    with i18n.use("ko"):                 # a Korean follower: the view's own words are the teacher's, the veil theirs
        hidden = view.body(veiled=frozenset({"result"}))
        veil = i18n._(view_module.VEILED_HEAD)
    assert veil != view_module.VEILED_HEAD and veil in hidden and "0.298" not in hidden
    assert ClassView.from_json(json.dumps(json.loads(view.to_json()) | {"lang": "xx"})).lang == i18n.SOURCE
