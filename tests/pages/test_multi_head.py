"""The Multi-head page: each head's weights, shapes at every step, and the cost of h heads."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.shipped_heads import shipped_available

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "multi_head.py")


def run(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def check_code(at: AppTest) -> None:
    """The snippet runs as it stands and prints the output row its comment promises."""
    source = at.code[0].value
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "show-the-code", "exec"), {})
    claimed = np.array(eval(re.search(r"# (\[.*\])\s*$", source.strip()).group(1)))
    printed = np.array([float(v) for v in out.getvalue().split("\n")[-2].strip("[] ").split()])
    np.testing.assert_allclose(printed, claimed, atol=0.011)


def headings(at: AppTest) -> list[str]:
    return [s.value for s in at.subheader]


def test_defaults_two_hand_built_heads_and_gpt2_costs():
    at = run()
    assert not at.exception and not at.error
    assert "Each head's weights: 2 heads of width d/h = 4" in headings(at)
    assert "2,359,296" in at.latex[-1].value.replace("{,}", ",")
    check_code(at)


def test_more_heads_change_the_result():
    at = run()
    at.select_slider(key="multihead.h").set_value(4).run()
    assert not at.exception and not at.error
    assert "Each head's weights: 4 heads of width d/h = 2" in headings(at)
    at.radio(key="multihead.weights").set_value("random").run()
    assert not at.exception
    check_code(at)


def test_cost_challenge_many_narrow_heads_on_a_long_sequence():
    at = run(cost_T="100000", cost_d="64", cost_h="64")
    assert not at.exception and not at.error
    done = [m.value for m in at.markdown if "10% more FLOPs" in m.value]
    assert done and "Done" in done[0]


def test_a_link_beyond_the_widgets_falls_back_with_a_warning():
    at = run(gain="99", h="3")
    assert not at.exception
    assert at.slider(key="multihead.gain").value == 2.0 and at.select_slider(key="multihead.h").value == 2
    assert any("could not be read" in w.value for w in at.warning)


def test_bad_input_is_a_sentence_and_the_page_keeps_working():
    at = run()
    at.text_input(key="multihead.sentence").set_value("the zebra saw the owl").run()
    assert not at.exception and "no vector for: zebra" in at.error[0].value
    assert "What it costs: h heads of d/h against one head of width d" in headings(at)
    at.number_input(key="multihead.cost_d").set_value(10).run()
    at.number_input(key="multihead.cost_h").set_value(3).run()
    assert not at.exception
    assert any("cannot be split evenly" in e.value for e in at.error)


@pytest.mark.skipif(not shipped_available(), reason="the shipped checkpoint is not in assets/ yet")
def test_trained_heads_of_the_shipped_model():
    at = run(trained="1")
    assert not at.exception and not at.error
    assert any("character model trained on Shakespeare" in c.value for c in at.caption)
    at.select_slider(key="multihead.layer").set_value(2).run()
    assert not at.exception and not at.error
    at.text_input(key="multihead.line").set_value("To be? {}").run()
    assert not at.exception and "never saw" in at.error[0].value
