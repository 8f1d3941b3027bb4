"""The room's two screens, measured in Chromium on the session's tour of every page (tests/e2e/tour.py):

- a phone (390 px): no chart's drawing is wider than its place (a chart wider than the screen scrolled sideways
  inside its box, hiding the SmolLM2 panel, head 2, the france -> paris arrow), no chart text under 11 px, no formula
  shrunk under 11 px (the calculator's steps were 7-8 px), the home page's descriptions wrap rather than being cut;
- a projector (1920 px, ?present=1): the attention calculator's heatmap takes at least 40 % of the main column (it
  took 23 %) with its numbers at 24 px, and the home page's descriptions wrap.

The charts are fitted to their place by engine.charts.fitting from the width the browser reports (ui.screen);
`python -m bench.chart_widths` prints every chart's width against its place.
"""
from __future__ import annotations

from engine.charts.style import MIN_TEXT_SIZE, PROJECTOR_TEXT_SIZE
from tests.e2e.tour import VIEWS

SLACK = 1           # px
PROJECTOR_SHARE = 0.4


def test_no_chart_is_wider_than_its_place_on_a_phone(tour):
    problems = []
    visits = tour.at("phone")
    assert visits
    for visit in visits:
        url = visit.path or "home"
        if visit.broke or visit.places is None:
            problems.append(f"/{url}: not measured ({visit.broke})")
            continue
        for number, chart in enumerate(visit.places["charts"], start=1):
            name = f"/{url} chart {number} ({chart['title'][:60]!r})"
            if not chart["drawn"]:
                problems.append(f"{name} was not drawn")
            elif chart["drawn"] > chart["place"] + SLACK or chart["scrolls"] > SLACK:
                problems.append(f"{name} is {chart['drawn']:.0f} px wide in a {chart['place']:.0f} px place")
            if chart["smallest"] is not None and chart["smallest"] < MIN_TEXT_SIZE - 0.01:
                problems.append(f"{name} draws text at {chart['smallest']:.1f} px")
        formula = visit.places["formula"]
        if formula is not None and formula < MIN_TEXT_SIZE - 0.01:
            problems.append(f"/{url}: a formula is drawn at {formula:.1f} px")
    assert not problems, f"at {VIEWS['phone'][0]} px:\n  " + "\n  ".join(problems)


def test_the_calculators_heatmap_fills_a_projectors_column_and_reads_from_afar(tour):
    """The tour's projector visit of the attention page: its first chart is the weights heatmap."""
    visit = tour.visits[("projector", "attention")]
    assert not visit.broke and visit.places, visit.broke
    heatmap = visit.places["charts"][0]
    assert heatmap["title"].startswith("α"), heatmap["title"]
    share = heatmap["drawn"] / visit.places["column"]
    assert share >= PROJECTOR_SHARE, f"the heatmap takes {share:.0%} of the {visit.places['column']:.0f} px column"
    assert heatmap["numbers"] >= PROJECTOR_TEXT_SIZE


def test_a_phone_shows_every_widget_with_the_value_a_desktop_shows(tour):
    """A phone's first page reruns once when its browser reports the width (ui.screen): a rerun asked for while the
    page's script ran stopped it before its widgets were drawn, and they came back empty (the calculator's X, its
    sliders at their minimum) while the charts showed the defaults."""
    problems = []
    for visit in tour.at("phone"):
        desktop = tour.visits[("desktop", visit.path)]
        if visit.places is None or desktop.places is None:
            problems.append(f"/{visit.path}: not measured ({visit.broke or desktop.broke})")
        elif visit.places["widgets"] != desktop.places["widgets"]:
            problems.append(f"/{visit.path}: {visit.places['widgets']} at 390 px, {desktop.places['widgets']} at 1400")
    assert not problems, "\n  ".join(problems)


def test_the_home_pages_descriptions_wrap_on_a_phone_and_a_projector(tour):
    for view in ("phone", "projector"):
        visit = tour.visits[(view, "")]
        assert not visit.broke and visit.places, visit.broke
        assert not visit.places["links_cut"], f"at {VIEWS[view][0]} px: cut {visit.places['links_cut']}"
