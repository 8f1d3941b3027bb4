"""A slider of decimals prints its numbers as the page's text does: a point in English, a comma in Spanish (it was
"0.80" on Spanish pages beside "0,80" in their sentences), and returns the same float in both."""
from __future__ import annotations

from tests.pages.conftest import run_file

PAGE = "views/position.py"


def test_english_keeps_streamlits_slider_with_a_point():
    at = run_file(PAGE)
    assert at.slider(key="position.strength").value == 1.0
    assert not at.get("select_slider")


def test_spanish_offers_the_same_values_with_a_comma_and_reads_back_a_float():
    at = run_file(PAGE, {"lang": "es", "strength": "0.35"})
    chosen = at.get("select_slider")[0]
    assert chosen.options[:3] == ["0,00", "0,05", "0,10"] and chosen.options[-1] == "2,00"
    assert chosen.value == 0.35
    at = chosen.set_value(1.25).run()
    assert not at.exception
    assert at.session_state["position.strength"] == 1.25
    assert at.run().get("select_slider")[0].value == 1.25     # the whole page again (the change reran a section)


def test_a_link_value_off_the_grid_is_read_as_the_nearest_on_it():
    at = run_file(PAGE, {"lang": "es", "strength": "0.33"})
    assert not at.exception
    assert at.get("select_slider")[0].value == 0.35
