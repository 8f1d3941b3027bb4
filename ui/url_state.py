"""A page's teaching state, declared once, mirrored in the URL so a teacher can send a link
to the exact view.

Each page declares its shareable values once, in its spec in the engine (engine.chapter: a PageSpec's Params,
with their defaults, parsers and labels, as the TensorFlow Playground's `state.ts` does), read here with
`STATE = PageState(PAGE)`.
Session keys are prefixed by the page (`attention.x`), so two pages never share a key;
the URL keeps the short name (`?x=...`), so links stay short and stable.

- `STATE.init()` before the widgets: seeds each value that the session does not hold yet,
  from the link first, then from what the student had the last time they were on this page,
  then from the default. A link value that cannot be used gives the default and a sentence.
- `STATE.key("x")` is the widget key; `STATE["x"]` reads the value.
- `STATE.mirror()` after the widgets: writes the values back into the URL, and keeps them so
  that leaving the page and coming back does not lose the student's work.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

import streamlit as st

from engine.chapter.spec import (  # noqa: F401  (the parsers, re-exported while pages move into the engine)
    UNFIT, UNREADABLE, Fallback, PageSpec, Param, between, default_dump, one_of, parse_bool, text,
)

_KEPT = "_url_state_kept"  # {page: {name: value}}: what each page held when last mirrored
PRESENT_PARAM = "present"   # ?present=1 opens any page in projector mode (ui/shell.py)
CLASS_PARAM = "class"       # ?class=CODE joins a class (ui/classroom.py); kept so a reload stays in it
LANG_PARAM = "lang"         # ?lang=es: the page's language (ui/language.py); a shared link and a class QR keep it
TEACH_PARAM = "teach"       # a teacher link's key (ui/classroom.py): read once, then dropped from the link
# the app's own URL parameters: every page keeps them in its link (an identity never is one: a browser's id lives
# in its cookie, ui/app_server.py, so a link can never act as someone)
APP_PARAMS = (PRESENT_PARAM, CLASS_PARAM, LANG_PARAM)
DECLARED: dict[str, "PageState"] = {}  # page -> its declared state, as last run (tests read every page's Params)
_AFRESH = "_url_state_afresh"   # set for one run: the page opens its link as a first visit would (open_afresh)
_RUN = threading.local()        # the PageState the page running in this thread declared (a session's run: one thread)


WIDTH_REPORTED_KEY = "app.column_new"   # session: the browser has just reported a new width (ui.screen sets it)


def width_just_reported() -> bool:
    """Whether this run is the one the browser asked for by reporting a new width (once: the flag is consumed).

    The page's widgets are then drawn with their values set again (PageState.init): the report can come while the
    browser is still drawing the page's first run, before its widgets have handed the browser's widget manager the
    values that run set, and the rerun came back with them empty (the calculator's X, its sliders at their minimum)
    although the server held them (its charts showed the defaults). Here, not in ui.screen: ui.screen stands on
    ui.projector, which stands on this module."""
    try:
        return bool(st.session_state.pop(WIDTH_REPORTED_KEY, False))
    except Exception:   # no session
        return False


class PageState:
    """The declared state of one page; see the module docstring."""

    def __init__(self, page: str | PageSpec, *params: Param) -> None:
        if isinstance(page, PageSpec):
            self.spec: PageSpec | None = page
            page, params = page.key, (*page.params, *params)
        else:
            self.spec = None
        self.page = page
        self.params = {p.name: p for p in params}
        if len(self.params) != len(params):
            raise ValueError(f"{page}: a parameter is declared twice")
        DECLARED[page] = self
        _RUN.declared = self

    def key(self, name: str) -> str:
        """The session key of this page's value (or widget) `name`: never shared with another page."""
        return f"{self.page}.{name}"

    def __getitem__(self, name: str) -> Any:
        return st.session_state[self.key(name)]

    def __setitem__(self, name: str, value: Any) -> None:
        st.session_state[self.key(name)] = value

    def __contains__(self, name: str) -> bool:
        return self.key(name) in st.session_state

    def get(self, name: str, default: Any = None) -> Any:
        return st.session_state.get(self.key(name), default)

    def setdefault(self, name: str, value: Any) -> Any:
        return st.session_state.setdefault(self.key(name), value)

    def pop(self, name: str) -> None:
        st.session_state.pop(self.key(name), None)

    def init(self, *names: str, defaults: dict[str, Any] | None = None) -> None:
        """Seed the named values (all declared ones if none named) that the session lacks.

        `defaults` overrides declared defaults for this call (say, sizes that follow a preset)."""
        if st.session_state.pop(_AFRESH, False):
            self.forget()
        if width_just_reported():   # the page's values sent to the browser again (ui.screen says why)
            for name in names or tuple(self.params):
                if self.key(name) in st.session_state:
                    st.session_state[self.key(name)] = st.session_state[self.key(name)]
        kept = st.session_state.setdefault(_KEPT, {}).get(self.page, {})
        for name in names or tuple(self.params):
            param = self.params[name]
            key = self.key(name)
            if key in st.session_state:
                continue
            default = (defaults or {}).get(name, param.default)
            raw = st.query_params.get(name)
            if raw is not None:
                try:
                    st.session_state[key] = param.parse(raw)
                    continue
                except (ValueError, TypeError, KeyError, OverflowError):
                    _said_cannot_use(name, raw, default, UNREADABLE)
            st.session_state[key] = kept.get(name, default)

    def forget(self) -> None:
        """Drop everything this session holds for the page (its keys and what it kept from the last visit), so
        that its next `init` seeds each value from the link, as a first visit would."""
        prefix = f"{self.page}."
        for key in [key for key in st.session_state if isinstance(key, str) and key.startswith(prefix)]:
            del st.session_state[key]
        st.session_state.setdefault(_KEPT, {}).pop(self.page, None)

    def link_values(self) -> dict[str, str]:
        """The values `init` would give this page now, as link text (its name -> text): the session's value,
        else the link's (one it can read), else the one kept from the last visit, else the default. What the
        page's link will hold once it mirrors, known before the page runs (unless the page changes a value
        after `init`: a class publishes the mirrored link too)."""
        kept = st.session_state.get(_KEPT, {}).get(self.page, {})
        values = {}
        for name, param in self.params.items():
            key = self.key(name)
            if key in st.session_state:
                value = st.session_state[key]
            else:
                raw = st.query_params.get(name)
                try:
                    value = param.parse(raw) if raw is not None else kept.get(name, param.default)
                except (ValueError, TypeError, KeyError, OverflowError):
                    value = kept.get(name, param.default)
            values[name] = param.dump(value)
        return values

    def fall_back(self, name: str, default: Any) -> None:
        """The value `name` holds does not fit what the page found out after `init` (a layer the chosen model
        lacks): `default` instead, with the same sentence as a link value that cannot be read."""
        _said_cannot_use(name, self.params[name].dump(self[name]), default, UNFIT)
        self[name] = default

    def mirror(self, names: Sequence[str] | None = None) -> None:
        """Write the current values into the URL (only `names`, if given) and keep them for a
        return visit. Parameters this page does not declare are dropped from the URL (the app's own,
        APP_PARAMS, stay)."""
        kept = st.session_state.setdefault(_KEPT, {}).setdefault(self.page, {})
        for name in list(st.query_params):
            if name not in self.params and name not in APP_PARAMS:
                del st.query_params[name]
        changed = {}
        for name in self.params if names is None else names:
            key = self.key(name)
            if key not in st.session_state:
                continue
            value = st.session_state[key]
            kept[name] = value
            dumped = self.params[name].dump(value)
            if st.query_params.get(name) != dumped:
                changed[name] = dumped
        if changed:   # one message to the browser, not one per value (a first visit, a class's move, a preset)
            st.query_params.update(changed)


def open_afresh() -> None:
    """The page of this run opens its link as a first visit would: at its first `init`, what the session holds
    for the page gives way to the link's values (a class's student following the teacher, ui/classroom.py).
    Said before the page runs; `end_afresh` after it, for a page that declares no state."""
    st.session_state[_AFRESH] = True


def end_afresh() -> None:
    st.session_state.pop(_AFRESH, None)


def start_run() -> None:
    """Before a page runs: forget which PageState the last run in this thread declared (`declared_this_run`)."""
    _RUN.declared = None


def declared_this_run() -> PageState | None:
    """The PageState the page that just ran declared (None: a page without one, like the home page)."""
    return getattr(_RUN, "declared", None)


def _said_cannot_use(name: str, raw: str, default: Any, why: str) -> None:
    st.warning(Fallback(name, raw, default, why).sentence(), icon=":material/link_off:")
