"""A page of the chapter as one table, read by every front end: its title and question, and its parameters.

A page's spec (`PageSpec`) is what the TensorFlow Playground's one table of settings is for a whole app: each
parameter once, with its link name, default, parser and widget label. The Streamlit view (`ui.url_state`), the
Gradio tab, the class questions, the lesson and the handout all read it, so none types a default, a limit or a
label of its own. Pure: no front end is imported here.

    PAGE = PageSpec("attention", "Attention calculator", "How does one token decide ...?", ...,
                    params=(Param("query", 0, between(0, limits.MAX_TOKENS - 1), label="Query token"), ...))
    values, fallbacks = PAGE.read({"query": "2"})       # typed values, every missing one at its default
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from engine import markup
from engine.i18n import N_, _

Values = Mapping[str, Any]


def default_dump(value: Any) -> str:
    """A value as link text: booleans as 1/0, everything else as str()."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


class Shown:
    """A field that holds an English message marked with N_ (a Param's label and help) and reads as it is shown: in
    the running context's language (engine.i18n), so every widget and sentence that reads `param.label` shows it
    translated, and a page's spec needs no more than `label=N_("Query token")`. `message(param, "label")` gives
    the English as written. An empty text stays empty (gettext's empty message is the catalog's header)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.stored = f"_{name}"

    def __get__(self, obj: Any, owner: type | None = None) -> str:
        if obj is None:
            return ""                         # the dataclass's default
        written = obj.__dict__.get(self.stored, "")
        return _(written) if written else written

    def __set__(self, obj: Any, value: str) -> None:
        obj.__dict__[self.stored] = value    # the frozen dataclass's __init__ sets it once, through here


def message(obj: Any, field_name: str) -> str:
    """A Shown field's English message as the spec wrote it (what a link or a test compares, whatever the
    language)."""
    return obj.__dict__.get(f"_{field_name}", "")


@dataclass(frozen=True)
class Param:
    """One value a page's link carries: its link name, default, parser (link text -> value, raising ValueError on
    text the page cannot use), dumper (value -> link text), and what the widget that sets it says: `label` and
    `help`, marked `N_("...")` in the spec and read in the session's language (Shown)."""
    name: str
    default: Any
    parse: Callable[[str], Any] = str
    dump: Callable[[Any], str] = default_dump
    label: str = Shown()   # type: ignore[assignment]
    help: str = Shown()    # type: ignore[assignment]


UNREADABLE = "could not be read"    # a Fallback's `why`: the link's text is not a value of the parameter
UNFIT = "does not fit here"         # ... or a value the page found does not fit (a layer the model lacks)
_FALLBACK_SENTENCES = {
    UNREADABLE: N_("The link's value for '{name}' ({raw}) could not be read; using the default ({default})."),
    UNFIT: N_("The link's value for '{name}' ({raw}) does not fit here; using the default ({default})."),
}


@dataclass(frozen=True)
class Fallback:
    """A link value a page could not use: the page shows `sentence()` (in the session's language) and uses the
    default instead. `why` is UNREADABLE or UNFIT."""
    name: str
    raw: str
    default: Any
    why: str = UNREADABLE

    def sentence(self) -> str:
        return _(_FALLBACK_SENTENCES[self.why], name=self.name, raw=markup.markdown(repr(self.raw[:40])),
                 default=markup.markdown(repr(default_dump(self.default)[:40])))


@dataclass(frozen=True)
class PageSpec:
    """One page of the chapter: where it lives, what it asks, and every value its link carries.

    `key` prefixes the page's session keys; `url` is its link's path; `view` names its file in each front end
    (views/<view>.py, gradio_tabs/<view>.py); `beyond` says, for a page beyond the chapter, what it adds;
    `questions` are the class questions it can ask (each `(values, sources) -> engine.classroom.store.Question`,
    reading `values(...)`'s typed values); `reading` its further reading (engine.chapter.references)."""
    key: str
    url: str
    title: str
    question: str
    one_line: str
    icon: str
    view: str
    params: tuple[Param, ...] = ()
    beyond: str = ""
    questions: tuple[Callable, ...] = ()
    presets: Mapping[str, Any] = field(default_factory=dict)
    reading: tuple[tuple[str, str], ...] = ()   # its further reading, (title, url): engine.chapter.references

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.key}: a parameter is declared twice")

    @property
    def by_name(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    def param(self, name: str) -> Param:
        return self.by_name[name]

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def read(self, link: Mapping[str, str]) -> tuple[dict[str, Any], list[Fallback]]:
        """A link's values (name -> text) as the page uses them: each parsed, a missing one at its default, one
        that cannot be read at its default with a Fallback saying so. Names the page does not declare are
        ignored."""
        values, fallbacks = {}, []
        for p in self.params:
            raw = link.get(p.name)
            if raw is None:
                values[p.name] = p.default
                continue
            try:
                values[p.name] = p.parse(str(raw))
            except (ValueError, TypeError, KeyError, OverflowError):
                values[p.name] = p.default
                fallbacks.append(Fallback(p.name, str(raw), p.default))
        return values, fallbacks

    def values(self, link: Mapping[str, str]) -> dict[str, Any]:
        """`read`'s values alone (the class questions, the handout: a value that cannot be read is the default,
        as the page shows it)."""
        return self.read(link)[0]

    def link(self, values: Values) -> dict[str, str]:
        """Values as link text (only the names the page declares)."""
        return {p.name: p.dump(values[p.name]) for p in self.params if p.name in values}


# --- parsers: link text -> a value, ValueError for text the page cannot use ---------------------------

def between(low: float, high: float, kind: Callable[[str], Any] = int) -> Callable[[str], Any]:
    """A bounded number: `Param("n", 3, between(1, 6))`. Outside [low, high], NaN and inf raise."""
    def parse(raw: str) -> Any:
        value = kind(raw)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{raw} is not a finite number")
        if not low <= value <= high:
            raise ValueError(f"{raw} is outside {low}..{high}")
        return value
    return parse


def one_of(choices: Iterable[Any], kind: Callable[[str], Any] = str) -> Callable[[str], Any]:
    """One of a fixed set of choices (a radio's or a selectbox's options)."""
    options = list(choices)

    def parse(raw: str) -> Any:
        value = kind(raw)
        if value not in options:
            raise ValueError(f"{raw!r} is not one of the choices")
        return value
    return parse


def text(max_chars: int) -> Callable[[str], str]:
    """Free text of at most `max_chars` characters (the text box's own limit)."""
    def parse(raw: str) -> str:
        if len(raw) > max_chars:
            raise ValueError(f"longer than {max_chars} characters")
        return raw
    return parse


def parse_bool(raw: str) -> bool:
    """'1', 'true', 'yes', 'on' -> True; '0', 'false', 'no', 'off' -> False."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)
