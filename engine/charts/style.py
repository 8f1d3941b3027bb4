"""The one text style every chart wears, the layouts a chart is drawn in (a phone's column, a desktop's, a
projector's), and the small helpers builders share: the padding round a chart, value axes that fit their
data, distinct and visible labels, text widths, and charts set side by side."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from engine.charts.fields import titled
from engine.numbers import vega_locale


TEXT_SIZE = 13             # px: the text every chart draws as built (a desktop, a download, paper)
PROJECTOR_TEXT_SIZE = 24   # the same charts on a projector: numbers read from the back of a hall at 1920 px
MIN_TEXT_SIZE = 11         # px: no chart text is drawn smaller, on any screen (numbers in a phone's narrow cells)
NARROW_PX = 640            # a place narrower than this is a phone's: panels side by side go one under the other
PROJECTOR_GROW = 2.5       # on a projector a chart grows up to this many times its size, as far as its place allows
PROJECTOR_COLUMN_PX = 1280  # the main column of a 1920 px projector, sidebar open (until the browser says)
COLUMN_GAP_PX = 20         # the gap between a page's columns (1rem; 20 px in projector mode's larger type)


@dataclass(frozen=True)
class Layout:
    """Where a chart is drawn: the width of its place in px (None: not known, so the chart keeps the sizes its
    builder gave it, as on paper and in a download), its text size, how many times its size it may grow to fill
    its place, and whether the screen is a phone's (narrow: panels one under the other, legends under their charts;
    a chart in a part of a wider screen's column is not). engine.charts.fitting fits a spec to it."""
    width: int | None = None
    text: int = TEXT_SIZE
    grow: float = 1.0
    narrow: bool = False

    def share(self, part: float) -> Layout:
        """The layout of a place that takes `part` of this one's width (one of a page's columns, less its share of
        the gaps between columns)."""
        if self.width is None:
            return self
        return Layout(max(int(self.width * part) - COLUMN_GAP_PX, 1), self.text, self.grow, self.narrow)


DESKTOP = Layout()   # as built: what AppTest, the handout and the downloads draw


def layout_for(column_px: int | None, projector: bool) -> Layout:
    """The layout of a page's main column, `column_px` wide as its browser reports it (None: not reported yet),
    in projector mode or not: a projector's text at PROJECTOR_TEXT_SIZE, its charts grown to fill the column."""
    if projector:
        return Layout(column_px or PROJECTOR_COLUMN_PX, PROJECTOR_TEXT_SIZE, PROJECTOR_GROW)
    return Layout(column_px, narrow=column_px is not None and column_px < NARROW_PX)
# px left, top and right of each chart (Streamlit sets the bottom: 20 px, when the chart leaves it unset)
CHART_PADDING = {"left": 5, "top": 5, "right": 5}
AXIS_LABEL_LIMIT = 180     # px an axis label may take before Vega shortens it with "…"
LEGEND_LABEL_LIMIT = 400   # ... a legend label (a model's or a prompt's name)
LEGEND_TITLE_LIMIT = 180   # ... a legend title line (Vega's own limit, grown with the text)


def text_config(size: int = TEXT_SIZE) -> dict:
    """Vega-Lite config for every text a chart draws: axis and legend labels `size` px, their titles
    one more, chart titles three more, facet headers, and text marks (cell numbers, bar labels).
    The builders set no font sizes of their own, so this block decides them all. Labels may run
    longer than Streamlit's theme allows (100 px on an axis, Vega's 160 in a legend) before Vega
    cuts them short with an ellipsis."""
    limit = size / TEXT_SIZE   # the label limits grow with the text
    # on a projector a legend's ramp and symbols grow with its text (Vega's own: a 200 x 16 px ramp, 100 px² symbols)
    grown = {} if size == TEXT_SIZE else {"gradientLength": round(200 * limit), "gradientThickness": round(16 * limit),
                                          "symbolSize": round(100 * limit ** 2)}
    return {"axis": {"labelFontSize": size, "titleFontSize": size + 1, "labelLimit": round(AXIS_LABEL_LIMIT * limit)},
            "legend": {"labelFontSize": size, "titleFontSize": size + 1,
                       "labelLimit": round(LEGEND_LABEL_LIMIT * limit),
                       "titleLimit": round(LEGEND_TITLE_LIMIT * limit), **grown},
            "header": {"labelFontSize": size, "titleFontSize": size + 1},
            "title": {"fontSize": size + 3, "subtitleFontSize": size},
            "text": {"fontSize": size}}


def with_text(spec: dict, size: int = TEXT_SIZE) -> dict:
    """The spec (a shallow copy) with text_config(size) merged into its top-level config; the
    spec's other config entries are kept, its font sizes replaced. CHART_PADDING round the chart
    unless it sets its own: Vega measures a rotated axis title by its font size, the browser draws
    the glyphs' ascent beyond that, and with Streamlit's padding (none but the bottom) past the
    chart's left edge. The reader's number signs go in as `config.locale` (engine.numbers.vega_locale; none in
    English), replaced each time, so a spec made in one language and drawn in another shows the second's."""
    config = dict(spec.get("config") or {})
    for part, sizes in text_config(size).items():
        config[part] = {**(config.get(part) or {}), **sizes}
    number_locale = vega_locale()   # the reader's decimal and group signs on axes and in format strings
    if number_locale is None:
        config.pop("locale", None)
    else:
        config["locale"] = number_locale
    for part in ("axisX", "axisY"):   # a label size that depends on the label (one_character_labels): its default
        label_size = (config.get(part) or {}).get("labelFontSize")
        if isinstance(label_size, dict) and "condition" in label_size:
            config[part] = config[part] | {"labelFontSize": label_size | {"value": size}}
    return spec | {"config": config, "padding": spec.get("padding", CHART_PADDING)}


ONE_CHARACTER_TEST = "length(datum.label) == 1"   # a Vega test: the axis label is one character


def one_character_labels(size: int, *, font: str | None = None) -> dict:
    """An axis config (config.axisX or axisY) drawing each one-character label (',', '.', '↵') at `size` px in
    bold, every other label at the text size (with_text fills it in): at 13 px a comma is a speck of 2-3 px.
    `font` (say "monospace") for the one-character labels too."""
    test = ONE_CHARACTER_TEST
    config = {"labelFontSize": {"condition": {"test": test, "value": size}, "value": TEXT_SIZE},
              "labelFontWeight": {"condition": {"test": test, "value": "bold"}, "value": "normal"}}
    if font is not None:
        config["labelFont"] = font
    return config


def styled(builder: Callable[..., dict]) -> Callable[..., dict]:
    """Decorate a chart builder: its spec leaves with text_config() as its config (every builder in
    engine/charts/ wears this, so the sizes are decided here once), and with its fields titled in the reader's
    language (engine.charts.fields.titled)."""
    @functools.wraps(builder)
    def build(*args, **kwargs) -> dict:
        return with_text(titled(builder(*args, **kwargs)))

    build.styled = True
    return build


def panel(spec: dict) -> dict:
    """A chart to place inside a concatenation: without its config and padding (Vega-Lite takes them
    only at the top level; the concatenation carries them)."""
    return {key: value for key, value in spec.items() if key not in ("config", "padding")}


@styled
def side_by_side(*charts: dict, shared_colour: bool = False) -> dict:
    """Charts in one row drawn at the sizes they ask for; one colour scale for all when they compare like with like.

    Each chart's rows move to the top level as a named dataset (panel_0, panel_1, ...): Streamlit
    ships top-level data as Arrow, which for thousands of cells is cheaper than rows inside the spec.
    """
    datasets, panels = {}, []
    for number, chart in enumerate(charts):
        part = panel(chart)
        data = part.get("data")
        if isinstance(data, dict) and "values" in data:
            datasets[f"panel_{number}"] = data["values"]
            part["data"] = {"name": f"panel_{number}"}
        panels.append(part)
    return {"hconcat": panels, "spacing": 40, "datasets": datasets,
            "resolve": {"scale": {"color": "shared" if shared_colour else "independent"}}}


def nice_bound(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (times a power of ten) at or above value;
    1 for nothing positive."""
    if not np.isfinite(value) or value <= 0:
        return 1.0
    power = 10.0 ** np.floor(np.log10(value))
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if step * power >= value * (1 - 1e-12):
            return float(round(step * power, 12))
    return float(10 * power)


def value_scale(largest: float, *, headroom: float = 1.1, cap: float | None = None) -> dict:
    """A zero-based value axis that fits the data: it ends at the nice bound just above the largest
    value (times `headroom`, room for a printed number), at most `cap` (1 for probabilities)."""
    top = nice_bound(float(largest) * headroom)
    return {"domain": [0, min(top, cap) if cap is not None else top], "nice": False}


def unique_labels(labels: list[str]) -> list[str]:
    """Axis labels must be distinct for Vega-Lite; repeated words get their position appended."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        label = str(label)
        if label in seen or labels.count(label) > 1:
            seen[label] = seen.get(label, 0) + 1
            out.append(f"{label} ({seen[label]})")
        else:
            seen[label] = 0
            out.append(label)
    return out


# Helvetica's advance widths (thousandths of the font size) for ' ' .. '~'; Arial and Liberation Sans, which
# browsers use for Helvetica where it is missing, have the same metrics (tests/engine/charts/test_charts_diagrams.py
# checks them against Liberation Sans). Streamlit draws chart text in Source Sans, which is narrower: a width
# counted here is never too small.
_HELVETICA = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, *[556] * 10, 278, 278, 584,
    584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722,
    667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556,
    222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]
_WIDEST = 1015              # any other character: as wide as the widest (never too small a box)


def _other_width(code: int) -> int:
    """Thousandths of an em of a character outside printable ASCII: none for a mark that draws nothing (an accent
    combined with its letter, Arabic's vowel signs, the direction marks), a broad letter's for an accented Latin
    letter or an Arabic one, the widest for the rest (Chinese, Korean, symbols: never too small a box)."""
    if 0x300 <= code <= 0x36F or 0x64B <= code <= 0x65F or code == 0x670 or 0x200B <= code <= 0x200F \
            or 0x2066 <= code <= 0x2069:
        return 0
    if 0xA0 <= code <= 0x24F or 0x600 <= code <= 0x6FF or 0xFB50 <= code <= 0xFDFF or 0xFE70 <= code <= 0xFEFF:
        return 667
    return _WIDEST


def text_width(text: str, font_px: float) -> float:
    """The width of one line of text in Helvetica at font_px, in px."""
    return sum(_HELVETICA[ord(c) - 32] if 32 <= ord(c) <= 126 else _other_width(ord(c)) for c in text) * font_px / 1000


def visible(token: str) -> str:
    """A token as a label: spaces as '␣', line breaks as '↵', tabs as '⇥'."""
    return token.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5") or "(empty)"


RIGHT_TO_LEFT_LETTERS = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")   # Hebrew, Arabic and their forms
RLM = "\u200f"   # the right-to-left mark: a strong right-to-left letter that draws nothing


def right_to_left_marked(spec: dict) -> dict:
    """The spec with every title (the chart's, a panel's, an axis's, a legend's, a facet header's; each line of a
    wrapped one) that holds a right-to-left letter beginning with RLM. A chart's texts are drawn each in the direction
    of its first strong letter (`unicode-bidi: plaintext`, ui.language): an Arabic title that begins with a formula
    ("P(b | a) بين ...", "(V = 28,860)" on a wrapped title's last line) would otherwise be laid out left to right, its
    words in the wrong order. Titles in Latin letters alone (a token, a model's name) are left as they are; so is the
    data."""
    def mark(text):
        if isinstance(text, str):
            return RLM + text if RIGHT_TO_LEFT_LETTERS.search(text) and not text.startswith(RLM) else text
        if isinstance(text, list):
            return [mark(line) for line in text]
        return text

    def walk(node):
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for name, value in node.items():
            if name in ("data", "datasets", "values"):
                out[name] = value
            elif name in ("title", "subtitle"):
                out[name] = ({key: mark(part) if key in ("text", "subtitle") else walk(part)
                              for key, part in value.items()} if isinstance(value, dict) else mark(value))
            else:
                out[name] = walk(value)
        return out
    return walk(spec)
