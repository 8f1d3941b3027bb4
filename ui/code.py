"""'Show the code': the few lines that produce the numbers on screen, runnable as they stand."""
from __future__ import annotations

import streamlit as st

from ui import page

_HIGHLIGHT = {"Python": "python", "R": "r", "Julia": "julia", "PyTorch": "python"}


def show_code(snippets: dict[str, str], *, name: str = "code", expanded: bool = False) -> None:
    """A folded expander (ui.page.folded: drawn only while open) with one tab per language. `name`
    tells a page's several code boxes apart."""
    box = page.folded("Show the code", f"code.{name}", icon=":material/code:", expanded=expanded)
    if not box.open:
        return
    with box:
        tabs = st.tabs(list(snippets))
        for tab, (language, source) in zip(tabs, snippets.items()):
            with tab:
                st.code(source, language=_HIGHLIGHT.get(language, "python"))
