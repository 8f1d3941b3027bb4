"""bench.browser's reference pages (the trivial page, Streamlit's floor) draw what their links ask for,
and each FLOOR link asks for a distinct page (no browser here: AppTest)."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from streamlit.testing.v1 import AppTest

from bench.browser import CHANGES, FLOOR

BENCH = Path(__file__).resolve().parents[1] / "bench"


def run(script: str, query: str = "") -> AppTest:
    at = AppTest.from_file(str(BENCH / script), default_timeout=30)
    at.query_params.update(dict(parse_qsl(query.lstrip("?"))))
    return at.run()


@pytest.mark.parametrize("query", list(FLOOR.values()))
def test_every_floor_section_draws_what_its_link_names(query):
    at = run("floor_page.py", query)
    asked = dict(parse_qsl(query.lstrip("?")))
    assert not at.exception
    assert at.toggle[0].label == CHANGES[""][1]               # changed as the trivial page's switch
    assert len(at.subheader) == int(asked.get("static", 0))
    assert len(at.latex) == int(asked.get("static", 0)) + 2 * int(asked.get("formulas", 0))
    assert len(at.table) == int(asked.get("table", 0))
    assert len(at.get("vega_lite_chart")) == int(asked.get("chart", 0))
    if asked.get("image"):
        assert "<img alt=" in at.get("html")[0].proto.body


def test_the_switch_changes_every_number_in_the_section():
    at = run("floor_page.py", FLOOR["heatmap + two formulas + table"])
    before = ([x.value for x in at.latex], at.table[0].value.to_dict())
    at.toggle[0].set_value(True).run()
    assert ([x.value for x in at.latex], at.table[0].value.to_dict()) != before


def test_floor_links_are_distinct_and_the_page_clamps_its_static_blocks():
    assert len(set(FLOOR.values())) == len(FLOOR)
    at = run("floor_page.py", "?static=9999&chart=x")
    assert not at.exception and len(at.subheader) == 40 and not at.get("vega_lite_chart")


def test_the_trivial_page_has_its_three_widgets():
    at = run("trivial_page.py")
    assert not at.exception and (len(at.toggle), len(at.slider), len(at.selectbox)) == (1, 1, 1)
