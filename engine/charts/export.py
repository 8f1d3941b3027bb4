"""A chart to take home: the same Vega-Lite spec the page draws, drawn on the server as SVG or PNG
(vl-convert: Vega and Vega-Lite compiled into one library, no browser, nothing fetched), and its
Data table (engine.charts.text) as CSV.

Made only when a reader asks (ui/charts.py hands these functions to a download button as callables),
so a page change costs nothing more. A chart too large to draw raises ValueError with a sentence.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from xml.sax.saxutils import escape

from engine.i18n import _
from engine.numbers import grouped
from engine.charts import text
from engine.charts.style import TEXT_SIZE, right_to_left_marked, with_text
from engine.limits import EXPORT_DEFAULT_WIDTH, EXPORT_MAX_PIXELS, EXPORT_MAX_ROWS

PNG_SCALE = 2            # the PNG's pixels per SVG pixel (sharp on slides and high-density screens)
# the longest side of a PNG, in pixels (a 4K slide is 3,840 wide): a chart over half of it is drawn at 1x. A 48 x 48
# heatmap (2,263 x 2,364) was 4,526 x 4,728 at 2x, 21 million pixels to rasterise. Only whole scales: resvg took
# longer at 1.7x than at 2x (its fast path is for whole numbers)
PNG_MAX_SIDE = 4_000
BACKGROUND = "white"     # a printed or projected chart sits on white, whatever the page's theme


# cells past which a heatmap's download drops the white hairline around each cell: on 2,304 cells (48 x 48) the
# strokes doubled the time to rasterise (617 -> 322 ms at 1x, quiet machine), and at that size they read as a grid
STROKED_CELLS_MAX = 1_000


class Refused(ValueError):
    """A chart a download cannot hold (nothing to draw, too many values, too many pixels): its sentence says why."""

def _unstroked(view: dict) -> dict:
    """A view whose rect marks lose their stroke (layers included)."""
    out = dict(view)
    if isinstance(out.get("layer"), list):
        out["layer"] = [_unstroked(layer) if isinstance(layer, dict) else layer for layer in out["layer"]]
    mark = out.get("mark")
    if isinstance(mark, dict) and mark.get("type") == "rect" and "stroke" in mark:
        out["mark"] = {key: value for key, value in mark.items() if key not in ("stroke", "strokeWidth")}
    return out


def _sized(value, default: int = EXPORT_DEFAULT_WIDTH):
    """A width or height the server can draw: 'container' (the page's column) becomes `default` px."""
    return default if value == "container" else value


def standalone(spec: dict) -> dict:
    """The spec drawn on its own: text at the page's default size, a white background, and a fixed
    width where the page lets it fill its column. The spec itself is not changed."""
    if not isinstance(spec, dict) or not spec:
        raise Refused(_("This chart cannot be downloaded: it has nothing to draw."))
    count = len(text.rows(spec))
    if count > EXPORT_MAX_ROWS:
        raise Refused(_("This chart draws {count} values, more than the {most} a download can hold: make it smaller "
                        "(fewer tokens or a shorter text) to download it.", count=grouped(count),
                        most=grouped(EXPORT_MAX_ROWS)))
    out = with_text(spec, TEXT_SIZE)
    if count > STROKED_CELLS_MAX:
        out = _unstroked(out)
    out = {key: value for key, value in out.items() if not str(key).startswith("_")}
    out["background"] = BACKGROUND
    for side in ("width", "height"):
        if side in out:
            out[side] = _sized(out[side], EXPORT_DEFAULT_WIDTH if side == "width" else EXPORT_DEFAULT_WIDTH // 2)
    if isinstance(out.get("autosize"), dict) and str(out["autosize"].get("type", "")).startswith("fit"):
        out["autosize"] = {"type": "pad"}   # no column to fit: the chart keeps the size it asks for
    return right_to_left_marked(out)        # an Arabic title read from its first letter, as the page reads it


# --- right to left in the drawing -------------------------------------------------------------------------------
# Vega writes a wrapped title as one <text> of <tspan> lines, and an SVG text is laid out left to right unless told
# otherwise, whatever its letters: resvg (vl-convert's renderer) and a browser showing the SVG as an image put an
# Arabic title that begins with a formula in the wrong order ("α: 1 مجموع كل صف"), and resvg reordered a wrapped
# title's Arabic words across its lines, drawing one line over the other. So each line becomes a <text> of its own,
# and a text whose first strong letter reads right to left (an RLM included: right_to_left_marked) is embedded right
# to left (RLE ... PDF, which resvg honours where it ignores `direction`); Vega's anchors stay as they are.
_TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.DOTALL)
_TSPAN = re.compile(r"<tspan\b([^>]*)>(.*?)</tspan>", re.DOTALL)
RLE, PDF = "\u202b", "\u202c"


def _right_to_left(text: str) -> bool:
    """Whether the first strong letter of `text` (XML-escaped) reads right to left."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def _directed(attributes: str, text: str) -> str:
    return f"<text{attributes}>{RLE}{text}{PDF}</text>" if _right_to_left(text) else f"<text{attributes}>{text}</text>"


def right_to_left_drawn(svg: str) -> str:
    """Vega's SVG with each line of a wrapped text its own <text>, and a text that reads right to left laid out so."""
    if not any(unicodedata.bidirectional(char) in ("R", "AL") for char in svg):
        return svg

    def one(match: re.Match) -> str:
        attributes, inner = match.group(1), match.group(2)
        lines = _TSPAN.findall(inner)
        if not lines or _TSPAN.sub("", inner).strip() or re.search(r'\s[xy]="', attributes):
            return _directed(attributes, inner)
        out, x, y = [], 0.0, 0.0
        for span, line in lines:
            found_x, found_dy = re.search(r'\sx="([-\d.e]+)"', span), re.search(r'\sdy="([-\d.e]+)"', span)
            x = float(found_x.group(1)) if found_x else x
            y += float(found_dy.group(1)) if found_dy else 0.0
            out.append(_directed(f'{attributes} x="{x:g}" y="{y:g}"', line))
        return "".join(out)
    return _TEXT.sub(one, svg)


def check(spec: dict) -> None:
    """Raise ValueError (a sentence) where this chart cannot be downloaded, without drawing it."""
    standalone(spec)


def _greek_name(letter: re.Match) -> str:
    """A Greek letter spelled out for a file name: α -> ' alpha '."""
    return f" {unicodedata.name(letter.group()).split()[-1].lower()} "


def file_stem(spec: dict) -> str:
    """A file name for the chart: its title in lower case, words joined by '-' (without one, its builder's own
    sentence: a picture; else 'chart')."""
    own = spec.get("description") if isinstance(spec.get("description"), str) else ""
    title = re.sub(r"[α-ω]", _greek_name, (text.title(spec) or own.split(";")[0]).lower())
    words = re.findall(r"[a-z0-9]+", title)
    return "-".join(words)[:60].strip("-") or "chart"


def _svg_size(svg: str) -> tuple[float, float]:
    """The drawing's width and height in CSS pixels (0, 0 where the SVG does not say)."""
    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
    return (float(match.group(1)), float(match.group(2))) if match else (0.0, 0.0)


def _check_size(svg: str) -> None:
    width, height = _svg_size(svg)
    if width and height:
        width, height = width * PNG_SCALE, height * PNG_SCALE
        if width * height > EXPORT_MAX_PIXELS:
            raise Refused(_("This chart would be {width} x {height} pixels, larger than a download can be: make it "
                            "smaller (fewer tokens or rows) to download it.", width=grouped(round(width)),
                            height=grouped(round(height))))


def _convert(spec: dict) -> str:
    import vl_convert  # only when asked: the page never pays for loading it

    try:
        return right_to_left_drawn(vl_convert.vegalite_to_svg(standalone(spec), allowed_base_urls=[]))
    except Refused:
        raise
    except ValueError as error:
        raise ValueError(_("This chart could not be drawn for download ({error}).", error=str(error)[:200])) from error


def svg(spec: dict) -> bytes:
    """The chart as an SVG file (UTF-8) whose <title> is the chart's one-sentence summary."""
    drawing = _convert(spec)
    _check_size(drawing)
    title = f"<title>{escape(text.summary(spec))}</title>"
    drawing = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + title, drawing, count=1)
    return drawing.encode("utf-8")


def png(spec: dict) -> bytes:
    """The chart as a PNG at PNG_SCALE times its size (1x where its longest side would pass PNG_MAX_SIDE), on
    white: the SVG drawing, rasterised (one Vega run)."""
    return png_drawing(spec)[0]


def png_drawing(spec: dict, max_side: int = PNG_MAX_SIDE) -> tuple[bytes, float, float]:
    """The chart as a PNG (as `png`: 2x, or 1x where 2x would pass `max_side` pixels on its longest side), with the
    chart's own width and height in CSS pixels (the PNG's pixels divided by the scale it was drawn at)."""
    import vl_convert

    drawing = _convert(spec)
    _check_size(drawing)
    width, height = _svg_size(drawing)
    scale = max(1, min(PNG_SCALE, int(max_side // max(width, height)))) if width and height else PNG_SCALE
    try:
        return vl_convert.svg_to_png(drawing, scale=scale), width, height
    except ValueError as error:
        raise ValueError(_("This chart could not be drawn for download ({error}).", error=str(error)[:200])) from error


def csv_text(spec: dict) -> str:
    """The chart's Data table (every row, the cells as the page shows them) as CSV."""
    columns, cells, _left_out = text.table(spec, limit=EXPORT_MAX_ROWS)
    if not columns:
        raise ValueError(_("This chart has no table of numbers to download."))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(cells)
    return out.getvalue()
