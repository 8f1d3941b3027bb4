"""A page's teaching state mirrored in the URL, so a teacher can send a link to the exact view.

Call `init` before a widget with the same key (URL -> session_state, once per session per
key) and `mirror` after the widgets (session_state -> URL). A hand-edited parameter that
does not parse falls back to the default with a warning, never a traceback.
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

_SEEN = "_url_state_loaded"


def init(key: str, default: Any, parse: Callable[[str], Any] = str) -> None:
    """Seed st.session_state[key] from ?key=... once; otherwise from the default."""
    loaded = st.session_state.setdefault(_SEEN, set())
    if key in loaded and key in st.session_state:
        return
    loaded.add(key)
    raw = st.query_params.get(key)
    if raw is None:
        st.session_state.setdefault(key, default)
        return
    try:
        st.session_state[key] = parse(raw)
    except (ValueError, TypeError, KeyError):
        st.warning(f"The link's value for '{key}' ({raw[:40]!r}) could not be read; using the default.",
                   icon=":material/link_off:")
        st.session_state[key] = default


def mirror(keys: list[str], dump: dict[str, Callable[[Any], str]] | None = None) -> None:
    """Write the current values of these keys into the URL's query parameters."""
    dump = dump or {}
    for key in keys:
        if key in st.session_state:
            value = st.session_state[key]
            text = dump.get(key, _default_dump)(value)
            if st.query_params.get(key) != text:
                st.query_params[key] = text


def _default_dump(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def between(low: float, high: float, kind: Callable[[str], Any] = int) -> Callable[[str], Any]:
    """A parser for a bounded number: `init("k", 1, between(0, 6))`. A link's value outside
    [low, high] falls back to the default with a warning instead of crashing the widget."""
    def parse(raw: str) -> Any:
        value = kind(raw)
        if not low <= value <= high:  # also rejects NaN
            raise ValueError(f"{raw} is outside {low}..{high}")
        return value
    return parse


def parse_bool(raw: str) -> bool:
    """'1', 'true', 'yes', 'on' -> True; '0', 'false', 'no', 'off' -> False."""
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)
