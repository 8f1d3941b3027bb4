"""Graphviz diagrams drawn on the server when Debian's `dot` is installed, in the browser otherwise.

st.graphviz_chart lays the graph out in the browser (Graphviz compiled to WebAssembly): about half a
second on this machine for the block builder's diagram, on every rerun that changes it. `dot -Tsvg`
on the server takes a few tens of ms once per distinct graph (cached here), and the browser only
inserts the SVG. Without `dot` (a machine that installed only the Python packages) the page keeps
Streamlit's own chart: the same picture, slower.
"""
from __future__ import annotations

import base64
import functools
import html
import re
import shutil
import subprocess

import streamlit as st

DOT_TIMEOUT_S = 10            # a layout that takes longer is drawn by the browser instead
MAX_CACHED_DIAGRAMS = 128     # distinct graphs kept as SVG per process


@functools.lru_cache(maxsize=MAX_CACHED_DIAGRAMS)
def dot_svg(source: str) -> str | None:
    """The SVG of a DOT graph laid out by Graphviz's `dot`, sized to its box; None without `dot` or on
    a failure (the caller falls back to the browser)."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    try:
        done = subprocess.run([dot, "-Tsvg"], input=source, capture_output=True, text=True,
                              timeout=DOT_TIMEOUT_S, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    svg = done.stdout[done.stdout.find("<svg"):]
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S)


def show(source: str, alt: str) -> None:
    """Draw a DOT graph, `alt` its one-sentence description for a screen reader."""
    svg = dot_svg(source)
    if svg is None:
        st.graphviz_chart(source, width="stretch")
        return
    # an image of the SVG (st.html drops inline SVG): scaled to the column, named by `alt`
    data = base64.b64encode(svg.encode()).decode()
    st.html(f"<img class='dot-diagram' src='data:image/svg+xml;base64,{data}' alt='{html.escape(alt, quote=True)}' "
            "style='width: 100%; max-width: 100%; height: auto'>")
