"""The language of this session: `?lang=` in the link, else what the browser asks for (st.context.locale), else
English. Chosen once per run, before anything is drawn (app.py), and made the running thread's translation
(engine.i18n.activate: one translation object per session, never gettext's process-wide install()). A fragment
that reruns alone finds it again through the resolver registered here.
"""
from __future__ import annotations

import streamlit as st

from engine import i18n
from ui.url_state import LANG_PARAM

LANGUAGE_KEY = "app.language"   # session: the language code this session reads


def _asked() -> str | None:
    """The language the link names, else the browser's, as one of ours (None: neither is one we speak)."""
    linked = i18n.negotiate(st.query_params.get(LANG_PARAM))
    if linked:
        return linked
    try:
        return i18n.negotiate(st.context.locale)
    except Exception:   # no browser behind this run (AppTest, a bare script)
        return None


def choose() -> i18n.Language:
    """Set and activate this session's language for this run: a link's ?lang= wins over what the session read
    before (a shared link opens in its language); without one the session keeps its language."""
    linked = i18n.negotiate(st.query_params.get(LANG_PARAM))
    if linked or LANGUAGE_KEY not in st.session_state:
        st.session_state[LANGUAGE_KEY] = linked or _asked() or i18n.SOURCE
    return i18n.activate(st.session_state[LANGUAGE_KEY])


def _session_language() -> str | None:
    try:
        return st.session_state.get(LANGUAGE_KEY)
    except Exception:
        return None


i18n.set_resolver(_session_language)
