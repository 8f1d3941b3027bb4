"""Tables of numbers: short ones as plain HTML tables (st.table), long ones as Streamlit's grid.

Streamlit's st.dataframe draws on a canvas and rebuilds the grid's hidden accessible copy about
0.2 s after every redraw, so a rerun that redraws one small grid takes 0.2 s longer in the browser
(bench.browser's method: a four-row grid 234 ms, the same rows as st.table 36 ms, a trivial page
27-36 ms). A table short enough to read whole is better as HTML anyway: every number in view, no
scrolling inside a box, and a screen reader reads it as a table. Longer ones keep the grid, which
scrolls and sorts. In a short table a column whose every cell is a number is aligned right (a script in
ui/shell.py marks it).
"""
from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from engine import markup, numbers
from engine.charts import handout as paper_handout
from ui import recording

MAX_HTML_ROWS = 30   # a table with more rows than this is drawn as a scrolling grid


def table(data: Any, formats: Mapping[str, str] | None = None, *, digits: int | None = 3, where: Any = None,
          hide_index: bool = True, turn_on_phone: bool = False) -> None:
    """Draw `data` (a dict of columns, a list of row dicts, or a DataFrame) as a table.

    `formats` maps a column to a printf format ("%.3f", "%d") or "localized" (thousands separated:
    2,359,296), in the reader's signs (engine.numbers: 0,298 in Spanish); every other float column gets `digits`
    decimals (None: as it is; nan and inf print as nan and inf). `where` is the container (default: the
    current one). A DataFrame's index is shown only with hide_index=False. `turn_on_phone`: a wide table of a
    few rows (the Block builder's presets) turns a quarter on a phone, its first column's cells heading the
    columns, so that every one of its columns is in view instead of past the screen's edge."""
    if isinstance(data, pd.DataFrame) and not hide_index:
        data = data.reset_index()
    columns = _columns(data)
    formats = dict(formats or {})
    rows = max((len(values) for values in columns.values()), default=0)
    where = where or st
    if rows > MAX_HTML_ROWS and numbers.localized("0.5") != "0.5":
        # the grid formats numbers in the browser, in English's signs: in another language its numbers go as the
        # text this page prints (they no longer sort as numbers)
        columns = {name: [_grid_cell(v, formats.get(name), digits) for v in values] for name, values in columns.items()}
        where.dataframe(pd.DataFrame(columns), hide_index=True, width="stretch")
        return
    if rows > MAX_HTML_ROWS:
        frame = pd.DataFrame(columns)
        number_formats = formats | {name: f"%.{digits}f" for name in frame.columns
                                    if name not in formats and digits is not None and frame[name].dtype.kind == "f"}
        where.dataframe(frame, hide_index=True, width="stretch",
                        column_config={name: st.column_config.NumberColumn(format=f)
                                       for name, f in number_formats.items()})
        return
    # every cell as the text it shows, formatted here, in an Arrow table: a pandas Styler would cost ~18 ms
    # for a small table on every rerun (Streamlit sets its display values cell by cell); ui/shell.py
    # aligns the columns of numbers right
    shown = {}
    for name, values in columns.items():
        printf = formats.get(name)
        present = [v for v in values if v is not None]
        if printf is None and digits is not None and present and all(isinstance(v, float) for v in present):
            printf = f"%.{digits}f"
        shown[str(name)] = [_formatted(value, printf) for value in values]
    drawn = turned(shown) if turn_on_phone and _on_phone() else shown
    where.table(pa.table(drawn), hide_index=True)
    recording.add(paper_handout.Table(tuple(shown), tuple(zip(*shown.values()))))   # unescaped when printed


def _on_phone() -> bool:
    from ui import screen

    return screen.layout().narrow


BREAK_AFTER_COMMA = re.compile(r"(?<=\d),(?=\d{3})")   # a thousands separator: "174,604,259,328"


def turned(columns: dict[str, list[str]]) -> dict[str, list[str]]:
    """A table of formatted cells turned a quarter: its first column's cells head the new columns, its other
    columns' names head the new rows (names made distinct, as Arrow needs). A long number may break after a
    thousands separator (a zero-width space there): GPT-3's 174,604,259,328 in a phone's narrow column."""
    names = list(columns)
    if len(names) < 2:
        return columns
    heads = [names[0]] + columns[names[0]]
    seen: dict[str, int] = {}
    for i, head in enumerate(heads):
        seen[head] = seen.get(head, 0) + 1
        if seen[head] > 1:
            heads[i] = f"{head} ({seen[head]})"
    rows = [[name] + [BREAK_AFTER_COMMA.sub(",\u200b", cell) for cell in columns[name]] for name in names[1:]]
    return {head: [row[i] for row in rows] for i, head in enumerate(heads)}


def _grid_cell(value: Any, printf: str | None, digits: int | None) -> Any:
    """A grid's cell in a language that writes numbers otherwise than English: a number as the page prints it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if printf is None and digits is not None and isinstance(value, float):
        printf = f"%.{digits}f"
    return _formatted(value, printf) if printf is not None else numbers.localized(str(value))


def unescaped(cell: str) -> str:
    """A cell as typed, for paper: the escapes that kept Markdown from formatting it, undone."""
    return markup.unmarked(cell)


def _columns(data: Any) -> dict[Any, list]:
    """A table's columns as plain Python lists (numpy numbers become Python ones)."""
    if isinstance(data, pd.DataFrame):
        return {name: data[name].tolist() for name in data.columns}
    if isinstance(data, Mapping):
        return {name: np.asarray(values).tolist() if isinstance(values, np.ndarray) else list(values)
                for name, values in data.items()}
    names = dict.fromkeys(name for row in data for name in row)
    return {name: [row.get(name) for row in data] for name in names}


def _formatted(value: Any, printf: str | None) -> str:
    """One cell as text: a number through its printf format; text as typed (no Markdown, no LaTeX)."""
    if value is None:
        return ""
    if printf is not None:
        try:
            text = numbers.grouped(value) if printf == "localized" else printf % value
            text = text[1:] if text.startswith("-") and not text.strip("-0.,") else text   # no "-0.000"
            return text if printf == "localized" else numbers.localized(text)   # the reader's signs
        except (TypeError, ValueError):   # text in a number column: as it is
            pass
    if isinstance(value, str):   # st.table reads text cells as Markdown
        return markup.markdown(value)
    return str(value)
