"""A page's handout: the sidebar's "Take this page home (PDF)" box turns the record of what the page showed
(ui.recording, where the house's helpers add their blocks in page order) into a PDF (engine.charts.handout) only
when asked. No page writes a handout by hand.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import streamlit as st

from engine import i18n
from engine.charts import handout as paper_handout
from engine.i18n import _
from ui import charts, page
from ui.recording import RECORD, Record, record
from ui.tables import unescaped

__all__ = ["RECORD", "Record", "control", "description", "for_paper", "make", "file_name"]

MADE = "_handout_made"       # session key: (record's change count, paper, PDF bytes) of the last handout made


def for_paper(block):
    """A recorded block as the engine draws it off the page: a chart with its rows back from Arrow, a table's cells
    as typed (not as escaped for Markdown). The handout and the class view (ui.classroom) read blocks so."""
    if isinstance(block, paper_handout.Chart):
        return paper_handout.Chart(charts.plain(block.spec), block.summary)
    if isinstance(block, paper_handout.Table):
        rows = tuple(tuple(unescaped(cell) for cell in row) for row in block.rows)
        return paper_handout.Table(block.columns, rows)
    return block


def description(kept: Record, link: str | None) -> paper_handout.Handout:
    """The record as the engine's typed handout (charts with their rows back from Arrow)."""
    blocks = tuple(for_paper(block) for block in kept.blocks())
    return paper_handout.Handout(kept.title, kept.question, link or "", blocks)


def with_language(link: str | None) -> str | None:
    """The link as the handout's QR code opens it: in the reader's language (?lang=), also where the language came
    from the browser rather than the link, so that whoever scans it reads the handout's language."""
    from ui.url_state import LANG_PARAM

    if not link or i18n.is_source():
        return link
    parts = urlsplit(link)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    if query.get(LANG_PARAM) == i18n.current().code:
        return link
    query[LANG_PARAM] = i18n.current().code
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def make(kept: Record, link: str | None, paper: str) -> bytes:
    """The handout's PDF, in the reader's language (the engine's words and the fonts for its script), its QR code
    keeping the language; ValueError (a sentence) where it cannot be made."""
    return paper_handout.handout_pdf(description(kept, with_language(link)), paper)


def file_name(title: str, paper: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words + ["handout", paper.lower()]) + ".pdf"


def control(link: str | None) -> None:
    """The sidebar's folded "Take this page home (PDF)" box: the paper, a button that makes the handout (the
    PDF is made on the server then, never on a rerun), and its download. A failure is a sentence; the page stays."""
    kept = record()
    if kept is None or not kept.title or not charts.downloads_offered():
        return
    box = page.folded(_("Take this page home (PDF)"), "app.handout", icon=":material/picture_as_pdf:")
    if not box.open:
        return
    with box:
        st.caption(_("A handout of this view: its question, charts, numbers beside their formulas, code, challenges "
                     "and the QR code of this exact link. Printable in black and white."))
        paper = st.radio(_("Paper"), paper_handout.PAPERS, horizontal=True, key="app.handout.paper")
        if st.button(_("Make the handout"), icon=":material/print:", key="app.handout.make", width="stretch"):
            st.session_state.pop(MADE, None)
            try:
                made = page.run_engine(make, kept, link, paper)
            except Exception:   # a failed handout never breaks the page
                st.error(_("The handout could not be made for this view; the page itself is unchanged."),
                         icon=":material/error:")
                made = None
            if made is not None:
                st.session_state[MADE] = (kept.changes, paper, made)
        done = st.session_state.get(MADE)
        if done and done[0] == kept.changes and done[1] == paper:
            st.download_button(_("Download the handout ({paper}, PDF)", paper=paper), done[2],
                               file_name=file_name(kept.title, paper),
                               mime="application/pdf", key="app.handout.download", on_click="ignore",
                               icon=":material/download:", width="stretch")
