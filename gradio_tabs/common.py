"""What every tab shares: engine calls whose ValueError becomes a gr.Error, whole-number checks,
the engine's Vega-Lite specs as gr.Plot values, tables, each tab's question, and the Space's static text (labels,
help texts, buttons, headings) as keys the visitor's browser translates (`say`, `static`, `space_i18n`)."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import math
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable

import gradio as gr
import numpy as np
import pandas as pd
from gradio.components.plot import PlotData
from gradio.i18n import I18nData

from engine import i18n, limits, markup, numbers
from engine.i18n import N_, _, pgettext

LANG_PARAM = "lang"        # ?lang=es in the Space's address, as in the Streamlit app's links
ERROR_TITLE = N_("That input does not work")   # shown as _(ERROR_TITLE)
ALPHA_TABLE = N_("α (row: query, column: key)")   # a table of attention weights (the calculator's, a head's)


# --- the Space's static text: built once, translated in the visitor's browser ------------------------------------
# The Blocks are built once, at import, in no visitor's language. Every text they show before any event runs (a tab's
# name, a label, a help text, a button, a heading, a choice) is a gr.I18n key instead: the browser shows it in its own
# language from the dictionaries `space_i18n` makes from our catalogs, and in English where it reads none of ours.
# A key is the text's English (what the frontend shows without a dictionary; an API caller reads it in /info).
_TEXTS: dict[str, list[Callable[[], str]]] = {}   # key -> how it is written, in the running context's language
_I18N_MARK = "__i18n__"                            # how a key is written into a text (gradio.i18n.I18nData.__str__)
_NAMES: set[str] = set()
                           # keys that read the same in every language: names, tokens, sizes
# the frontend (gradio/templates/frontend, svelte-i18n) picks its locale among its own languages by the browser's
# tag (ko-KR -> ko, es-MX -> es, zh-CN as it is): where ours is not one of its names, the names it uses for it
_BROWSER_LOCALES = {"zh-Hans": ("zh-CN", "zh-TW")}


def static(render: Callable[[], str]) -> I18nData:
    """A static text of the Space: `render()` writes it in the running context's language (engine.i18n). Returns
    the gr.I18n key a component takes (as its label, info, value or a choice's name)."""
    with i18n.use(i18n.SOURCE):
        english = render()
    # the frontend reads a key up to its first "}": a text that holds one is keyed by its hash
    key = english if "}" not in english else "playground-" + hashlib.sha1(english.encode()).hexdigest()[:12]
    _TEXTS.setdefault(key, []).append(render)
    return I18nData(key)


def say(message: str, /, **params) -> I18nData:
    """A static text that is a message (`_(message, **params)` in each language): a label, a help text, a button."""
    return static(functools.partial(_, message, **params))


def kept(text: str) -> I18nData:
    """A static text that reads the same in every language: a model's name, a token, a paper size, an example."""
    _NAMES.add(text)
    return static(lambda: text)


def label_of(param) -> I18nData:
    """A page spec's parameter's label (engine.chapter.spec.Param: a message) as a static text."""
    return static(lambda: param.label)


def help_of(param) -> I18nData:
    """A page spec's parameter's help text as a static text."""
    return static(lambda: param.help)


def choices(shown: dict) -> list[tuple[I18nData, object]]:
    """A Radio's or a Dropdown's choices, {value: its name (a message, or a name that reads the same everywhere)}, as
    (static text, value): the value stays what the engine and the API take."""
    return [(static(functools.partial(_, message)), value) for value, message in shown.items()]


def read(text) -> str:
    """A component's label (or any static text) as the running context's language writes it: for a sentence that
    names the box. Takes the key in any of the forms Gradio passes it on (I18nData, "__i18n__{...}", a dict)."""
    key = text.key if isinstance(text, I18nData) else text.get("key") if isinstance(text, dict) else None
    if isinstance(text, str) and text.startswith(_I18N_MARK):
        key = json.loads(text[len(_I18N_MARK):]).get("key")
    if key is None:
        return "" if text is None else str(text)
    renders = _TEXTS.get(key)
    return renders[0]() if renders else key


def plain_api_labels(demo: gr.Blocks) -> None:
    """The endpoints' parameters and returns named in English text in the API's description (/info, what
    gradio_client reads and *Use via API* shows), not as the keys the browser translates."""
    described = demo.get_api_info

    @functools.wraps(described)
    def get_api_info(*args, **kwargs):
        info = described(*args, **kwargs)
        for endpoints in (info.get("named_endpoints") or {}, info.get("unnamed_endpoints") or {}):
            for endpoint in endpoints.values():
                for item in [*endpoint.get("parameters", []), *endpoint.get("returns", [])]:
                    if "label" in item:
                        with i18n.use(i18n.SOURCE):
                            item["label"] = read(item["label"])
        return info
    demo.get_api_info = get_api_info


def static_texts(code: str) -> dict[str, str]:
    """Every static text of the Space, key -> text in the language `code` (the pseudo language too)."""
    with i18n.use(code):
        return {key: renders[0]() for key, renders in _TEXTS.items()}


def kept_texts() -> set[str]:
    """The static texts that read the same in every language (names, tokens, sizes)."""
    return set(_NAMES)


def browser_locales(code: str) -> tuple[str, ...]:
    """The locales under which the frontend looks up our language `code`."""
    return _BROWSER_LOCALES.get(code, (code,))


def space_i18n() -> gr.I18n:
    """The Space's gr.I18n (launch(i18n=...)): every static text in each of our languages, from the catalogs."""
    return gr.I18n(**{locale: static_texts(code) for code in i18n.LANGUAGES for locale in browser_locales(code)})


def engine_call(fn, *args, **kwargs):
    """Run an engine function; its ValueError sentence becomes a gr.Error the student reads."""
    try:
        return fn(*args, **kwargs)
    except ValueError as error:
        raise gr.Error(markup.html_text(str(error)), title=_(ERROR_TITLE)) from None


def refuse(sentence: str):
    """Bad input found here rather than in the engine: the same kind of sentence, the same way. Gradio's error box
    reads its message as HTML: what the sentence quotes of the input (a `<img src=...>`) is escaped (engine.markup)."""
    raise gr.Error(markup.html_text(sentence), title=_(ERROR_TITLE))


def whole(value, low: int, high: int, what: str) -> int:
    """A whole number from low to high (an API caller may send 2.5, nan or None), or a sentence."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or not float(value).is_integer():
        refuse(_("The {what} must be a whole number from {low} to {high}.", what=what, low=low, high=high))
    if not low <= int(value) <= high:
        refuse(_("The {what} must be from {low} to {high}.", what=what, low=low, high=high))
    return int(value)


def _plain(value):
    """numpy numbers and arrays inside a spec, as JSON can write them."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def plot(spec: dict, width: int | None = None) -> PlotData:
    """An engine chart (a plain Vega-Lite spec, engine/charts/) as a gr.Plot value: drawn by Vega as it is,
    with no Altair object built and no schema check on every call (the specs are checked in the tests).
    `width` (px) for a chart the Streamlit page stretches to its column: Vega's default is narrow."""
    if width is not None and "width" not in spec:
        spec = spec | {"width": width}
    if i18n.current().direction == "rtl":
        # drawn as SVG (vega-embed reads its options from the spec's usermeta), whose texts the page's style lets
        # read in their own direction (gradio_tabs.document): on a canvas an Arabic title's brackets turn around
        spec = spec | {"usermeta": (spec.get("usermeta") or {}) | {"embedOptions": {"renderer": "svg"}}}
    return PlotData(type="altair", plot=json.dumps(spec, default=_plain))


def chart(label: I18nData) -> gr.Plot:
    """An output for an engine chart. The label names it in the API and to screen readers; it is not drawn
    over the chart's corner, where it would hide the chart's own title or legend."""
    return gr.Plot(label=label, show_label=False)


def table(rows, columns: list[str] | None = None, *, digits: int | None = None,
          formats: dict[str, str] | None = None) -> pd.DataFrame:
    """Rows (dicts, or tuples with `columns`) as a DataFrame for gr.Dataframe; numbers stay numbers (what an API
    caller reads), and the browser shows them as the page prints them (`shown_table`): a float column with `digits`
    decimals (None: as many as the tab rounded it to), a column named in `formats` by its printf format ("%.2f"), a
    whole number grouped (2,359,296)."""
    frame = pd.DataFrame(list(rows), columns=columns)
    frame.attrs.update(digits=digits, formats=dict(formats or {}))
    return frame


def cell(value, digits: int = 3, printf: str | None = None) -> str:
    """One table cell as the page prints it, in the reader's language (engine.numbers: 0.190, 0,190 in Spanish):
    a float with `digits` decimals (or its printf format), a whole number grouped, text as it is; a missing one (None,
    or nan where a column of whole numbers has a gap: SmolLM2's tokens have no count) as an empty cell."""
    if value is None or (isinstance(value, (float, np.floating)) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return numbers.grouped(int(value)) if printf is None else numbers.localized(printf % value)
    if isinstance(value, (float, np.floating)):
        if printf is None or not math.isfinite(value):
            return numbers.fixed(value, digits)
        text = printf % value
        return numbers.localized(text[1:] if text.startswith("-") and not text.strip("-0.") else text)
    return str(value)


def decimals(values) -> int | None:
    """The decimals a column of floats was rounded to (the most any of them needs), or None for a column the tab did
    not round (a value needs more than numbers.MOST_DIGITS): a column rounded to 3 shows 0.19 as 0.190, as the
    heatmap beside it does."""
    needed = [next((d for d in range(numbers.MOST_DIGITS + 1) if round(v, d) == v), None)
              for v in values if isinstance(v, (float, np.floating)) and math.isfinite(v)]
    return None if None in needed else max(needed, default=0)


def column_texts(values: list, digits: int | None = None, printf: str | None = None) -> list[str]:
    """A table column's cells as the page prints them (`cell`): its floats with `digits` decimals, else with the
    decimals the tab rounded them to, else (sizes it did not round: 5.55e-17 beside 0) all written one way as the
    pages write such a column (engine.numbers.alike)."""
    places = digits if digits is not None else decimals(values)
    if places is None and printf is None:
        floats = [i for i, v in enumerate(values) if isinstance(v, (float, np.floating)) and math.isfinite(v)]
        written = dict(zip(floats, numbers.alike([values[i] for i in floats])))
        return [written[i] if i in written else cell(v) for i, v in enumerate(values)]
    return [cell(v, places if places is not None else 3, printf) for v in values]


def shown_table(frame: pd.DataFrame) -> dict:
    """A table as gr.Dataframe's value: its numbers as data (an API caller reads numbers, as before) and the text
    each cell shows (`column_texts`: Gradio's browser would write 0.190 as 0.19, in English's signs) as their display
    value, made in the running context's language (an event's: gradio_tabs.common.localize_events)."""
    digits, formats = frame.attrs.get("digits"), frame.attrs.get("formats") or {}
    data = frame.to_dict(orient="split")["data"]
    columns = [column_texts([row[i] for row in data], digits, formats.get(str(name)))
               for i, name in enumerate(frame.columns)]
    shown = [list(row) for row in zip(*columns)] if columns else [[] for _row in data]
    return {"headers": list(frame.columns), "data": data,
            "metadata": {"display_value": shown, "styling": [[""] * len(columns) for _row in data]}}


def results(chart_label: I18nData, table_label: I18nData, **table_options) -> list:
    """The outputs most endpoints return, [table, chart, summary]; drawn summary first, the chart, then the table."""
    summary = gr.Markdown(label=say("summary"))
    drawn = chart(chart_label)
    return [gr.Dataframe(label=table_label, **table_options), drawn, summary]


# --- the reader's language: one per request, never the process's ------------------------------------------------

def language_of(request: gr.Request | None) -> str:
    """The language a request reads: ?lang= in the Space's address (the call's own query, else the page's it came
    from, its Referer), else the browser's (Accept-Language), else English."""
    if request is None:
        return i18n.SOURCE
    from urllib.parse import parse_qs, urlsplit

    headers = getattr(request, "headers", None) or {}
    asked = [(getattr(request, "query_params", None) or {}).get(LANG_PARAM)]
    referer = headers.get("referer") or ""
    asked.append((parse_qs(urlsplit(referer).query).get(LANG_PARAM) or [None])[0])
    return chosen(asked, headers.get("accept-language"))


def chosen(asked: list[str | None], accept_language: str | None) -> str:
    """The first language of ours that `asked` (?lang= values, the strongest first) names, else the browser's
    (an Accept-Language header, in its order), else English: the Streamlit app's order (ui/language.py)."""
    asked = [*asked, *(tag.split(";")[0].strip() for tag in (accept_language or "").split(","))]
    for tag in asked:
        code = i18n.negotiate(tag) if tag else None
        if code is not None:
            return code
    return i18n.SOURCE


def _current_request() -> gr.Request | None:
    try:
        from gradio.context import LocalContext

        return LocalContext.request.get()
    except (ImportError, LookupError, AttributeError):
        return None


def in_language(fn, finish: Callable | None = None):
    """`fn` (an event's function) run in the language of the request that called it (engine.i18n.use: this call's
    context alone, never the process's), whatever kind of function it is (plain, generator, async). `finish`, where
    given, turns each of its results (a return, each step of a generator) into what Gradio is handed, in the same
    language: its tables as they are shown (`shown_outputs`)."""
    if getattr(fn, "_in_language", False):
        return fn
    done = finish or (lambda result: result)
    # a generator's steps may each run in a context of their own (Gradio runs a step per worker call): the language
    # found at its first step is set again before every step, never held across a yield
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def wrapped(*args, **kwargs):
            code = language_of(_current_request())
            steps = fn(*args, **kwargs)
            while True:
                i18n.activate(code)
                try:
                    item = done(await steps.__anext__())
                except StopAsyncIteration:
                    return
                yield item
    elif inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def wrapped(*args, **kwargs):
            with i18n.use(language_of(_current_request())):
                return done(await fn(*args, **kwargs))
    elif inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            code = language_of(_current_request())
            steps = fn(*args, **kwargs)
            while True:
                i18n.activate(code)
                try:
                    item = done(next(steps))
                except StopIteration as stop:
                    return stop.value
                yield item
    else:
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with i18n.use(language_of(_current_request())):
                return done(fn(*args, **kwargs))
    wrapped._in_language = True
    return wrapped


def shown_outputs(outputs: list) -> Callable | None:
    """For an event with these output components: a function that hands each table (a DataFrame bound for a
    gr.Dataframe, as it is or in a gr.update) on as it is shown (`shown_table`); None where the event fills no table."""
    tables = {i for i, component in enumerate(outputs) if isinstance(component, gr.Dataframe)}
    if not tables:
        return None

    def shown(value):
        if isinstance(value, pd.DataFrame):
            return shown_table(value)
        if isinstance(value, dict) and isinstance(value.get("value"), pd.DataFrame):
            return value | {"value": shown_table(value["value"])}
        return value

    def finish(result):
        if isinstance(result, dict) and not (result.get("__type__") == "update"):   # {component: value}
            return {component: shown(value) if isinstance(component, gr.Dataframe) else value
                    for component, value in result.items()}
        if len(outputs) == 1:
            return shown(result) if 0 in tables else result
        if isinstance(result, (tuple, list)):
            return type(result)(shown(value) if i in tables else value for i, value in enumerate(result))
        return result
    return finish


def localize_events(demo: gr.Blocks) -> None:
    """Every event of `demo` runs in its caller's language: the tab's sentences, charts, tables and errors. A table
    an event fills is read-only (Gradio's browser shows a table's display values only there; one an event also reads,
    as the take-home box does, would otherwise be editable, and shown as raw numbers)."""
    for block_fn in demo.fns.values():
        if block_fn.fn is not None:
            block_fn.fn = in_language(block_fn.fn, shown_outputs(list(block_fn.outputs)))
        for component in block_fn.outputs:
            if isinstance(component, gr.Dataframe):
                component.interactive = False


def question(asked: str | Callable[[], str], lead: str | Callable[[], str] = "") -> gr.Markdown:
    """The one question a tab answers (the page's own), and a line on what to do: each a message, or a function that
    writes it in the running context's language; one static text."""
    def written() -> str:
        line = lead() if callable(lead) else _(lead) if lead else ""
        return f"### {asked() if callable(asked) else _(asked)}" + (f"\n{line}" if line else "")
    return gr.Markdown(static(written))



def heading(message: str, /, **params) -> gr.Markdown:
    """A heading inside a tab (a message, marked N_ where written)."""
    return gr.Markdown(static(lambda: "#### " + _(message, **params)))


# --- at the door: argument types, uploads, heavy questions ------------------------------------------------------
# what each input component hands a tab, and what the sentence calls it (an API caller may send any JSON: a number
# where text goes, null, a list); gr.File and gr.State take what they are given
_EXPECTED = {
    gr.Textbox: ((str,), "text"),
    gr.Number: ((int, float), "number"),
    gr.Slider: ((int, float), "number"),
    gr.Checkbox: ((bool,), "boolean"),
    gr.Radio: ((str,), "choice"),
    gr.Dropdown: ((str,), "choice"),
}


def _wanted(kind: str, choices: str = "") -> str:
    """What a box takes, in the reader's words (the middle of "'k' takes a number, not text.")."""
    if kind == "choice":
        return pgettext("what a box takes", "one of its choices ({choices})", choices=choices)
    return {"text": pgettext("what a box takes", "text"), "number": pgettext("what a box takes", "a number"),
            "boolean": pgettext("what a box takes", "true or false"),
            "choices": pgettext("what a box takes", "a list of its choices")}[kind]


def _given(value) -> str:
    """What a caller sent, in a student's words."""
    if value is None:
        return pgettext("what a caller sent", "nothing")
    if isinstance(value, bool):
        return pgettext("what a caller sent", "true or false")
    if isinstance(value, (int, float)):
        return pgettext("what a caller sent", "a number")
    return {str: pgettext("what a caller sent", "text"), list: pgettext("what a caller sent", "a list"),
            dict: pgettext("what a caller sent", "a set of named values")}.get(
        type(value), pgettext("what a caller sent", "something else"))


def _numeric_choice(component, value) -> bool:
    """Whether `value` is a number and the component's choices are numbers (the sharpness β): Gradio hands it on."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    values = [c[1] if isinstance(c, tuple) else c for c in component.choices]
    return any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _box(component) -> str:
    """A box's name as a sentence quotes it: its label in the reader's language."""
    return read(component.label) or _("This input")


def _sentence_for(component, value) -> str | None:
    """None when `value` has the type `component` hands a tab, else the sentence saying what it takes."""
    for kind, (types, wanted) in _EXPECTED.items():
        if not isinstance(component, kind):
            continue
        if isinstance(component, gr.Dropdown) and component.multiselect:
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return None
            wanted = "choices"
        elif isinstance(value, types) and (bool in types or not isinstance(value, bool)):
            return None
        elif wanted == "choice" and _numeric_choice(component, value):
            return None
        if wanted == "choice" and getattr(component, "allow_custom_value", False):
            wanted = "text"
        values = [c[1] if isinstance(c, tuple) else c for c in getattr(component, "choices", None) or []]
        return _("'{box}' takes {wanted}, not {given}.", box=_box(component),
                 wanted=_wanted(wanted, ", ".join(f"'{v}'" for v in values)), given=_given(value))
    return None


def _number_sentence(component, value) -> str | None:
    """None for a number the component takes as it is, else the sentence: a number that is not one (nan, inf), or a
    fraction where the component takes whole numbers (precision 0: Gradio would cut 2.5 to 2 without a word)."""
    if not isinstance(component, (gr.Number, gr.Slider)) or isinstance(value, bool) \
            or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return _("'{box}' takes a number, not {value}.", box=_box(component), value=value)
    if getattr(component, "precision", None) == 0 and not float(value).is_integer():
        return _("'{box}' takes a whole number, not {value}.", box=_box(component),
                 value=numbers.localized(f"{value:g}"))
    return None


def _guarded(component):
    """The component's preprocess, after a check of the raw value's type (Gradio's own preprocess would answer a
    wrong type with its traceback's words: "'<' not supported between instances of 'str' and 'int'")."""
    preprocess = component.preprocess

    def checked(payload):
        with i18n.use(language_of(_current_request())):   # before the event's own call sets it (in_language)
            sentence = _sentence_for(component, payload) or _number_sentence(component, payload)
            if sentence is not None:
                refuse(sentence)
        return preprocess(payload)
    return checked


def check_types(demo: gr.Blocks) -> None:
    """Every input of every event checks its value's type before Gradio or a tab reads it: a sentence, never a
    Python message, for a number where text goes, a null, a list."""
    guarded = set()
    for block_fn in demo.fns.values():
        for component in block_fn.inputs:
            if id(component) not in guarded and isinstance(component, tuple(_EXPECTED)):
                component.preprocess = _guarded(component)
                guarded.add(id(component))


# Uploads live on disk only until the call that reads them ends: their bytes are kept in memory for the last few
# (limits.GRADIO_KEPT_UPLOADS), so a student who changes a slider and asks again is not made to upload again
_kept: "OrderedDict[str, bytes]" = OrderedDict()
_kept_lock = threading.Lock()


def upload_folder() -> Path:
    """Where Gradio's upload route puts what a browser or an API caller sends (GRADIO_TEMP_DIR, else the temp dir)."""
    from gradio.utils import get_upload_folder

    return Path(get_upload_folder()).resolve()


def is_upload(path: str) -> bool:
    """True for a path inside Gradio's upload folder (what its upload route wrote), or one this process read."""
    with _kept_lock:
        if path in _kept:
            return True
    try:
        Path(path).resolve().relative_to(upload_folder())
        return True
    except (ValueError, OSError, RuntimeError):
        return False


def _delete_upload(path: str) -> None:
    """The uploaded file and its folder (Gradio gives each upload a folder of its own) off the disk; only inside the
    upload folder (a path an explicit Python call names is never deleted)."""
    try:
        file = Path(path).resolve()
        file.relative_to(upload_folder())
    except (ValueError, OSError, RuntimeError):
        return
    with contextlib.suppress(OSError):
        file.unlink()
    with contextlib.suppress(OSError):
        if file.parent != upload_folder():
            file.parent.rmdir()          # only when empty


def upload_bytes(path: str, max_bytes: int, what: str) -> bytes:
    """An uploaded file's bytes, its size checked on disk first: a file over `max_bytes` is never read. Read or
    refused, the file leaves the disk as the call ends; its bytes stay in memory for the next few calls."""
    with _kept_lock:
        if path in _kept:
            _kept.move_to_end(path)
            return _kept[path]
    if not os.path.exists(path):
        refuse(_("{what} was removed from the server after it was read (it keeps only the last {n} uploads): choose "
                 "the file again.", what=what, n=limits.GRADIO_KEPT_UPLOADS))
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            refuse(_("{what} is {size} MB; the limit is {most} MB. Save a smaller copy.", what=what,
                     size=numbers.fixed(size / 1e6, 1), most=numbers.fixed(max_bytes / 1e6, 0)))
        with open(path, "rb") as file:
            data = file.read(max_bytes + 1)
    finally:
        _delete_upload(path)
    if is_upload(path):                  # an upload (not a path an explicit Python call named)
        with _kept_lock:
            _kept[path] = data
            while len(_kept) > limits.GRADIO_KEPT_UPLOADS:
                _kept.popitem(last=False)
    return data
