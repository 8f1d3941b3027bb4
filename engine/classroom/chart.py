"""The class's answers as a bar chart: one bar per option and round, the right option marked, counts
printed on the bars, big enough to read from the back of a lecture hall (a plain Vega-Lite spec)."""
from __future__ import annotations

from typing import Sequence

from engine import numbers
from engine.charts.palette import BLUE, GREEN, GREY
from engine.charts.style import styled
from engine.i18n import N_, _

ROUND_COLOURS = [GREY, BLUE, GREEN, "#7b3294"]   # round 1 grey, then blue: "after talking" stands out
CHECK = "\u2713 "                                  # before the right option's label
BAR_PX = 44                                       # a bar's thickness: a room reads it from the back
TITLE = N_("The class's answers")


@styled
def answers_chart(options: Sequence[str], counts: Sequence[Sequence[int]], answer: int | None = None,
                  *, width: int = 640, title: str | None = None) -> dict:
    """Horizontal bars: counts[r][i] students chose option i in round r + 1 (rounds side by side per option).
    The right option's label gets a check mark, so the chart does not lean on colour alone. Its words and numbers
    in the reader's language; `options` as the reader reads them (Question.read)."""
    rows = []
    for r, round_counts in enumerate(counts):
        total = sum(round_counts) or 1
        for i, (option, count) in enumerate(zip(options, round_counts)):
            label = (CHECK if i == answer else "") + f"{chr(65 + i)}. {option}"
            rows.append({"option": label[:60], "round": _("round {n}", n=r + 1), "answers": int(count),
                         "share": _("{count} ({percent}%)", count=count,
                                    percent=numbers.fixed(100 * count / total, 0)), "order": i})
    several = len(counts) > 1
    y = {"field": "option", "type": "nominal", "sort": {"field": "order"}, "title": None,
         "axis": {"labelLimit": 420, "labelColor": "#000000"}}
    encoding = {"y": y, "x": {"field": "answers", "type": "quantitative", "title": _("students"),
                              "axis": {"tickMinStep": 1, "format": "d", "labelColor": "#000000"}}}
    if several:
        encoding["yOffset"] = {"field": "round", "type": "nominal", "sort": "ascending"}
        encoding["color"] = {"field": "round", "type": "nominal", "title": None,
                             "scale": {"range": ROUND_COLOURS[:len(counts)]}, "legend": {"orient": "top"}}
    bar_colour = {} if several else {"color": BLUE}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": _(TITLE) if title is None else title,
        "width": width,
        # rounds side by side: each round's bar BAR_PX ("for": "offset"; a position step had made every bar as tall as
        # the whole group, 100 px a bar with two rounds), one round: BAR_PX and a gap
        "height": {"step": BAR_PX, "for": "offset"} if several else {"step": BAR_PX + 12},
        "data": {"values": rows},
        "encoding": encoding,
        "layer": [
            {"mark": {"type": "bar", **bar_colour}},
            {"mark": {"type": "text", "align": "left", "dx": 6, "fontWeight": "bold"},
             "encoding": {"text": {"field": "share"}, "color": {"value": "#000000"}}},
        ],
    }
