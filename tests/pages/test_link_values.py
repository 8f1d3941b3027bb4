"""Every page's every link value, hand-edited to something the page cannot use, falls back to the page's
default with a sentence naming it: never silently to another value, never an exception (README: "Links
survive hand edits").

For each page and each bad value, the page is opened from a link that gives that value to every parameter it
declares (`ui.url_state.DECLARED`), in each context that draws the parameter's widget (Beyond words' audio
settings only show with ?kind=audio). Each parameter must then hold either what its parser made of the value
(a free text takes "<script>" as text, and its widget shows it) or the value the page opens with, and then a
warning names it.
"""
from __future__ import annotations

import pytest

from tests.pages.conftest import run_file
from ui import url_state
from ui.path import ideas

BAD = {
    "a word": "seven",
    "nan": "nan",
    "infinity": "inf",
    "huge": "99999999999999",
    "negative": "-1",
    "float overflow": "1e308",
    "script": "<script>alert(1)</script>",
}

# links that draw widgets the default page hides; the parameters they set stay as given
CONTEXTS = {
    "views/beyond_words.py": [{}, {"kind": "audio"}, {"kind": "protein"}],
    "views/ngram.py": [{}, {"smoothing": "add-k"}],
    "views/block_builder.py": [{}, {"bb_preset": "custom"}],
}


def declared(at) -> url_state.PageState:
    """The PageState the page file just declared (the one whose keys the page's session holds)."""
    for state in url_state.DECLARED.values():
        if any(state.key(name) in at.session_state for name in state.params):
            return state
    raise AssertionError("the page declared no url_state.PageState")


def value_of(at, key: str):
    return at.session_state[key] if key in at.session_state else None


def widget_values(at) -> dict:
    """Each keyed widget's value as drawn."""
    shown = {}
    for kind in ("text_input", "text_area", "number_input", "selectbox", "slider", "select_slider", "checkbox",
                 "toggle", "radio", "multiselect"):
        for widget in getattr(at, kind, []) if kind != "select_slider" else at.get("select_slider"):
            key = getattr(widget, "key", None)
            if key:
                try:
                    shown[key] = widget.value
                except Exception:   # a widget AppTest cannot read back (format_func over non-strings)
                    pass
    return shown


def problems_with(file: str, context: dict[str, str], label: str, raw: str) -> list[str]:
    base = run_file(file, context, timeout=240)
    assert not base.exception, base.exception[0].value
    state = declared(base)
    opened = {name: value_of(base, state.key(name)) for name in state.params}
    query = {name: raw for name in state.params if name not in context}
    at = run_file(file, {**context, **query}, timeout=240)
    if at.exception:
        return [f"?{label}: exception {at.exception[0].value.splitlines()[0][:200]}"]
    warned = " ".join(w.value for w in at.warning)
    drawn = widget_values(at)
    found = []
    for name in query:
        param = state.params[name]
        key = state.key(name)
        value = value_of(at, key)
        try:
            parsed, usable = param.parse(raw), True
        except Exception:
            parsed, usable = None, False
        if usable and value == parsed and (key not in drawn or drawn[key] == value):
            continue                          # taken as given, and shown so
        if value == opened[name] and (f"'{name}'" in warned or (usable and parsed == param.default)):
            continue                          # the page's own value, and a sentence says so
        found.append(f"{name}={raw[:30]!r} ({label}) became {value!r}" + ("" if f"'{name}'" in warned else
                                                                           ", no sentence"))
    return found


PAGES = [idea.file for idea in ideas()]


@pytest.mark.parametrize("file", PAGES, ids=lambda file: file.split("/")[-1][:-3])
def test_every_bad_link_value_gives_the_default_and_a_sentence(file):
    found = []
    for context in CONTEXTS.get(file, [{}]):
        for label, raw in BAD.items():
            found += problems_with(file, context, f"{label} {context or ''}", raw)
    assert not found, "\n".join(found)
