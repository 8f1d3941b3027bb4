"""What a page shows, recorded while it runs, for its handout: the house's helpers (ui.page.header and
ui.page.section, ui.charts.show, ui.formula.formula_with_numbers, ui.tables.table, ui.code.show_code,
ui.challenges.try_this) add their blocks here in page order; ui.handout turns the record into a PDF when asked.
No page writes a handout by hand, and this module imports nothing of ui: every helper can stand on it.

Sections (ui.page.section) rerun alone: each keeps its own list of blocks, replaced when it reruns, so the record
always holds what the browser shows. A whole run of a page starts the record anew at its header; app.py closes it
after the page (the class panel and the sidebar that follow are not the page's).
"""
from __future__ import annotations

import contextlib
import contextvars

import streamlit as st

RECORD = "_handout_record"   # session key: the current page's record
_SECTION: contextvars.ContextVar[str | None] = contextvars.ContextVar("handout_section", default=None)


class Record:
    """What the current page showed: its title and question, and its blocks in page order (a section's blocks
    stand in `sections`, at the place of its name in `body`)."""

    def __init__(self) -> None:
        self.title = ""
        self.question = ""
        self.body: list = []
        self.sections: dict[str, list] = {}
        self.run: object = None     # the script run that began it (Streamlit's per-run cursors: a new dict each run)
        self.open = False
        self.changes = 0            # counts every restart of the record or of a section (a made PDF is then stale)

    def blocks(self, items: list | None = None) -> list:
        out = []
        for item in self.body if items is None else items:
            out.extend(self.blocks(self.sections.get(item.key, [])) if isinstance(item, _Slot) else [item])
        return out

    def tagged(self, items: list | None = None, within: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
        """The blocks in page order, each with the sections it stands in (outermost first): the class view
        (engine.classroom.view) leaves out what a class's open question veils."""
        out = []
        for item in self.body if items is None else items:
            if isinstance(item, _Slot):
                out.extend(self.tagged(self.sections.get(item.key, []), within + (item.key,)))
            else:
                out.append((within, item))
        return out


class _Slot:
    def __init__(self, key: str) -> None:
        self.key = key


def _run() -> tuple[object, bool]:
    """(a marker of the script run in progress, whether it is a whole run rather than sections alone);
    (None, False) outside a Streamlit run."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:   # another Streamlit: no handout, the page is untouched
        return None, False
    if ctx is None:
        return None, False
    return ctx.cursors, not ctx.fragment_ids_this_run


def record() -> Record | None:
    try:
        kept = st.session_state.get(RECORD)
        if not isinstance(kept, Record):
            kept = st.session_state[RECORD] = Record()
        return kept
    except Exception:   # no session (a bare script)
        return None


def begin(title: str, question: str) -> None:
    """A page's header: a whole run starts its record anew."""
    marker, whole = _run()
    kept = record()
    if kept is None or marker is None or not whole:
        return
    kept.title, kept.question, kept.body, kept.sections = title, question, [], {}
    kept.run, kept.open = marker, True
    kept.changes += 1


def finish() -> None:
    """After the page (app.py): nothing more of this run is the page's; a run that drew no page header (the home
    page) leaves no record, so the sidebar offers no handout of the page before."""
    marker, whole = _run()
    kept = record()
    if kept is None or not whole:
        return
    if kept.run is not marker:
        kept.title = ""
    kept.open = False


@contextlib.contextmanager
def section(key: str):
    """Around a section's body (ui.page.section): its blocks go to its own list, emptied each time it runs."""
    marker, whole = _run()
    kept = record()
    if kept is not None and marker is not None:
        if whole and kept.open and kept.run is marker:
            outer = _SECTION.get()   # a section inside another one stands in that one's list
            (kept.sections[outer] if outer in kept.sections else kept.body).append(_Slot(key))
            kept.sections[key] = []
        elif not whole and key in kept.sections:
            kept.sections[key] = []
            kept.changes += 1
    token = _SECTION.set(key)
    try:
        yield
    finally:
        _SECTION.reset(token)


def add(block) -> None:
    """Record one block (an engine.charts.handout block) where the page is drawing now."""
    marker, whole = _run()
    if marker is None:
        return
    kept = record()
    if kept is None:
        return
    key = _SECTION.get()
    if whole:
        if kept.open and kept.run is marker:
            (kept.sections[key] if key in kept.sections else kept.body).append(block)
    elif key is not None and key in kept.sections:
        kept.sections[key].append(block)
