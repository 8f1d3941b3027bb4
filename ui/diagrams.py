"""Diagrams the engine lays out as SVG (engine.charts.diagrams), drawn as an image scaled to the column.

The page only inserts the picture: no layout in the browser (Streamlit's graphviz chart lays a graph out
with Graphviz compiled to WebAssembly, about 0.7 s per change here) and no program on the server.
"""
from __future__ import annotations

import base64
import html

import streamlit as st


def show(svg: str, alt: str) -> None:
    """Draw an SVG document, `alt` its one-sentence description for a screen reader."""
    # an image of the SVG (st.html drops inline SVG): scaled to the column, named by `alt`
    data = base64.b64encode(svg.encode()).decode()
    st.html(f"<img class='diagram' src='data:image/svg+xml;base64,{data}' "
            f"alt='{html.escape(alt, quote=True)}' style='width: 100%; max-width: 100%; height: auto'>")
