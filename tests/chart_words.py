"""The words a person reads on a chart, from its Vega-Lite spec: titles and subtitles, axis titles, legend titles and
legend entries, tooltips' field titles, facet headers, and the words of text marks drawn from a field that names
things (a diagram's node labels). Vega-Lite titles an axis, a legend or a tooltip row with its field's name where
the spec gives no title, so a field named in English is English on the chart.

    python -m tests.chart_words views/position.py [name=value ...]

runs a page under the pseudo language and prints each chart word left unmarked (model names, tokens and numbers may
stay; judge what it prints).
"""
from __future__ import annotations

import json
import re
import sys

GUIDED = ("x", "y", "color", "fill", "stroke", "shape", "size", "opacity", "strokeDash", "strokeWidth", "theta",
          "radius", "row", "column", "facet")
LEGENDS = ("color", "fill", "stroke", "shape", "size", "opacity", "strokeDash", "strokeWidth")
GUIDE = {"x": "axis", "y": "axis", "row": "header", "column": "header", "facet": "header"}


def _title(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, dict):
        return _title(value.get("text")) + _title(value.get("subtitle"))
    return []


def _rows(view: dict, inherited: list[dict], datasets: dict) -> list[dict]:
    data = view.get("data")
    if isinstance(data, dict):
        if "values" in data:
            return list(data["values"])
        if "name" in data:
            return list(datasets.get(data["name"], []))
    return inherited


def _channel_words(channel: dict, name: str, rows: list[dict], *, legend_entries: bool) -> list[str]:
    guide_key = GUIDE.get(name, "legend")
    guide = channel.get(guide_key, {})
    if guide is None or "value" in channel or "datum" in channel or "field" not in channel and "title" not in channel:
        return []
    if name in LEGENDS and channel.get("scale", {}) is None:
        return []
    words = []
    if isinstance(guide, dict) and "title" in guide:
        words += _title(guide["title"])
    elif "title" in channel:
        words += _title(channel["title"])
    elif isinstance(channel.get("field"), str):
        words.append(channel["field"])
    if legend_entries and name in LEGENDS and channel.get("type") in ("nominal", "ordinal") and "field" in channel:
        domain = (channel.get("scale") or {}).get("domain")
        values = domain if isinstance(domain, list) else [row.get(channel["field"]) for row in rows]
        words += [v for v in dict.fromkeys(values) if isinstance(v, str)]
    return words


def _titled(channel: dict, name: str) -> bool:
    guide = channel.get(GUIDE.get(name, "legend"))
    return "title" in channel or isinstance(guide, dict) and "title" in guide


def _explicit(view: dict) -> frozenset:
    """The axes a layered view or one of its layers titles explicitly: Vega-Lite titles such a shared axis by that
    title alone, not by the other layers' field names."""
    found = set()
    for part in [view, *view.get("layer", [])]:
        for name, channel in ((part.get("encoding") or {}) if isinstance(part, dict) else {}).items():
            if name in ("x", "y") and isinstance(channel, dict) and _titled(channel, name):
                found.add(name)
    return frozenset(found)


def chart_words(spec: dict, *, text_fields: tuple[str, ...] = (), legend_entries: bool = True) -> list[str]:
    """Every word a reader reads on the chart `spec` (see the module's docstring), in order, each once. The values
    of text marks are included only for the fields named in `text_fields` (a text mark also draws numbers and
    tokens, which stay as they are)."""
    found: list[str] = []
    datasets = spec.get("datasets", {})

    def visit(view: dict, inherited: list[dict], explicit: frozenset = frozenset()) -> None:
        rows = _rows(view, inherited, datasets)
        found.extend(_title(view.get("title")))
        if isinstance(view.get("layer"), list):   # a title one layer gives its shared axis wins over field names
            explicit = explicit | _explicit(view)
        encoding = view.get("encoding") or {}
        for name in GUIDED:
            channel = encoding.get(name)
            if isinstance(channel, dict):
                if name in explicit and not _titled(channel, name):
                    channel = {k: v for k, v in channel.items() if k != "field"} | {"title": None} \
                        if name not in LEGENDS else channel
                found.extend(_channel_words(channel, name, rows, legend_entries=legend_entries))
        tooltip = encoding.get("tooltip")
        for row in tooltip if isinstance(tooltip, list) else [tooltip] if isinstance(tooltip, dict) else []:
            if "title" in row:
                found.extend(_title(row["title"]))
            elif isinstance(row.get("field"), str):
                found.append(row["field"])
        text = encoding.get("text")
        if isinstance(text, dict) and text.get("field") in text_fields:
            found.extend(str(row.get(text["field"])) for row in rows if row.get(text["field"]) is not None)
        for child in view.get("layer", []):
            visit(child, rows, explicit)
        for part in ("hconcat", "vconcat", "concat"):
            for child in view.get(part, []):
                visit(child, rows)
        if isinstance(view.get("spec"), dict):
            visit(view["spec"], rows)

    visit(spec, [])
    return list(dict.fromkeys(w for w in found if w))


def page_chart_specs(at) -> list[dict]:
    """The specs of every Vega-Lite chart an AppTest run drew."""
    return [json.loads(chart.proto.spec) for kind in ("vega_lite_chart", "arrow_vega_lite_chart")
            for chart in at.get(kind)]


def english_chart_words(specs: list[dict], allowed: tuple[str, ...] = (), **options) -> list[str]:
    """Under the pseudo language: the chart words with an English word outside the pseudo brackets, less those
    `allowed` names (model names, tokens)."""
    from tests.pages.i18n_checks import english_left
    return [word for spec in specs for word in chart_words(spec, **options)
            if english_left(word) and word not in allowed and not any(re.fullmatch(a, word) for a in allowed)]


def main(argv: list[str]) -> int:
    from engine import i18n
    from tests.pages.i18n_checks import run_in
    at = run_in(argv[0], i18n.PSEUDO.code, dict(pair.partition("=")[::2] for pair in argv[1:]))
    if at.exception:
        print("EXCEPTION:", [e.value for e in at.exception])
    specs = page_chart_specs(at)
    left = english_chart_words(specs)
    for word in left:
        print("-", word)
    print(f"{len(specs)} charts, {len(left)} chart words in plain English")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
