"""Take a tab home, as the Streamlit app's "Download" boxes and "Take this page home (PDF)" do: every chart the tab
shows as SVG, PNG and its numbers as CSV (engine.charts.export), and a PDF handout of the tab
(engine.charts.handout.handout_pdf, the function the Streamlit pages use) with its question, its charts and their
sentences, its sentences and its tables, and the QR code of the Space's address.

Made from what the tab shows now (its charts, tables and sentences are this box's inputs), only when a button is
clicked: a tab's own answers cost nothing more. A chart or handout that cannot be made is a sentence; the tab's
results stay as they were.
"""
from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
import time
from pathlib import Path

import gradio as gr
import numpy as np

from engine.charts import export, text
from engine.charts import handout as paper_handout
from engine import i18n, numbers
from engine.charts.plain_formula import plain
from engine.i18n import N_, _, ngettext
from gradio_tabs.common import ERROR_TITLE, LANG_PARAM, cell, column_texts, engine_call, kept, language_of, refuse, say

from ui.path import Idea

LINK_NOTE = N_("Open the Space again: scan the code, or type the address below (a tab's settings are not in its "
               "address; set them as printed here).")


def _shown(block) -> list:
    """The tab's charts, tables and sentences, in the order the tab lays them out (rows and columns unpacked)."""
    found = []
    for child in getattr(block, "children", None) or []:
        if isinstance(child, (gr.Plot, gr.Dataframe, gr.Markdown)):
            found.append(child)
        else:
            found += _shown(child)
    return found


def _spec(value) -> dict | None:
    """An engine chart as the tab drew it (gr.Plot's value: the Vega-Lite spec as JSON), or None."""
    plot = getattr(value, "plot", None) if not isinstance(value, dict) else value.get("plot")
    if not plot:
        return None
    try:
        spec = json.loads(plot)
    except (TypeError, ValueError):
        return None
    return spec if isinstance(spec, dict) else None


def _cell(value, shown: str | None = None) -> str:
    """A table cell as paper prints it: a number as the tab shows it (`shown`, gradio_tabs.common.column_texts; else
    with thousands separators, or to 4 significant digits), in the reader's signs; nan and nothing as an empty cell;
    the tab's inline LaTeX ($...$) as plain lines."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, (float, np.floating)) and math.isnan(value):
        return ""
    if isinstance(value, (int, np.integer, float, np.floating)):
        return shown if shown is not None else cell(value) if isinstance(value, (int, np.integer)) \
            else numbers.localized(f"{float(value):.4g}")
    return re.sub(r"\$(.+?)\$", lambda found: " ".join(plain(found.group(1))), str(value))


def _table(frame) -> paper_handout.Table | None:
    """A gr.Dataframe's value (a pandas DataFrame) as the handout's table, cells as the tab shows them (each float
    column with the decimals it was rounded to: 0.190 beside 0.298)."""
    if frame is None or not hasattr(frame, "columns") or frame.empty:
        return None
    columns = [frame.iloc[:, i].tolist() for i in range(frame.shape[1])]
    texts = [column_texts(values) for values in columns]
    rows = tuple(tuple(_cell(values[r], shown[r]) for values, shown in zip(columns, texts))
                 for r in range(frame.shape[0]))
    return paper_handout.Table(tuple(str(column) for column in frame.columns), rows)


def description(idea: Idea, link: str, values: list) -> paper_handout.Handout:
    """The tab as the engine's typed handout: its question (the first '### ' line), then its charts (each with the
    same one-sentence summary the Streamlit page prints under it), tables and sentences in the tab's order."""
    question, blocks = "", []
    for value in values:
        spec = _spec(value)
        if spec is not None:
            blocks.append(paper_handout.Chart(spec, text.summary(spec)))
        elif isinstance(value, str):
            lines = [line.strip() for line in value.strip().splitlines() if line.strip()]
            if not lines:
                continue
            if lines[0].startswith("### ") and not question:
                question = lines[0][4:]
                blocks += [paper_handout.Text(line) for line in lines[1:]]
            elif lines[0].startswith("#"):
                blocks.append(paper_handout.Text(lines[0].lstrip("#").strip(), heading=True))
                blocks += [paper_handout.Text(line) for line in lines[1:]]
            else:
                blocks.append(paper_handout.Text(" ".join(lines)))
        else:
            table = _table(value)
            if table is not None:
                blocks.append(table)
    return paper_handout.Handout(_(idea.title), question, link, tuple(blocks), link_note=_(LINK_NOTE))


def _link(request: gr.Request | None) -> str:
    """The Space's address as the browser sees it (the QR code opens it)."""
    if request is None:
        return ""
    origin = request.headers.get("origin") if request.headers else None
    link = (origin.rstrip("/") + "/") if origin else str(getattr(request, "base_url", "") or "")
    language = language_of(request)     # the QR code opens the Space in the handout's language
    return link if not link or language == i18n.SOURCE else f"{link}?{LANG_PARAM}={language}"


KEEP_S = 15 * 60   # a click's files stay this long (Gradio serves its own copies); older folders go on the next click
_FILES: list[Path] = []   # this process's folder of take-home files, made on the first click


def _folder() -> Path:
    """A fresh folder for one click's files (two students' files of the same name never meet), under this process's
    own folder, whose folders older than KEEP_S are removed first."""
    if not _FILES:
        _FILES.append(Path(tempfile.mkdtemp(prefix="playground-take-home-")))
    now = time.time()
    for old in _FILES[0].iterdir():
        try:
            if now - old.stat().st_mtime > KEEP_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:   # another click removed it first
            pass
    return Path(tempfile.mkdtemp(dir=_FILES[0]))


def handout_file(idea: Idea, paper: str, values: list, request: gr.Request | None = None) -> str:
    """The handout's PDF, written where Gradio serves it from; a ValueError (past the handout's limits) is its
    sentence, any other failure one sentence too."""
    if paper not in paper_handout.PAPERS:
        refuse(_("A handout is printed on A4 or Letter paper, not {paper}.", paper=repr(paper)))
    described = description(idea, _link(request), values)
    try:
        pdf = engine_call(paper_handout.handout_pdf, described, paper)
    except gr.Error:
        raise
    except Exception:   # a failed handout never breaks the tab
        raise gr.Error(_("The handout could not be made for this view; the tab itself is unchanged."),
                       title=_(ERROR_TITLE)) from None
    words = [part for part in "".join(c if c.isalnum() else " " for c in idea.title.lower()).split()]
    path = _folder() / ("-".join(words + ["handout", paper.lower()]) + ".pdf")
    path.write_bytes(pdf)
    return str(path)


def chart_files(values: list) -> tuple[list[str], str]:
    """Every chart of the tab as SVG, PNG and (where it has numbers) CSV files, and a sentence for each chart that
    could not be drawn (too large): the others are still made."""
    folder, files, notes = _folder(), [], []
    charts = [spec for spec in map(_spec, values) if spec is not None]
    if not charts:
        return [], _("This view shows no chart to download yet.")
    used: set[str] = set()
    for spec in charts:
        stem = export.file_stem({"description": text.summary(spec), **spec})   # untitled: its sentence names it
        name, number = stem, 2
        while name in used:
            name, number = f"{stem}-{number}", number + 1
        used.add(name)
        kinds = [("svg", export.svg), ("png", export.png)]
        if text.table(spec, limit=0)[0]:
            kinds.append(("csv", lambda s: export.csv_text(s).encode("utf-8")))
        try:
            made = [(suffix, make(spec)) for suffix, make in kinds]
        except ValueError as error:
            notes.append(f"'{text.title(spec) or name}': {error}")
            continue
        except Exception:   # a failed export never breaks the tab
            notes.append(_("'{chart}' could not be made for this view; the tab itself is unchanged.",
                           chart=text.title(spec) or name))
            continue
        for suffix, content in made:
            path = folder / f"{name}.{suffix}"
            path.write_bytes(content)
            files.append(str(path))
    return files, " ".join(notes) or ngettext("{n} chart: SVG, PNG and CSV.", "{n} charts: SVG, PNG and CSV.",
                                              len(charts))


def take_home_box(idea: Idea, tab) -> None:
    """A folded box at the foot of the tab: the paper, the handout's button and file, the charts' button and files.
    Its inputs are the charts, tables and sentences the tab built before it."""
    shown = _shown(tab)
    with gr.Accordion(say("Take this tab home: charts as SVG and PNG, a handout as PDF"), open=False):
        with gr.Row():
            paper = gr.Radio([(kept(size), size) for size in paper_handout.PAPERS], value="A4", label=say("Paper"))
            make = gr.Button(say("Make the handout (PDF)"))
            draw = gr.Button(say("Download the charts (SVG, PNG, CSV)"))
        note = gr.Markdown(label=say("note"))
        with gr.Row():
            handout = gr.File(label=say("Handout"), interactive=False)
            charts = gr.File(label=say("Charts"), file_count="multiple", interactive=False)

    # a set of inputs gives the function one dict {component: value}; read back in the tab's order
    def made_handout(given: dict, request: gr.Request):
        return handout_file(idea, given[paper], [given[component] for component in shown], request)

    def made_charts(given: dict):
        return chart_files([given[component] for component in shown])

    make.click(made_handout, {paper, *shown}, [handout], api_visibility="private")
    draw.click(made_charts, set(shown), [charts, note], api_visibility="private")
