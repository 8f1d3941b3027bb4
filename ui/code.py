"""'Show the code': the few lines that produce the numbers on screen, runnable as they stand."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from engine.charts import handout as paper_handout
from engine.i18n import _
from engine.shown_code import Program
from ui import page, recording

_HIGHLIGHT = {"Python": "python", "R": "r", "Julia": "julia", "PyTorch": "python"}
NOTEBOOKS = "notebooks"   # one jupytext notebook per part of the chapter (a group of ui/path.py)
ROOT = Path(__file__).resolve().parents[1]   # the repository: the app runs from it


def notebook_of_part(part: str) -> str:
    """The notebook's name of a part: 'Language modelling' -> 'language_modelling'."""
    return "_".join(word for word in part.lower().replace("the ", "").split())


def notebook_of_page(file: str) -> str | None:
    """notebooks/<name>.py of the page in `file` (a path ending in views/<page>.py), or None."""
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


def show_code(snippets: dict[str, str | Program], *, name: str = "code", expanded: bool = False) -> None:
    """A folded expander (ui.page.folded: drawn only while open) with one tab per language: each program, what it
    prints under it where the engine says (engine.shown_code.Program), and the part's notebook to download.
    `name` tells a page's several code boxes apart."""
    programs = {language: snippet if isinstance(snippet, Program) else Program(snippet)
                for language, snippet in snippets.items()}
    if programs:   # the handout prints the code whether the box is open or not
        language, program = next(iter(programs.items()))
        recording.add(paper_handout.Code(program.source, language, tuple(programs)[1:]))
    box = page.folded(_("Show the code"), f"code.{name}", icon=":material/code:", expanded=expanded)
    if not box.open:
        return
    with box:
        tabs = st.tabs(list(programs))
        for tab, (language, program) in zip(tabs, programs.items()):
            with tab:
                st.code(program.source, language=_HIGHLIGHT.get(language, "python"))
                show_printout(program)
        notebook = notebook_of_page(_page_file())
        if notebook:
            notebook_download(notebook, name)


def show_printout(program: Program) -> None:
    """What the program prints, under it (worked out once per program text and cached), or why it is not shown."""
    if program.printout is None:
        if program.why:
            st.caption(program.why)
        return
    text = page.run_engine(_printout, program.source, program.key, program.printout)
    if text is not None:
        st.caption(_("What it prints:"))
        # st.code drops one line break at each end: the print's last, and one more put in front of a printout
        # that starts with a line break, so that it keeps its own
        st.code(("\n" + text if text.startswith("\n") else text) or " ", language=None)


@st.cache_data(max_entries=256, show_spinner="Working out what the code prints ...")
def _printout(source: str, key: str, _compute) -> str:
    """A program's printout, cached by its text (and `key`: data a program reads from a file the page was given,
    an upload, which its text does not show): the printout is a function of them."""
    return _compute()


def notebook_download(notebook: str, name: str) -> None:
    """The part's notebook as a Jupyter file to download (built from notebooks/<part>.py with jupytext on the first
    click, then cached): a student on the web has no copy of the repository."""
    file_name = Path(notebook).with_suffix(".ipynb").name
    st.download_button(_("Download the notebook {file_name}", file_name=file_name), lambda: notebook_file(notebook),
                       file_name=file_name, mime="application/x-ipynb+json", icon=":material/download:",
                       key=f"notebook.{name}", on_click="ignore")
    st.caption(_("The whole part of the chapter, redone step by step with the app's engine, for Jupyter or Colab. "
                 "It imports the engine, so it runs where the engine is installed (the README's 'From a notebook': "
                 "`pip install` the repository or its wheel, and the data packages)."))


@st.cache_data(max_entries=8, show_spinner=False)   # one per part of the chapter
def notebook_file(notebook: str) -> bytes:
    """notebooks/<part>.py (jupytext's percent format) as an .ipynb file's bytes."""
    import jupytext

    return jupytext.writes(jupytext.read(ROOT / notebook), fmt="ipynb").encode("utf-8")
