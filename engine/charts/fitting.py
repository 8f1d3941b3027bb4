"""A chart fitted to its place: a phone's column, a desktop's, a projector's.

The builders draw every chart at the sizes a desktop column holds (TEXT_SIZE text; cells, bars and plots in
pixels chosen for it), which is also what a download and the handout print. A page that knows the width of
its place (engine.charts.style.Layout; ui.screen asks the browser) fits each chart to it here, in one rewrite
of the spec, so no builder sizes its chart for each screen:

- narrow (a phone): panels side by side go one under the other (hconcat -> vconcat, a facet's columns -> one
  column), legends beside a chart go under it and wrap into as many columns as fit, slanted labels stand
  upright, long titles wrap, bars with long names carry them above the bar, and a grid that may turn
  (usermeta.transposable) turns where that fits better;
- then the chart shrinks as far as its place needs (plot widths, cells and bars; its text keeps its size, and
  numbers inside cells shrink to fit them, never under MIN_TEXT_SIZE on a phone nor under TEXT_SIZE elsewhere),
  or on a projector grows to fill its place, at most Layout.grow times, its text at the projector's size.

A chart's width is estimated from its spec: labels measured with Helvetica's widths (style.text_width, wider
than the Source Sans Streamlit draws), Streamlit's padding round axes and legends. A one-view chart is then
given its whole width in pixels and Vega fits its plot to it exactly (autosize fit-x); a concatenation or a
facet cannot be fitted by Vega, so their panels are sized from the estimate. Colours, data and numbers are
never touched: only sizes, places and line breaks.
"""
from __future__ import annotations

import math
import re

from engine.charts.style import LEGEND_TITLE_LIMIT, MIN_TEXT_SIZE, ONE_CHARACTER_TEST, TEXT_SIZE, Layout, with_text
from engine.charts.style import text_width as helvetica_width
from engine.numbers import is_number as _is_number   # a number prints whole or not at all; a word may end in "…"

WIDER = 1.1   # labels are counted this much wider than Helvetica: Vega's own fallback fonts (DejaVu) are wider


def text_width(text: str, size: float) -> float:
    """A label's width in px at `size`, counted generously (WIDER)."""
    return helvetica_width(text, size) * WIDER


CONCATS = ("hconcat", "vconcat", "concat")
LEGEND_CHANNELS = ("color", "fill", "stroke", "opacity", "size", "shape", "strokeDash")
# Streamlit's chart theme (its CustomTheme): 16 px between an axis and its labels and between the labels and
# the title, 8 px round a legend, 16 px between a legend's symbols and labels
AXIS_LABEL_PAD = 16
AXIS_TITLE_PAD = 16
LEGEND_PAD = 8
LEGEND_OFFSET = 18       # Vega's default gap between a chart and a legend beside it
LEGEND_SYMBOL = 16 + 16  # a symbol and its gap to the label
GRADIENT = 16            # the thickness of a colour ramp
DEFAULT_SPACING = 20     # Vega-Lite's gap between panels
DEFAULT_STEP = 20        # Vega-Lite's band of a discrete axis with no width
DEFAULT_WIDTH = 300      # ... and a continuous one (Streamlit's defaultChartWidth)
SLACK = 6                # px kept free in a place, for what the estimate misses
CELL_PAD = 4             # px round a number inside a cell
MIN_STEP = 6             # px: no bar or cell is made thinner
GROUP_PADDING = 0.2      # Vega-Lite's padding of a band whose bars are offset (grouped), inside and out
TRANSPOSE_BELOW = 0.8    # a grid that may turn (usermeta.transposable) turns on a phone where it would shrink more
LABELS_OVER_BARS = 0.35  # on a phone, bars whose names take more of the width than this get their names above them
LONGEST_MEASURED = 24    # the numbers of a chart measured for its widest: the longest by characters
WORDS_FITTED = 0.9       # the share of the words in a grid's cells sized to fit whole (the rest end in "…")
WORDS_OUTSIDE = 0.6      # the share of a point's word that may stand outside its plot (points keep off its edges)


def fitted(spec: dict, layout: Layout, *, stretch: bool = False) -> dict:
    """The spec drawn in `layout` (a new dict; the spec itself is not changed): its text at layout.text; in a
    place of known width, stacked where narrow, then shrunk to fit or (layout.grow > 1) grown to fill it.
    `stretch`: the page draws it the width of its column (Streamlit's width="stretch"), so only its heights
    are scaled."""
    out = with_text(spec, layout.text)
    if layout.text != TEXT_SIZE:
        out = _text_grown(out, layout.text / TEXT_SIZE)
    out = legend_titles_wrapped(out, layout.text)
    if layout.width is None:
        return out
    chart = _Chart(out, layout)
    room = layout.width - SLACK
    if layout.narrow:
        out = chart.narrowed(out, room)
        chart = _Chart(out, layout)
        if (spec.get("usermeta") or {}).get("transposable") and chart.fit(out, room) < TRANSPOSE_BELOW \
                and chart.fit(_transposed(out), room) > chart.fit(out, room):
            out = _transposed(out)   # a tall grid scrolls with the page; a wide one would shrink past reading
            chart.changed = True
    if layout.grow > 1 and chart.full_size_scale(out) > chart.fit(out, room):
        # a projector: panels of numbers side by side that would shrink their numbers under the projector's size (the
        # multi-head page's two heads, three decimals a cell, at 20 px) go one under the other where that lets
        # them grow larger
        stacked = _stacked(out)
        if stacked is not out and chart.fit(stacked, room) > chart.fit(out, room):
            out = stacked
            chart.changed = True
    out = chart.titles_wrapped(out, room)
    scale = min(chart.fit(out, room), layout.grow)
    single = _single(out)
    if scale >= 1 and layout.grow <= 1 and not chart.changed:
        # it fits as it is; on a phone an x axis title wider than its plot still goes in lines (Vega would cut it)
        return chart.axis_titles_wrapped(out, 1.0) if layout.narrow else out
    # numbers in cells are never squeezed under MIN_TEXT_SIZE: on a phone cells too narrow for them show their
    # colour alone (the numbers stay in the tooltip and the Data table, as in a heatmap of too many cells), elsewhere
    # such a chart rather scrolls sideways
    if layout.narrow and chart.smallest_scale(out) > scale:
        out = chart.without_numbers(out, scale)
    squeezed = max(chart.smallest_scale(out), 0.05)
    # a chart as wide as its column gets its width from Streamlit: on a projector its rows grow with the text
    tall = max(scale, layout.text / TEXT_SIZE) if stretch and layout.grow > 1 else None
    out = chart.cells_fitted(chart.scaled(out, max(scale, squeezed), heights=layout.grow > 1, tall=tall))
    if layout.narrow:
        out = chart.axis_titles_wrapped(chart.labels_upright(out), 1.0)
    if single and not stretch and squeezed <= scale and (out.get("autosize") or {}).get("type") != "pad":
        # Vega fits the plot into this total exactly (a left axis, legends and padding included); what it does
        # not count, labels of a top or bottom axis running past the plot's right end, is kept as padding. (A chart
        # its numbers keep wider than its place keeps its bands instead: its estimate would only make it wider.)
        content, fixed = chart.extent(out, 1.0)
        past = chart.overhang(out, chart.top_rows, 1.0)
        out["width"] = int(min(room, content + fixed))
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
        # a title wider than that total would have Vega squeeze the plot to make room for it (to nothing, on a
        # projector: the Context page's title is 1,100 px at 27 px): it wraps within the chart instead
        out = chart.titles_wrapped(out, out["width"] - 10)
        if past > 0:
            padding = dict(out.get("padding") or {})
            out["padding"] = padding | {"right": round(float(padding.get("right", 0)) + past)}
    return out


def _label_sizes(value, default: float) -> tuple[float, float]:
    """(a one-character label's size, any other label's) from an axis's labelFontSize: a number, or a condition on
    the label (style.one_character_labels: a comma drawn larger than the words); another condition counts its
    larger size for every label."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), float(value)
    if isinstance(value, dict) and isinstance(value.get("condition"), dict):
        other = float(value.get("value", default))
        chosen = float(value["condition"].get("value", other))
        if value["condition"].get("test") == ONE_CHARACTER_TEST:
            return chosen, other
        return max(chosen, other), max(chosen, other)
    return float(default), float(default)


def _label_size(sizes: tuple[float, float], label: str) -> float:
    return sizes[0] if len(label) == 1 else sizes[1]


def _stacked(spec: dict) -> dict:
    """Panels side by side (hconcat, or a row of them inside a vconcat; concat) one under the other; the spec itself
    where it has none."""
    def panels(view: dict) -> list[dict] | None:
        if "hconcat" in view:
            return list(view["hconcat"])
        if "vconcat" in view and any("hconcat" in part for part in view["vconcat"] if isinstance(part, dict)):
            found = []
            for part in view["vconcat"]:
                bare = isinstance(part, dict) and not any(k in part for k in ("data", "resolve", "title", "transform"))
                found += part["hconcat"] if bare and "hconcat" in part else [part]
            return found
        return None

    if "concat" in spec:
        return spec | {"columns": 1}
    found = panels(spec)
    if found is None:
        return spec
    out = {key: value for key, value in spec.items() if key != "hconcat"}
    return out | {"vconcat": found}


def _single(view: dict) -> bool:
    return not any(key in view for key in (*CONCATS, "facet", "repeat")) and not any(
        channel in (view.get("encoding") or {}) for channel in ("row", "column", "facet"))


def _text_grown(spec: dict, ratio: float) -> dict:
    """Offsets of text marks (dx, dy), label limits and font sizes a builder set itself, grown with the text
    (a bar's number keeps its distance from the bar at any size)."""
    def visit(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key in ("dx", "dy", "labelLimit", "titleLimit", "labelFontSize", "fontSize") \
                        and isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[key] = round(value * ratio, 1)
                elif key in ("labelFontSize", "fontSize") and isinstance(value, dict) \
                        and isinstance(value.get("condition"), dict) \
                        and isinstance(value["condition"].get("value"), (int, float)):
                    # a size on a condition (style.one_character_labels): the condition's grows; its default is
                    # with_text's, already the layout's
                    out[key] = value | {"condition": value["condition"]
                                        | {"value": round(value["condition"]["value"] * ratio, 1)}}
                elif key in ("data", "datasets"):
                    out[key] = value
                else:
                    out[key] = visit(value)
            return out
        if isinstance(node, list):
            return [visit(item) for item in node]
        return node

    config = spec.get("config") or {}
    kept = {part: config[part] for part in ("axis", "legend", "header", "title", "text") if part in config}
    out = visit({key: value for key, value in spec.items()})
    out["config"] = {**out.get("config", {}), **kept}   # text_config's sizes are already the layout's
    return out


class _Chart:
    """One spec's data and text sizes, for estimating its widths and rewriting its views."""

    def __init__(self, spec: dict, layout: Layout):
        self.layout = layout
        self.text = layout.text
        # the smallest a number in a cell is drawn: a phone's 11 px, else the desktop's 13 (the room's back row)
        self.smallest_text = MIN_TEXT_SIZE if layout.narrow else min(TEXT_SIZE, layout.text)
        config = spec.get("config") or {}
        self.label_size = _label_sizes((config.get("axis") or {}).get("labelFontSize", self.text), self.text)[1]
        self.label_limit = float((config.get("axis") or {}).get("labelLimit", 180))
        self.y_label_sizes = _label_sizes((config.get("axisY") or {}).get("labelFontSize", self.label_size),
                                          self.label_size)
        self.legend_limit = float((config.get("legend") or {}).get("labelLimit", 400))
        self.datasets = dict(spec.get("datasets") or {})
        self.top_rows = self._own_rows(spec) or []
        self.changed = False
        self.measured: dict[tuple[int, int], tuple[float, bool]] = {}

    # --- data ---------------------------------------------------------------------------------------------
    def _own_rows(self, view: dict) -> list[dict] | None:
        data = view.get("data")
        if not isinstance(data, dict):
            return None
        if isinstance(data.get("values"), list):
            return data["values"]
        if data.get("name") in self.datasets and isinstance(self.datasets[data["name"]], list):
            return self.datasets[data["name"]]
        return None

    def rows(self, view: dict, inherited: list[dict]) -> list[dict]:
        own = self._own_rows(view)
        return inherited if own is None else own

    def categories(self, channel: dict, rows: list[dict]) -> list[str]:
        """The labels a discrete axis shows: its sort list, its scale's domain, or its field's values."""
        if isinstance(channel.get("sort"), list):
            return [str(value) for value in channel["sort"]]
        domain = (channel.get("scale") or {}).get("domain")
        if isinstance(domain, list):
            return [str(value) for value in domain]
        field = channel.get("field")
        if field is None:
            return []
        return [str(value) for value in dict.fromkeys(row.get(field) for row in rows if isinstance(row, dict))
                if value is not None]

    def labels(self, channel: dict, rows: list[dict]) -> list[str]:
        """The labels an axis prints: the values its axis names, else its categories."""
        values = (channel.get("axis") or {}).get("values")
        return [str(value) for value in values] if isinstance(values, list) else self.categories(channel, rows)

    # --- widths -------------------------------------------------------------------------------------------
    def channels(self, view: dict) -> list[dict]:
        """The encodings of a unit view and of its layers, the view's own first."""
        found = [view.get("encoding") or {}]
        for layer in view.get("layer") or []:
            if isinstance(layer, dict):
                found += self.channels(layer)
        return found

    def _channel(self, view: dict, name: str) -> dict | None:
        for encoding in self.channels(view):
            if isinstance(encoding.get(name), dict) and ("field" in encoding[name] or "datum" in encoding[name]):
                return encoding[name]
        return None

    def content(self, view: dict, rows: list[dict]) -> float:
        """The plot's width at scale 1. A width in steps counts one step per category, or with an offset (bars
        grouped side by side) one per bar, each group then padded as Vega-Lite pads it (0.2 of a group's band
        inside and out)."""
        width = view.get("width")
        if isinstance(width, (int, float)):
            return float(width)
        x = self._channel(view, "x")
        discrete = x is not None and x.get("type") in ("nominal", "ordinal")
        count = max(len(self.categories(x, rows)), 1) if discrete else 0
        step = float(width["step"]) if isinstance(width, dict) and "step" in width else DEFAULT_STEP
        if not discrete:
            return float(DEFAULT_WIDTH) if not isinstance(width, dict) else step
        offset = self._channel(view, "xOffset")
        if offset is not None:
            bars = max(len(self.categories(offset, rows)), 1)
            return step * bars / (1 - GROUP_PADDING) * (count + GROUP_PADDING)
        return step * count

    def y_axis(self, view: dict, rows: list[dict]) -> float:
        """The width of the y axis: labels, padding, title."""
        y = self._channel(view, "y")
        if y is None or y.get("axis", {}) is None:
            return 0.0
        axis = y.get("axis") or {}
        if axis.get("labelAlign") == "left" and float(axis.get("labelPadding", 0)) < 0:
            return 0.0   # names printed inside the plot (above their bars)
        sizes = _label_sizes(axis["labelFontSize"], self.label_size) if "labelFontSize" in axis else self.y_label_sizes
        limit = float(axis.get("labelLimit", self.label_limit))
        if y.get("type") in ("nominal", "ordinal"):
            labels = self.labels(y, rows)
        else:
            labels = [_number_label(y, rows)]
        width = min(max((text_width(label, _label_size(sizes, label)) for label in labels), default=0.0),
                    limit) + AXIS_LABEL_PAD
        titled = y.get("title") not in (None, "") if "title" in y else "field" in y
        if titled:
            width += self.text + 1 + AXIS_TITLE_PAD
        return width

    def legends(self, view: dict, rows: list[dict]) -> float:
        """The width of the legends beside the view (left or right of it)."""
        width = 0.0
        seen = set()
        for encoding in self.channels(view):
            for name in LEGEND_CHANNELS:
                channel = encoding.get(name)
                if not isinstance(channel, dict) or "field" not in channel or channel.get("field") in seen:
                    continue
                if ("legend" in channel and channel["legend"] is None) or ("scale" in channel
                                                                            and channel["scale"] is None):
                    continue
                legend = channel.get("legend") or {}
                if legend.get("orient", "right") not in ("right", "left"):
                    continue
                seen.add(channel["field"])
                width += self.legend_width(channel, legend, rows) + LEGEND_OFFSET
        return width

    def legend_width(self, channel: dict, legend: dict, rows: list[dict]) -> float:
        title = legend.get("title", channel.get("title", channel.get("field", "")))
        lines = title if isinstance(title, list) else [title] if title else []
        title_width = max((text_width(str(line), self.text + 1) for line in lines), default=0.0)
        if channel.get("type") == "quantitative":
            body = GRADIENT * self.text / TEXT_SIZE + 8 + text_width("0.000", self.text)
        else:
            labels = self.categories(channel, rows)
            body = LEGEND_SYMBOL * self.text / TEXT_SIZE + min(
                max((text_width(label, self.text) for label in labels), default=0.0), self.legend_limit)
        return max(title_width, body) + 2 * LEGEND_PAD

    def overhang(self, view: dict, rows: list[dict], scale: float) -> float:
        """How far a discrete x axis's labels run past the right end of the plot."""
        x = self._channel(view, "x")
        if x is None or x.get("type") not in ("nominal", "ordinal") or x.get("axis", {}) is None:
            return 0.0
        categories = self.categories(x, rows)
        if not categories:
            return 0.0
        step = self.content(view, rows) * scale / len(categories)
        shown = set(self.labels(x, rows))
        labels = [label if label in shown else "" for label in categories]
        angle = math.radians(float((x.get("axis") or {}).get("labelAngle", 0)))
        widths = [min(text_width(label, self.label_size), self.label_limit) for label in labels]
        if abs(angle) < 1e-6:
            return max(0.0, widths[-1] / 2 - step / 2)
        return max(max(0.0, width * abs(math.cos(angle)) - (len(labels) - i - 0.5) * step)
                   for i, width in enumerate(widths))

    def extent(self, view: dict, scale: float, inherited: list[dict] | None = None) -> tuple[float, float]:
        """(content, fixed): the view is about content + fixed px wide at `scale` (content grows with it)."""
        rows = self.rows(view, self.top_rows if inherited is None else inherited)
        if "hconcat" in view or "concat" in view:
            parts = [self.extent(part, scale, rows) for part in view.get("hconcat") or view.get("concat")]
            spacing = float(view.get("spacing", DEFAULT_SPACING)) * (len(parts) - 1)
            return sum(c for c, _ in parts), sum(f for _, f in parts) + spacing
        if "vconcat" in view:
            parts = [self.extent(part, scale, rows) for part in view["vconcat"]]
            return max(parts, key=lambda part: part[0] + part[1], default=(0.0, 0.0))
        if "facet" in view and isinstance(view.get("spec"), dict):
            columns = self.facet_columns(view, rows)
            content, fixed = self.extent(view["spec"], scale, rows)
            spacing = float(view.get("spacing", DEFAULT_SPACING)) * (columns - 1)
            return content * columns, fixed * columns + spacing
        content = self.content(view, rows) * scale
        fixed = self.y_axis(view, rows) + self.legends(view, rows) + self.overhang(view, rows, scale) \
            + self.words_beside(view, rows) + 10
        return content, fixed

    def words_beside(self, view: dict, rows: list[dict]) -> float:
        """How far words printed right of their points (text marks aligned left, on a continuous x) may run past
        the plot: a point near its right edge carries its word outside it."""
        x = self._channel(view, "x")
        if x is None or x.get("type") in ("nominal", "ordinal"):
            return 0.0
        widest = 0.0
        for layer in [view, *(view.get("layer") or [])]:
            mark = layer.get("mark") if isinstance(layer, dict) else None
            if not isinstance(mark, dict) or mark.get("type") != "text" or mark.get("align") != "left":
                continue
            field = ((layer.get("encoding") or {}).get("text") or {}).get("field")
            words = [str(row.get(field, "")) for row in self.rows(layer, rows) if isinstance(row, dict)]
            longest = max((text_width(word, self.text) for word in words), default=0.0)
            widest = max(widest, WORDS_OUTSIDE * (longest + float(mark.get("dx", 0))))
        return widest

    def facet_columns(self, view: dict, rows: list[dict]) -> int:
        facet = view["facet"]
        if "column" in facet:
            return max(len(self.categories(facet["column"], rows)), 1)
        if "columns" in view:
            count = len(self.categories(facet, rows)) if "field" in facet else 1
            return max(min(int(view["columns"]), count), 1)
        return 1

    def fit(self, view: dict, room: float, inherited: list[dict] | None = None) -> float:
        """The largest scale at which the view's width stays within `room` px."""
        rows = self.rows(view, self.top_rows if inherited is None else inherited)
        if "vconcat" in view:
            return min((self.fit(part, room, rows) for part in view["vconcat"]), default=1.0)
        scale = 1.0
        for _ in range(4):   # the labels' overhang depends on the scale: a few rounds settle it
            content, fixed = self.extent(view, scale, inherited)
            if content <= 0:
                return math.inf if fixed <= room else 1.0
            scale = (room - fixed) / (content / scale)
            if scale <= 0.05:
                return 0.05
        return scale

    # --- rewriting ----------------------------------------------------------------------------------------
    def narrowed(self, view: dict, room: float, inherited: list[dict] | None = None, *, layer: bool = False) -> dict:
        """A phone's chart: panels one under the other, a facet in one column, legends under the chart in as many
        columns as `room` px hold."""
        rows = self.rows(view, self.top_rows if inherited is None else inherited)
        beside = self.y_axis(view, rows)   # a legend under the plot starts at the plot, right of its y axis
        out = dict(view)
        if "hconcat" in out:
            out["vconcat"] = out.pop("hconcat")
            self.changed = True
        if "concat" in out:
            out["columns"] = 1
            self.changed = True
        if "vconcat" in out:
            panels = []
            for part in out["vconcat"]:
                part = self.narrowed(part, room, rows)
                if "vconcat" in part and not any(k in part for k in ("data", "resolve", "title", "transform")):
                    panels += part["vconcat"]    # a row of panels inside the column: its panels join the column
                    out.setdefault("spacing", part.get("spacing", DEFAULT_SPACING))
                else:
                    panels.append(part)
            out["vconcat"] = panels
        if "concat" in out:
            out["concat"] = [self.narrowed(part, room, rows) for part in out["concat"]]
        if "facet" in out and isinstance(out["facet"], dict) and "column" in out["facet"]:
            column = dict(out["facet"]["column"])
            out["facet"] = column
            out["columns"] = 1
            self.changed = True
        if isinstance(out.get("spec"), dict):
            out["spec"] = self.narrowed(out["spec"], room, rows)
        if "layer" in out:
            out["layer"] = [self.narrowed(part, room - beside, rows, layer=True) if isinstance(part, dict) else part
                            for part in out["layer"]]
        if isinstance(out.get("encoding"), dict):
            out["encoding"] = _upright(self._legends_under(out["encoding"], room - beside, rows))
            self.changed |= out["encoding"] != view.get("encoding")
        if not layer and self.y_axis(out, rows) > LABELS_OVER_BARS * room and self._bars_across(out):
            out = self._labels_over_bars(out)
        return out

    def _bars_across(self, view: dict) -> bool:
        """Horizontal bars: a discrete y with its axis, a continuous x, bars among the marks."""
        y, x = self._channel(view, "y"), self._channel(view, "x")
        marks = [_mark_type(view)] + [_mark_type(layer) for layer in view.get("layer") or [] if isinstance(layer, dict)]
        return y is not None and x is not None and y.get("type") in ("nominal", "ordinal") \
            and y.get("axis", {}) is not None and x.get("type") == "quantitative" and "bar" in marks

    def _labels_over_bars(self, view: dict) -> dict:
        """Horizontal bars with long names on a phone: each name printed above its bar, inside the plot, so the
        bars keep the width the names took (each band twice as tall, the bar and its number in its lower half)."""
        out = dict(view)
        height = out.get("height")
        if isinstance(height, dict) and isinstance(height.get("step"), (int, float)):
            step = float(height["step"])
            out["height"] = {**height, "step": 2 * step}
        elif isinstance(height, (int, float)):
            step = float(height) / max(len(self.categories(self._channel(view, "y"), self.top_rows)), 1)
            out["height"] = 2 * height
        else:
            step = DEFAULT_STEP
            out["height"] = {"step": 2 * step}
        inside = {"labelAlign": "left", "labelBaseline": "middle", "labelPadding": -2, "labelOffset": -step / 2,
                  "labelLimit": 10_000}

        def moved(part: dict) -> dict:
            part = dict(part)
            encoding = dict(part.get("encoding") or {})
            if isinstance(encoding.get("y"), dict) and encoding["y"].get("axis", {}) is not None:
                encoding["y"] = encoding["y"] | {"axis": {**(encoding["y"].get("axis") or {}), **inside}}
                part["encoding"] = encoding
            mark = part.get("mark")
            if mark is not None:
                mark = dict(mark) if isinstance(mark, dict) else {"type": mark}
                mark["yOffset"] = round(step * 0.45, 1)
                if mark.get("type") == "bar":
                    mark["height"] = {"band": 0.42}
                part["mark"] = mark
            if isinstance(part.get("layer"), list):
                part["layer"] = [moved(layer) if isinstance(layer, dict) else layer for layer in part["layer"]]
            return part

        self.changed = True
        return moved(out)

    def _legends_under(self, encoding: dict, room: float, rows: list[dict]) -> dict:
        """Legends beside a chart moved under it; a legend under it in as many columns as `room` px hold, a colour
        ramp no longer than that."""
        out = dict(encoding)
        for name in LEGEND_CHANNELS:
            channel = out.get(name)
            if not isinstance(channel, dict) or "field" not in channel or channel.get("legend", {}) is None \
                    or ("scale" in channel and channel["scale"] is None):
                continue
            legend = dict(channel.get("legend") or {})
            if legend.get("orient", "right") in ("right", "left"):
                legend["orient"] = "bottom"
            if channel.get("type") == "quantitative":
                length = max(60, min(200, int(room - 2 * LEGEND_PAD - text_width("0.000", self.text))))
                legend["gradientLength"] = min(legend.get("gradientLength", 200), length)
            else:
                labels = self.categories(channel, rows)
                entry = LEGEND_SYMBOL + 8 + min(max((text_width(label, self.text) for label in labels),
                                                    default=0.0), self.legend_limit)
                fit = max(1, int((room - 2 * LEGEND_PAD) // entry))
                legend["columns"] = min(int(legend.get("columns", len(labels) or 1)), fit)
            if legend != (channel.get("legend") or {}):
                self.changed = True
                out[name] = channel | {"legend": legend}
        return out

    def scaled(self, view: dict, scale: float, *, heights: bool, tall: float | None = None) -> dict:
        """Every plot width, band and picture `scale` times its size; heights too where `heights` (a projector)
        or where the view is square (a heatmap's cells, a map with equal axes), else heights kept; `tall` scales
        the heights instead (a chart as wide as its column, whose rows must hold the projector's text)."""
        out = dict(view)
        square = heights or _square(view)
        for side, scaled in (("width", True), ("height", square)):
            value = out.get(side)
            factor = (tall or scale) if side == "height" else scale
            if not scaled:
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[side] = max(round(value * factor), MIN_STEP)
            elif isinstance(value, dict) and isinstance(value.get("step"), (int, float)):
                out[side] = {**value, "step": max(round(value["step"] * factor, 1), MIN_STEP)}
        if "spacing" in out and heights:
            out["spacing"] = round(out["spacing"] * min(scale, 1.5))
        mark = out.get("mark")
        if isinstance(mark, dict):
            out["mark"] = _mark_scaled(mark, scale, heights)
        for part in (*CONCATS, "layer"):
            if isinstance(out.get(part), list):
                out[part] = [self.scaled(inner, scale, heights=heights, tall=tall) if isinstance(inner, dict)
                             else inner for inner in out[part]]
        if isinstance(out.get("spec"), dict):
            out["spec"] = self.scaled(out["spec"], scale, heights=heights, tall=tall)
        return out

    def cell_texts(self, view: dict, rows: list[dict]) -> tuple[dict, float, bool] | None:
        """For cells with text in them (a view layering text over rects, its width in steps): the text layer, the
        width at 1 px its texts must fit (every number: the widest; words: nine in ten of them, the longest few end
        in an ellipsis instead of shrinking every word of the grid), and whether every text is a number."""
        layers = [layer for layer in view.get("layer") or [] if isinstance(layer, dict)]
        width = view.get("width")
        if not (isinstance(width, dict) and "step" in width and "rect" in map(_mark_type, layers)):
            return None
        text_layer = next((layer for layer in layers if _mark_type(layer) == "text"), None)
        if text_layer is None:
            return None
        key = id(text_layer), id(rows)
        if key not in self.measured:   # asked for again by each step of fitted: measured once
            field = ((text_layer.get("encoding") or {}).get("text") or {}).get("field")
            texts = {str(row.get(field, "")) for row in self.rows(text_layer, rows) if isinstance(row, dict)}
            numbers = all(_is_number(text) for text in texts if text)
            if numbers:
                fit = max((text_width(text, 1.0) for text in sorted(texts, key=len)[-LONGEST_MEASURED:]), default=0.0)
            else:
                widths = sorted(text_width(text, 1.0) for text in texts if text)
                fit = widths[int(WORDS_FITTED * (len(widths) - 1))] if widths else 0.0
            self.measured[key] = (fit, numbers)
        widest, numbers = self.measured[key]
        return (text_layer, widest, numbers) if widest > 0 else None

    def _cells(self, view: dict, inherited: list[dict]):
        """(view, its cell texts) for every view with texts in its cells."""
        rows = self.rows(view, inherited)
        found = self.cell_texts(view, rows)
        if found is not None:
            yield view, found
        for part in CONCATS:
            for inner in view.get(part) or []:
                if isinstance(inner, dict):
                    yield from self._cells(inner, rows)
        if isinstance(view.get("spec"), dict):
            yield from self._cells(view["spec"], rows)

    def smallest_scale(self, spec: dict) -> float:
        """The smallest scale at which every number printed in a cell still fits it at its smallest size."""
        scales = [(self.smallest_text * widest + CELL_PAD) / float(view["width"]["step"])
                  for view, (_, widest, numbers) in self._cells(spec, self.top_rows) if numbers]
        return max(scales, default=0.0)

    def full_size_scale(self, spec: dict) -> float:
        """The smallest scale at which every number printed in a cell fits it at the layout's text size."""
        scales = [(self.text * widest + CELL_PAD) / float(view["width"]["step"])
                  for view, (_, widest, numbers) in self._cells(spec, self.top_rows) if numbers]
        return max(scales, default=0.0)

    def without_numbers(self, spec: dict, scale: float) -> dict:
        """The spec without the numbers of the cells that would be too narrow for them at `scale`."""
        dropped = {id(layer) for view, (layer, widest, numbers) in self._cells(spec, self.top_rows)
                   if numbers and (self.smallest_text * widest + CELL_PAD) / float(view["width"]["step"]) > scale}
        self.changed = True
        return _dropped(spec, dropped)

    def cells_fitted(self, spec: dict) -> dict:
        """Texts in cells at a size that fits the cells (no larger than the chart's text, never under
        its smallest size); a word still wider than its cell (a token in a model's grid) ends in an ellipsis, a number
        never does."""
        sizes, limited = [], {}
        for view, (layer, widest, numbers) in self._cells(spec, self.top_rows):
            room = float(view["width"]["step"]) - CELL_PAD
            sizes.append(room / widest)
            if not numbers and widest * max(self.smallest_text, min(self.text, room / widest)) > room:
                limited[id(layer)] = max(round(room), 1)
        out = spec
        size = min(sizes, default=self.text)
        if size < self.text:
            config = dict(spec.get("config") or {})
            config["text"] = {**(config.get("text") or {}), "fontSize": max(self.smallest_text, math.floor(size))}
            out = spec | {"config": config}
        return _limited(out, limited) if limited else out

    def _step(self, view: dict, rows: list[dict]) -> float | None:
        """A discrete x axis's band in px."""
        x = self._channel(view, "x")
        if x is None or x.get("type") not in ("nominal", "ordinal"):
            return None
        count = max(len(self.categories(x, rows)), 1)
        return self.content(view, rows) / count

    def labels_upright(self, view: dict, inherited: list[dict] | None = None) -> dict:
        """Slanted labels of a discrete x axis whose bands grew too narrow for them (a phone) drawn upright; where
        a band is narrower than a line of text, every other label left out instead of piled on each other."""
        rows = self.rows(view, self.top_rows if inherited is None else inherited)
        out = dict(view)
        step = self._step(view, rows)
        if step is not None:
            def upright(encoding: dict) -> dict:
                x = encoding.get("x")
                if not isinstance(x, dict) or x.get("type") not in ("nominal", "ordinal") or x.get("axis", {}) is None:
                    return encoding
                axis = dict(x.get("axis") or {})
                angle = float(axis.get("labelAngle", 0))
                if angle == 0 or step * abs(math.sin(math.radians(angle))) >= self.label_size + 1:
                    return encoding
                axis["labelAngle"] = -90 if angle < 0 else 90
                if step < self.label_size + 1:
                    axis["labelOverlap"] = "parity"
                return encoding | {"x": x | {"axis": axis}}
            out = _each_encoding(out, upright)
        return _each_inner(out, lambda inner: self.labels_upright(inner, rows))

    def axis_titles_wrapped(self, view: dict, scale: float, inherited: list[dict] | None = None) -> dict:
        """An x axis title longer than its plot in lines that fit the plot (a phone's narrow plots)."""
        rows = self.rows(view, self.top_rows if inherited is None else inherited)
        out = dict(view)
        plot = self.content(view, rows) * scale if "mark" in view or "layer" in view else None

        def wrapped(encoding: dict) -> dict:
            x = encoding.get("x")
            title = x.get("title") if isinstance(x, dict) else None
            if plot is None or not isinstance(title, str) or text_width(title, self.text + 1) <= max(plot, 120):
                return encoding
            return encoding | {"x": x | {"title": _lines(title, self.text + 1, max(plot, 120))}}
        return _each_inner(_each_encoding(out, wrapped), lambda inner: self.axis_titles_wrapped(inner, scale, rows))

    def titles_wrapped(self, view: dict, room: float) -> dict:
        """Every title (the chart's, a panel's) longer than `room` px in lines that fit it."""
        out = dict(view)
        title = out.get("title")
        size = self.text + 3
        if isinstance(title, str) and text_width(title, size * 1.08) > room:   # titles are bold
            out["title"] = _lines(title, size, room)
            self.changed = True
        elif isinstance(title, dict) and isinstance(title.get("text"), str) \
                and text_width(title["text"], size * 1.08) > room:
            out["title"] = title | {"text": _lines(title["text"], size, room)}
            self.changed = True
        return _each_inner(out, lambda inner: self.titles_wrapped(inner, room), parts=(*CONCATS, "layer"))


def legend_titles_wrapped(view: dict, text: float = TEXT_SIZE) -> dict:
    """Every legend title line longer than Vega's limit for it (LEGEND_TITLE_LIMIT, grown with the text) in lines
    within it: Vega cuts such a line short ("peso: por encima / por deba…" on the calculator in Spanish)."""
    limit = LEGEND_TITLE_LIMIT * text / TEXT_SIZE - 2

    def lines(title):
        parts = title if isinstance(title, list) else [title]
        if not all(isinstance(part, str) for part in parts) \
                or all(text_width(part, text + 1) <= limit for part in parts):
            return title
        return [line for part in parts for line in _lines(part, text + 1, limit)]

    def wrapped(encoding: dict) -> dict:
        out = dict(encoding)
        for name in LEGEND_CHANNELS:
            channel = out.get(name)
            if not isinstance(channel, dict) or channel.get("legend", {}) is None:
                continue
            legend = channel.get("legend") or {}
            if "title" in legend and legend["title"] is not None:
                out[name] = channel | {"legend": legend | {"title": lines(legend["title"])}}
            elif "title" in channel and channel["title"] is not None:
                out[name] = channel | {"title": lines(channel["title"])}
        return out
    return _each_inner(_each_encoding(dict(view), wrapped), lambda inner: legend_titles_wrapped(inner, text),
                       parts=(*CONCATS, "layer"))


def _each_encoding(view: dict, change) -> dict:
    """A copy of `view` with `change` applied to its own encoding and to each of its layers'."""
    out = dict(view)
    if isinstance(out.get("encoding"), dict):
        out["encoding"] = change(out["encoding"])
    if isinstance(out.get("layer"), list):
        out["layer"] = [part | {"encoding": change(part["encoding"])} if isinstance(part, dict)
                        and isinstance(part.get("encoding"), dict) else part for part in out["layer"]]
    return out


def _each_inner(out: dict, change, parts: tuple[str, ...] = CONCATS) -> dict:
    """`out` (a copy the caller owns) with `change` applied to each view it concatenates and to the spec it
    repeats."""
    for part in parts:
        if isinstance(out.get(part), list):
            out[part] = [change(inner) if isinstance(inner, dict) else inner for inner in out[part]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = change(out["spec"])
    return out


def _dropped(view: dict, layers: set[int]) -> dict:
    """The spec without the layers named (by id)."""
    out = dict(view)
    if isinstance(out.get("layer"), list):
        out["layer"] = [inner for inner in out["layer"] if id(inner) not in layers]
    for part in (*CONCATS, "layer"):
        if isinstance(out.get(part), list):
            out[part] = [_dropped(inner, layers) if isinstance(inner, dict) else inner for inner in out[part]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = _dropped(out["spec"], layers)
    return out


def _limited(view: dict, limits: dict[int, int]) -> dict:
    """The spec with the text layers named in `limits` (by id) cut at that many px (Vega ends them with "…")."""
    out = dict(view)
    if id(view) in limits:
        mark = out.get("mark")
        out["mark"] = (dict(mark) if isinstance(mark, dict) else {"type": mark}) | {"limit": limits[id(view)]}
    for part in (*CONCATS, "layer"):
        if isinstance(out.get(part), list):
            out[part] = [_limited(inner, limits) if isinstance(inner, dict) else inner for inner in out[part]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = _limited(out["spec"], limits)
    return out


def _upright(encoding: dict) -> dict:
    """Slanted labels of a discrete x axis stood upright: on a phone a slanted label runs far past the plot's end."""
    x = encoding.get("x")
    if not isinstance(x, dict) or x.get("type") not in ("nominal", "ordinal") or not isinstance(x.get("axis"), dict):
        return encoding
    angle = float(x["axis"].get("labelAngle", 0))
    if angle == 0 or abs(angle) == 90:
        return encoding
    return encoding | {"x": x | {"axis": x["axis"] | {"labelAngle": -90 if angle < 0 else 90}}}


POSITION_AXIS = ("orient", "labelAngle", "labelAlign", "labelBaseline")   # what belongs to the side, not the field


def _transposed(view: dict) -> dict:
    """A grid turned a quarter: its x field down, its y field across, each side keeping where its axis sits and how
    its labels lean, and its cells their shape (a cell wide enough for a word stays so)."""
    def swap(encoding: dict) -> dict:
        if not (isinstance(encoding.get("x"), dict) and isinstance(encoding.get("y"), dict)):
            return encoding
        x, y = encoding["x"], encoding["y"]

        def moved(channel: dict, side: dict) -> dict:
            axis = channel.get("axis")
            if axis is None and "axis" in channel:
                return channel
            kept = {k: v for k, v in (axis or {}).items() if k not in POSITION_AXIS}
            placed = {k: v for k, v in (side.get("axis") or {}).items() if k in POSITION_AXIS}
            return channel | {"axis": kept | placed}
        return encoding | {"x": moved(y, x), "y": moved(x, y)}

    return _each_encoding(view, swap)


def _mark_type(view: dict) -> str:
    mark = view.get("mark")
    return mark.get("type", "") if isinstance(mark, dict) else str(mark or "")


def _mark_scaled(mark: dict, scale: float, heights: bool) -> dict:
    """A mark's own pixel sizes scaled: a picture's width and height, and on a projector the size of points
    and ticks (an area grows with the square)."""
    out = dict(mark)
    for side in ("width", "height"):
        if isinstance(out.get(side), (int, float)):
            out[side] = max(round(out[side] * scale), 1)
    if heights and scale > 1:
        if isinstance(out.get("size"), (int, float)):
            out["size"] = round(out["size"] * (scale ** 2 if out.get("type") in ("point", "circle", "square")
                                               else scale))
        if isinstance(out.get("thickness"), (int, float)):
            out["thickness"] = round(out["thickness"] * scale, 1)
    return out


def _square(view: dict) -> bool:
    """A view whose height follows its width: square bands (a heatmap's cells), equal sides, or a plot of exact
    size."""
    width, height = view.get("width"), view.get("height")
    if isinstance(width, dict) and isinstance(height, dict):
        return width.get("step") == height.get("step")
    if isinstance(width, (int, float)) and width == height:
        return True
    return (view.get("autosize") or {}).get("type") == "pad" and isinstance(width, (int, float)) \
        and isinstance(height, (int, float))


def _number_label(channel: dict, rows: list[dict]) -> str:
    """The longest label a quantitative axis is likely to print."""
    domain = (channel.get("scale") or {}).get("domain")
    values = [v for v in domain if isinstance(v, (int, float))] if isinstance(domain, list) else []
    field = channel.get("field")
    if not values and field:
        values = [row.get(field) for row in rows[:2000] if isinstance(row, dict)
                  and isinstance(row.get(field), (int, float)) and not isinstance(row.get(field), bool)]
    largest = max((abs(v) for v in values if math.isfinite(v)), default=1.0)
    negative = any(v < 0 for v in values)
    text = f"{largest:,.0f}" if largest >= 1000 else "0.00"
    return ("−" if negative else "") + text


WRITTEN_WITHOUT_SPACES = re.compile("[\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")   # Chinese
# a Chinese line starts with no closing mark and ends with no opening one: each clings to its character
OPENING, CLOSING = re.escape("（“‘《「『(["), re.escape("，。、；：？！）”’》」』,;:?!)]")
CHARACTER = re.compile(rf"[{OPENING}]*(?:[!-~]+|.)[{CLOSING}]*")   # a Latin run ("p_(i+k)") stays whole


def _pieces(word: str) -> list[str]:
    """A word as pieces a line may break between: whole, or, where it is written without spaces (Chinese), each of
    its characters, so a line fills up as in a Chinese book (a Latin run in it, "Transformer", kept whole, and a
    mark such as "，" or "（" kept with its neighbour)."""
    if not WRITTEN_WITHOUT_SPACES.search(word):
        return [word]
    return CHARACTER.findall(word)


def _lines(text: str, size: float, room: float) -> list[str]:
    """The text in lines of at most `room` px at `size` (a word longer than that keeps a line of its own; a Chinese
    one breaks between its characters)."""
    lines: list[str] = []
    for word in text.split(" "):
        for index, piece in enumerate(_pieces(word)):
            joined = f"{lines[-1]}{' ' if index == 0 else ''}{piece}" if lines else piece
            if lines and text_width(joined, size * 1.08) <= room:   # titles are bold
                lines[-1] = joined
            else:
                lines.append(piece)
    return lines
