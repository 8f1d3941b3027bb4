"""The names of the charts' data fields, said in the reader's language.

A builder names its data's fields in English ("weight", "bits per character"): they are keys, which transforms,
sorts and tests refer to, and the columns of a chart's CSV download. Vega-Lite titles an axis, a legend or a tooltip's
row with its field's name wherever the spec gives no title, so every builder (engine.charts.style.styled) leaves
through `titled`: each field a reader would see named gets its title here, in the language of the run that built
the chart. A title the builder gave (None included: no title) is kept.
"""
from __future__ import annotations

import functools

from engine import i18n
from engine.i18n import pgettext

# the channels whose field a reader sees named: axes, legends, facet headers (a text mark's, a position's second
# end, an offset's do not name theirs)
NAMED_CHANNELS = ("x", "y", "color", "fill", "stroke", "shape", "size", "opacity", "strokeDash", "strokeWidth",
                  "theta", "radius", "row", "column", "facet")


def _titles() -> dict[str, str]:
    """Field name -> its title in the active language. The context keeps a field's word apart from the same English
    word elsewhere (a class's "prompt" is the question put to it; a chart's is what the model reads)."""
    return {
        "weight": pgettext("chart field", "weight"),
        "uniform 1/T": pgettext("chart field", "uniform 1/T"),
        "token": pgettext("chart field", "token"),
        "tokens": pgettext("chart field", "tokens"),
        "word": pgettext("chart field", "word"),
        "method": pgettext("chart field", "method"),
        "model": pgettext("chart field", "model"),
        "probability": pgettext("chart field", "probability"),
        "after temperature and top-k": pgettext("chart field", "after temperature and top-k"),
        "rank": pgettext("chart field", "rank"),
        "score": pgettext("chart field", "score"),
        "cosine": pgettext("chart field", "cosine"),
        "vocabulary": pgettext("chart field", "vocabulary"),
        "measure": pgettext("chart field", "measure"),
        "accuracy": pgettext("chart field", "accuracy"),
        "difference": pgettext("chart field", "difference"),
        "part": pgettext("chart field", "part"),
        "parameters": pgettext("chart field", "parameters"),
        "share": pgettext("chart field", "share"),
        "layout": pgettext("chart field", "layout"),
        "ratio": pgettext("chart field", "ratio"),
        "params": pgettext("chart field", "parameters"),
        "flops": pgettext("chart field", "floating-point operations"),
        "bits per character": pgettext("chart field", "bits per character"),
        "kind": pgettext("chart field", "kind"),
        "prompt": pgettext("chart field", "prompt"),
        "layer": pgettext("chart field", "layer"),
        "head": pgettext("chart field", "head"),
        "type": pgettext("chart field", "type"),
        "run": pgettext("chart field", "run"),
        "position": pgettext("chart field", "position"),
        "position t": pgettext("chart field", "position t"),
        "position i": pgettext("chart field", "position i"),
        "position j": pgettext("chart field", "position j"),
        "dimension": pgettext("chart field", "dimension"),
        "value": pgettext("chart field", "value"),
        "encoding": pgettext("chart field", "encoding"),
        "offset k": pgettext("chart field", "offset k"),
        "mean": pgettext("chart field", "mean"),
        "lowest": pgettext("chart field", "lowest"),
        "highest": pgettext("chart field", "highest"),
        "entries": pgettext("chart field", "entries"),
        "smoothing": pgettext("chart field", "smoothing"),
        "merges": pgettext("chart field", "merges"),
        "patch": pgettext("chart field", "patch"),
        "row": pgettext("chart field", "row"),
        "col": pgettext("chart field", "column"),
        "frame": pgettext("chart field", "frame"),
        "step": pgettext("chart field", "step"),
        "loss": pgettext("chart field", "loss"),
        "loss on": pgettext("chart field", "loss on"),
        "series": pgettext("chart field", "series"),
        "time": pgettext("chart field", "time"),
        "pair": pgettext("chart field", "pair"),
        "role": pgettext("chart field", "role"),
        "closer to": pgettext("chart field", "closer to"),
        "nearest": pgettext("chart field", "nearest"),
        "attention": pgettext("chart field", "attention"),
        "effect": pgettext("chart field", "effect"),
        "stretch": pgettext("chart field", "stretch"),
        "size": pgettext("chart field", "size"),
        "answers": pgettext("chart field", "answers"),
        "option": pgettext("chart field", "option"),
        "round": pgettext("chart field", "round"),
        "order": pgettext("chart field", "order"),
        "start": pgettext("chart field", "start"),
        "dot": pgettext("chart field", "dot product"),
        "from": pgettext("chart field", "from"),
        "to": pgettext("chart field", "to"),
        "query": pgettext("chart field", "query (attending)"),
        "key": pgettext("chart field", "key (attended to)"),
    }


@functools.lru_cache(maxsize=None)
def _titles_in(code: str) -> dict[str, str]:
    with i18n.use(code):
        return _titles()


def field_title(field: str) -> str | None:
    """The title of a field in the active language, or None for one that is not named here (a token, a symbol)."""
    return _titles_in(i18n.current().code).get(field)


def _titled_entry(entry: dict, guide: str | None) -> dict:
    if "title" in entry or not isinstance(entry.get("field"), str):
        return entry
    if guide is not None and isinstance(entry.get(guide), dict) and "title" in entry[guide]:
        return entry
    title = field_title(entry["field"])
    return entry if title is None else entry | {"title": title}


def _titled_encoding(encoding: dict, explicit: frozenset = frozenset()) -> dict:
    """The encoding with its named channels and tooltip rows titled; a channel in `explicit` is left as it is (see
    _explicit)."""
    out = dict(encoding)
    for name in NAMED_CHANNELS:
        if isinstance(out.get(name), dict) and name not in explicit:
            guide = GUIDES.get(name, "legend")
            out[name] = _titled_entry(out[name], guide)
    tooltip = out.get("tooltip")
    if isinstance(tooltip, list):
        out["tooltip"] = [_titled_entry(entry, None) if isinstance(entry, dict) else entry for entry in tooltip]
    elif isinstance(tooltip, dict):
        out["tooltip"] = _titled_entry(tooltip, None)
    return out


GUIDES = {"x": "axis", "y": "axis", "row": "header", "column": "header", "facet": "header"}


def _explicit(view: dict) -> set[str]:
    """The channels a layered view or one of its layers titles itself (None included). Vega-Lite draws one axis or
    legend for a channel its layers share, titled by the explicit title where one layer gives it and by every
    layer's field names joined where none does: a title given to a sibling's field ("from" of a band under a line)
    would join the explicit one ("position, from"), so such a channel is left untitled, as in English."""
    found = set()
    for part in [view, *view.get("layer", [])]:
        encoding = part.get("encoding") if isinstance(part, dict) else None
        for name, channel in (encoding or {}).items():
            if name in NAMED_CHANNELS and isinstance(channel, dict) and (
                    "title" in channel or isinstance(channel.get(GUIDES.get(name, "legend")), dict)
                    and "title" in channel[GUIDES.get(name, "legend")]):
                found.add(name)
    return found


def titled(spec: dict) -> dict:
    """The spec (copied where it changes) with a title in the reader's language on every named field that has none:
    axes, legends, facet headers and tooltips' rows, in every layer, panel and facet. In English the spec is left as
    it is: a field's name is its English title."""
    if i18n.is_source():
        return spec
    return _titled(spec)


def _titled(spec: dict, explicit: frozenset = frozenset()) -> dict:
    out = dict(spec)
    if isinstance(out.get("layer"), list):   # the layers share their axes and legends with this view's encoding
        explicit = explicit | frozenset(_explicit(out))
    if isinstance(out.get("encoding"), dict):
        out["encoding"] = _titled_encoding(out["encoding"], explicit)
    if isinstance(out.get("facet"), dict):
        out["facet"] = _titled_encoding(out["facet"]) if "field" not in out["facet"] else \
            _titled_entry(out["facet"], "header")
    if isinstance(out.get("layer"), list):
        out["layer"] = [_titled(child, explicit) if isinstance(child, dict) else child for child in out["layer"]]
    for part in ("hconcat", "vconcat", "concat"):   # panels have axes of their own
        if isinstance(out.get(part), list):
            out[part] = [_titled(child) if isinstance(child, dict) else child for child in out[part]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = _titled(out["spec"])
    return out
