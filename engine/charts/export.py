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
from xml.sax.saxutils import escape

from engine.charts import text
from engine.charts.style import TEXT_SIZE, with_text
from engine.limits import EXPORT_DEFAULT_WIDTH, EXPORT_MAX_PIXELS, EXPORT_MAX_ROWS

PNG_SCALE = 2            # the PNG's pixels per SVG pixel (sharp on slides and high-density screens)
BACKGROUND = "white"     # a printed or projected chart sits on white, whatever the page's theme


def _sized(value, default: int = EXPORT_DEFAULT_WIDTH):
    """A width or height the server can draw: 'container' (the page's column) becomes `default` px."""
    return default if value == "container" else value


def standalone(spec: dict) -> dict:
    """The spec drawn on its own: text at the page's default size, a white background, and a fixed
    width where the page lets it fill its column. The spec itself is not changed."""
    if not isinstance(spec, dict) or not spec:
        raise ValueError("This chart cannot be downloaded: it has nothing to draw.")
    count = len(text.rows(spec))
    if count > EXPORT_MAX_ROWS:
        raise ValueError(f"This chart draws {count:,} values, more than the {EXPORT_MAX_ROWS:,} a download can "
                         "hold: make it smaller (fewer tokens or a shorter text) to download it.")
    out = with_text(spec, TEXT_SIZE)
    out = {key: value for key, value in out.items() if not str(key).startswith("_")}
    out["background"] = BACKGROUND
    for side in ("width", "height"):
        if side in out:
            out[side] = _sized(out[side], EXPORT_DEFAULT_WIDTH if side == "width" else EXPORT_DEFAULT_WIDTH // 2)
    if isinstance(out.get("autosize"), dict) and str(out["autosize"].get("type", "")).startswith("fit"):
        out["autosize"] = {"type": "pad"}   # no column to fit: the chart keeps the size it asks for
    return out


def check(spec: dict) -> None:
    """Raise ValueError (a sentence) where this chart cannot be downloaded, without drawing it."""
    standalone(spec)


def file_stem(spec: dict) -> str:
    """A file name for the chart: its title in lower case, words joined by '-' ('chart' without one)."""
    words = re.findall(r"[a-z0-9]+", text.title(spec).lower())
    return "-".join(words)[:60].strip("-") or "chart"


def _check_size(svg: str) -> None:
    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg)
    if match:
        width, height = float(match.group(1)) * PNG_SCALE, float(match.group(2)) * PNG_SCALE
        if width * height > EXPORT_MAX_PIXELS:
            raise ValueError(f"This chart would be {width:,.0f} x {height:,.0f} pixels, larger than a download can "
                             "be: make it smaller (fewer tokens or rows) to download it.")


def _convert(spec: dict) -> str:
    import vl_convert  # only when asked: the page never pays for loading it

    try:
        return vl_convert.vegalite_to_svg(standalone(spec), allowed_base_urls=[])
    except ValueError as error:
        if "cannot be downloaded" in str(error) or "a download can" in str(error):
            raise
        raise ValueError(f"This chart could not be drawn for download ({str(error)[:200]}).") from error


def svg(spec: dict) -> bytes:
    """The chart as an SVG file (UTF-8) whose <title> is the chart's one-sentence summary."""
    drawing = _convert(spec)
    _check_size(drawing)
    title = f"<title>{escape(text.summary(spec))}</title>"
    drawing = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + title, drawing, count=1)
    return drawing.encode("utf-8")


def png(spec: dict) -> bytes:
    """The chart as a PNG at PNG_SCALE times its size, on white: the SVG drawing, rasterised (one Vega run)."""
    import vl_convert

    drawing = _convert(spec)
    _check_size(drawing)
    try:
        return vl_convert.svg_to_png(drawing, scale=PNG_SCALE)
    except ValueError as error:
        raise ValueError(f"This chart could not be drawn for download ({str(error)[:200]}).") from error


def csv_text(spec: dict) -> str:
    """The chart's Data table (every row, the cells as the page shows them) as CSV."""
    columns, cells, _ = text.table(spec, limit=EXPORT_MAX_ROWS)
    if not columns:
        raise ValueError("This chart has no table of numbers to download.")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(cells)
    return out.getvalue()
