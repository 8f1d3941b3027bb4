"""A chart as text, for a reader who cannot see it: a one-sentence summary (the label a screen
reader announces) and the rows of numbers it draws (the table under "Data")."""
from __future__ import annotations

import math

from engine import numbers
from engine.charts.fields import field_title
from engine.i18n import N_, _, ngettext

MAX_DATA_ROWS = 400   # rows of the "Data" table under a chart; a longer one says how many it left out
PICTURE_PLACEMENT = {"url", "x", "y"}   # the fields of a row that only places a picture
MARKS = {"rect": "heatmap", "bar": "bar chart", "line": "line chart", "point": "scatter plot",
         "circle": "scatter plot", "text": "table of numbers", "tick": "tick chart", "area": "area chart",
         "rule": "chart", "image": "picture"}
# each kind as a summary's sentence starts with it, in the reader's language
KIND_NAMES = {"heatmap": N_("Heatmap"), "bar chart": N_("Bar chart"), "line chart": N_("Line chart"),
              "scatter plot": N_("Scatter plot"), "table of numbers": N_("Table of numbers"),
              "tick chart": N_("Tick chart"), "area chart": N_("Area chart"), "chart": N_("Chart"),
              "picture": N_("Picture")}


def _title(spec: dict) -> str:
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(part) for part in title)
    return str(title).strip() if title else ""


def _views(spec: dict) -> list[dict]:
    """Every single view of a spec (layers, concatenations and facets unpacked)."""
    found = [spec] if "mark" in spec else []
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for part in spec.get(key) or []:
            found += _views(part)
    if isinstance(spec.get("spec"), dict):
        found += _views(spec["spec"])
    return found


def _parts(spec: dict) -> list[dict]:
    """The spec and every spec inside it (layers, concatenations, facets), parents before children: a
    panel's rows can sit on a layered view that is itself a part of a concatenation."""
    found = [spec]
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for part in spec.get(key) or []:
            if isinstance(part, dict):
                found += _parts(part)
    if isinstance(spec.get("spec"), dict):
        found += _parts(spec["spec"])
    return found


def _mark(view: dict) -> str:
    mark = view.get("mark")
    return mark.get("type", "") if isinstance(mark, dict) else str(mark or "")


def title(spec: dict) -> str:
    """The chart's title, else its first view's title ('' without one)."""
    return next((_title(part) for part in _parts(spec) if _title(part)), "")


def _field_titles(view: dict) -> dict[str, str]:
    """channel -> what it shows (its title, else its field name)."""
    shown = {}
    for channel, encoding in (view.get("encoding") or {}).items():
        if isinstance(encoding, dict) and channel in ("x", "y", "color", "row", "column", "theta", "size"):
            name = encoding.get("title") or encoding.get("field")
            if isinstance(name, list):
                name = " ".join(str(part) for part in name)
            if name:
                shown[channel] = str(name)
    return shown


def _picture(value) -> bool:
    """A picture inlined as a data URL (a mark_image's url): pixels, not a number a reader can use."""
    return isinstance(value, str) and value.startswith("data:")


def rows(spec: dict) -> list[dict]:
    """The rows the chart draws: its inline data values and every named dataset, in order. The same list drawn by
    two views (a spectrogram's frames above and their weights below) counts once; a row that only places a picture
    (its url and where it sits) is not a row of numbers."""
    lists = []
    for part in _parts(spec):
        data = part.get("data")
        if isinstance(data, dict) and isinstance(data.get("values"), list):
            lists.append(data["values"])
    lists += [values for values in (spec.get("datasets") or {}).values() if isinstance(values, list)]
    found, seen = [], []
    for values in lists:
        if any(values is other or (len(values) == len(other) and values == other) for other in seen):
            continue
        seen.append(values)
        found += [row for row in values if isinstance(row, dict)
                  and not (any(_picture(cell) for cell in row.values()) and set(row) <= PICTURE_PLACEMENT)]
    return found


def summary(spec: dict) -> str:
    """One sentence: what kind of chart, its title, what its axes show, how many values it draws. A chart whose
    builder wrote its own sentence (the spec's `description`: a picture, whose axes say nothing) reads as that."""
    own = spec.get("description")
    if isinstance(own, str) and own.strip():
        return own.strip()
    views = _views(spec)
    kinds = [MARKS.get(_mark(view), "chart") for view in views]
    kind = next((k for k in kinds if k not in ("table of numbers", "chart")), kinds[0] if kinds else "chart")
    fields = {}
    for view in views:
        for channel, name in _field_titles(view).items():
            fields.setdefault(channel, name)
    parts = []
    if "y" in fields and "x" in fields:
        parts.append(_("{y} against {x}", y=fields["y"], x=fields["x"]))
    elif fields:
        parts.append(", ".join(fields.values()))
    if "color" in fields and fields["color"] not in parts[0:1]:
        parts.append(_("colour: {colour}", colour=fields["color"]))
    count = len(rows(spec))
    title = _title(spec) or next((_title(view) for view in views if _title(view)), "")
    named = _(KIND_NAMES.get(kind, "Chart"))
    sentence = _("{kind} '{title}'", kind=named, title=title) if title else named
    if parts:
        sentence = _("{chart}: {details}", chart=sentence, details="; ".join(parts))
    if count:
        return ngettext("{chart} ({n} value; the numbers are in the table under Data).",
                        "{chart} ({n} values; the numbers are in the table under Data).", count,
                        chart=sentence, n=numbers.grouped(count))
    return _("{chart}.", chart=sentence)


def _cell(value, reader: bool = False) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return numbers.localized(f"{value:.4g}") if reader else f"{value:.4g}"
    return "" if value is None else str(value)


def header(spec: dict, column: str) -> str:
    """A Data table's column as its chart names it: in English the field's name, as ever; in another language the
    title an encoding (or its legend) gives the field, already in the reader's language, else the field's name."""
    from engine import i18n

    if i18n.is_source():
        return str(column)
    for view in _parts(spec):
        for encoding in (view.get("encoding") or {}).values():
            for entry in encoding if isinstance(encoding, list) else [encoding]:
                if not isinstance(entry, dict) or entry.get("field") != column:
                    continue
                named = entry.get("title") or (entry.get("legend") or {}).get("title")
                if isinstance(named, list):
                    named = " ".join(str(part) for part in named)
                if isinstance(named, str) and named:
                    return named
    return field_title(str(column)) or _(str(column))


def table(spec: dict, limit: int = MAX_DATA_ROWS, *, reader: bool = False) -> tuple[list[str], list[list[str]], int]:
    """(columns, up to `limit` rows of cell texts, rows left out) of the chart's data; `reader`: its numbers in the
    reader's signs (the Data table under a chart), else as Python writes them (a CSV file)."""
    found = rows(spec)
    pictures = {key for row in found for key, value in row.items() if _picture(value)}
    columns = list(dict.fromkeys(key for row in found for key in row
                                 if not str(key).startswith("_") and key not in pictures))
    shown = [[_cell(row.get(column), reader) for column in columns] for row in found[:limit]]
    return columns, shown, max(len(found) - limit, 0)
