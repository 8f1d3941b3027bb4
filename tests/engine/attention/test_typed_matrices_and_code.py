"""Typed matrices and the generated 'show the code' programs."""
from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from engine import limits
from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention
from engine.attention.code import attention_code, python_code, r_code
from engine.attention.typed_matrices import format_matrix, parse_matrix


def test_parse_labels_and_numbers():
    labels, x = parse_matrix("crane: 0.8, 0.1, 0.4\nby: 0 1 .1\n\n")
    assert labels == ["crane", "by"]
    assert x.tolist() == [[0.8, 0.1, 0.4], [0.0, 1.0, 0.1]]


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("   \n  ", "empty"),
    ("a: 1 x", "'x' is not a number"),
    ("1 2\n3", "same number of entries"),
    ("1 nan", "finite"), ("1 inf", "finite"),
    ("1e9", "keep entries within"),
    ("label:", "no numbers"),
    ("\n".join(["1"] * (limits.MAX_TOKENS + 1)), "rows"),
    (" ".join(["1"] * (limits.MAX_DIM + 1)), "columns"),
    ("1 " * 20_000, "characters long"),
    ("x" * 40 + ": 1", "longer than"),
])
def test_bad_text_is_a_sentence(text, message):
    with pytest.raises(ValueError, match=message):
        parse_matrix(text)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)),
              elements=st.floats(-100, 100, allow_nan=False).map(lambda v: round(v, 3))))
def test_format_then_parse_round_trips(x):
    labels = [f"t{i}" for i in range(len(x))]
    parsed_labels, parsed = parse_matrix(format_matrix(x, labels))
    assert parsed_labels == labels
    assert np.allclose(parsed, x, atol=1e-3)


def run_python(source: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, check=True).stdout.split("\n")


def test_python_code_prints_the_chapter_numbers():
    out = run_python(python_code(CHAPTER_X, CHAPTER_TOKENS))
    assert out[0] == "[0.298 0.203 0.206 0.293]"
    assert out[1] == "[0.464 0.476 0.286]"


def test_python_code_with_projections_and_mask_matches_the_engine():
    rng = np.random.default_rng(3)
    W = {name: np.round(rng.normal(size=(3, 3)), 2) for name in ("W_q", "W_k", "W_v")}
    source = python_code(CHAPTER_X, CHAPTER_TOKENS, **W, scale=False, causal=True, query=2)
    result = self_attention(CHAPTER_X, W["W_q"], W["W_k"], W["W_v"], scale=False, causal=True)
    out = run_python(source)
    assert out[0] == str(np.round(result.weights[2], 3))
    assert out[1] == str(np.round(result.context[2], 3))


def test_three_languages_carry_the_same_matrix():
    code = attention_code(CHAPTER_X, CHAPTER_TOKENS)
    assert set(code) == {"Python", "R", "Julia"}
    for source in (code["Python"].source, code["R"], code["Julia"]):
        assert "0.8" in source and "lake" in source
    assert code["Python"].printout().split("\n") == run_python(code["Python"].source)   # as the page shows it
    assert "sqrt(ncol(keys))" in code["R"] and "sqrt(size(keys, 2))" in code["Julia"]


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed (apt-get install r-base-core)")
@pytest.mark.parametrize("settings", [{}, {"W_q": np.eye(3) * 2, "causal": True, "scale": False, "query": 2}])
def test_r_code_prints_the_engine_numbers(settings):
    result = self_attention(CHAPTER_X, settings.get("W_q"), causal=settings.get("causal", False),
                            scale=settings.get("scale", True))
    q = settings.get("query", 0)
    out = subprocess.run(["Rscript", "-e", r_code(CHAPTER_X, CHAPTER_TOKENS, **settings)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [float(v) for v in out[0].split()[1:]] == np.round(result.weights[q], 3).tolist()
    assert [float(v) for v in out[1].split()[1:]] == np.round(result.context[q], 3).tolist()
