"""ui.diagrams: Graphviz's own layout on the server, the browser's where `dot` is missing."""
from __future__ import annotations

import shutil

import pytest

from ui import diagrams


def test_dot_lays_out_the_graph_as_svg():
    if shutil.which("dot") is None:
        pytest.skip("Debian's graphviz is not installed (apt-get install -y graphviz; .ci/run does)")
    svg = diagrams.dot_svg('digraph G { a [label="attention"]; a -> b [label=" residual"]; }')
    assert svg.startswith("<svg") and ">attention</text>" in svg and "> residual</text>" in svg


def test_without_dot_the_browser_draws_it(monkeypatch):
    monkeypatch.setattr(diagrams.shutil, "which", lambda name: None)
    diagrams.dot_svg.cache_clear()
    try:
        assert diagrams.dot_svg("digraph G { a -> b; }") is None
    finally:
        diagrams.dot_svg.cache_clear()
