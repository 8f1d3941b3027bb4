"""'Show the code': the few lines that produce the numbers on screen, runnable as they stand."""
from __future__ import annotations

import streamlit as st

from engine.charts import handout as paper_handout
from ui import handout, page

_HIGHLIGHT = {"Python": "python", "R": "r", "Julia": "julia", "PyTorch": "python"}
NOTEBOOKS = "notebooks"   # one jupytext notebook per part of the chapter (a group of ui/path.py)


def notebook_of_part(part: str) -> str:
    """The notebook's name of a part: 'Language modelling' -> 'language_modelling'."""
    return "_".join(word for word in part.lower().replace("the ", "").split())


def notebook_of_page(file: str) -> str | None:
    """notebooks/<name>.py of the page in `file` (a path ending in views/<page>.py), or None."""
    from pathlib import Path

    from ui.path import PATH

    for part, ideas in PATH.items():
        if any(Path(idea.file).name == Path(file).name for idea in ideas):
            return f"{NOTEBOOKS}/{notebook_of_part(part)}.py"
    return None


def _page_file() -> str:
    """The file of the page drawing the code box: the nearest caller in views/ ('' without one)."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if "/views/" in frame.f_code.co_filename.replace("\\", "/"):
            return frame.f_code.co_filename
        frame = frame.f_back
    return ""


def show_code(snippets: dict[str, str], *, name: str = "code", expanded: bool = False) -> None:
    """A folded expander (ui.page.folded: drawn only while open) with one tab per language. `name`
    tells a page's several code boxes apart."""
    if snippets:   # the handout prints the code whether the box is open or not
        language, source = next(iter(snippets.items()))
        handout.add(paper_handout.Code(source, language, tuple(snippets)[1:]))
    box = page.folded("Show the code", f"code.{name}", icon=":material/code:", expanded=expanded)
    if not box.open:
        return
    with box:
        notebook = notebook_of_page(_page_file())
        if notebook:
            st.caption(f"The whole part of the chapter, redone step by step: the notebook `{notebook}` in the "
                       "repository (jupytext; open it in Jupyter).")
        tabs = st.tabs(list(snippets))
        for tab, (language, source) in zip(tabs, snippets.items()):
            with tab:
                st.code(source, language=_HIGHLIGHT.get(language, "python"))
