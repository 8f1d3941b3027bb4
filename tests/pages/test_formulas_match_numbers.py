"""A teacher's review: each formula on screen gives the number printed beside it.

One test per item that was wrong on screen: the softmax formula names the scores it reads,
the multi-head parameter formula adds up to its 4d^2, head m's columns are numbered as the
heads are, and the Position page says "nothing moved" when every difference is rounding.
"""
from __future__ import annotations

import re

from tests.pages.conftest import no_exception

ATTENTION, MULTI_HEAD, POSITION = "views/attention_calculator.py", "views/multi_head.py", "views/position.py"


def latex(at) -> list[str]:
    """Every st.latex body, without the $$ ... $$ around it."""
    return [x.value.strip().removeprefix("$$").removesuffix("$$").strip() for x in at.get("latex")]


def softmax_formula(at) -> str:
    return next(x for x in latex(at) if x.startswith(r"\alpha_{ij}"))


def test_the_softmax_formula_names_the_scaled_scores_when_scaling_is_on(run_page):
    at = run_page(ATTENTION)
    no_exception(at)
    assert r"\exp(\tilde s_{ij})" in softmax_formula(at) and r"\exp(\tilde s_{ik})" in softmax_formula(at)
    at.toggle(key="attention.scaled").set_value(False).run()
    assert r"\exp(s_{ij})" in softmax_formula(at) and "tilde" not in softmax_formula(at)


def evaluate_parameter_formula(text: str, d: int, h: int) -> int:
    """Read the on-screen formula as arithmetic: each underbrace's body, with d and h put in."""
    bodies = re.findall(r"\\underbrace\{(.*?)\}_\{", text)
    assert len(bodies) == 2, text
    total = 0
    for body in bodies:
        expression = (body.replace(r"\times", "*").replace(r"\cdot", "*").replace(r"\tfrac{d}{h}", "(d/h)")
                      .replace(r"\,", " "))
        total += round(eval(expression, {}, {"d": d, "h": h}))  # noqa: S307 - our own formula text
    return total


def test_the_multi_head_parameter_formula_adds_up_to_the_number_beside_it(run_page):
    at = run_page(MULTI_HEAD)
    no_exception(at)
    d, h = int(at.number_input(key="multihead.cost_d").value), int(at.number_input(key="multihead.cost_h").value)
    formula = next(x for x in latex(at) if x.startswith(r"\text{params}"))
    printed = next(x for x in latex(at) if x.startswith("= 4d^2"))
    number = int(printed.rsplit("=", 1)[1].replace("{,}", "").strip())
    assert evaluate_parameter_formula(formula, d, h) == number == 4 * d * d == 2_359_296


def test_head_columns_are_numbered_like_the_heads(run_page):
    at = run_page(MULTI_HEAD)
    caption = next(c.value for c in at.caption if "columns" in c.value and "W^Q" in c.value)
    d_head = int(re.search(r"is \d+ x (\d+)", caption).group(1))
    # head m = 1 starts at column 0, head m = 2 at column d_head
    assert f"{d_head}(m - 1) .. {d_head}m - 1" in caption and "heads m = 1" in caption


def test_position_says_nothing_moved_when_every_difference_is_rounding(run_page):
    at = run_page(POSITION)
    no_exception(at)
    shown = " ".join(m.value for m in at.markdown)
    assert "No word's context moved" in shown and "moved most" not in shown
    at.radio(key="position.enc").set_value("sinusoidal").run()
    shown = " ".join(m.value for m in at.markdown)
    assert "moved most" in shown and "No word's context moved" not in shown
