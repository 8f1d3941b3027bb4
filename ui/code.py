"""'Show the code': the few lines that produce the numbers on screen, runnable as they stand."""
from __future__ import annotations

import streamlit as st

_HIGHLIGHT = {"Python": "python", "R": "r", "Julia": "julia", "PyTorch": "python"}


def show_code(snippets: dict[str, str], *, expanded: bool = False) -> None:
    """An expander with one tab per language."""
    with st.expander("Show the code", icon=":material/code:", expanded=expanded):
        tabs = st.tabs(list(snippets))
        for tab, (language, source) in zip(tabs, snippets.items()):
            with tab:
                st.code(source, language=_HIGHLIGHT.get(language, "python"))
