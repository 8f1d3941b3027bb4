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


PICKER_KEY = "app.language_picker"   # the sidebar's picker (its value: a language code)


def _picked() -> None:
    """The picker's on_change, before the rerun it causes: the session reads the picked language, and the link says
    so (?lang=), so that this one ordinary rerun draws the same page, every setting kept, in the new language."""
    code = st.session_state[PICKER_KEY]
    st.session_state[LANGUAGE_KEY] = code
    st.query_params[LANG_PARAM] = code


def picker() -> None:
    """The sidebar's language picker: the app's languages, each by its own name."""
    st.session_state[PICKER_KEY] = i18n.current().code if i18n.current().code in i18n.LANGUAGES else i18n.SOURCE
    st.sidebar.selectbox(i18n._("Language"), list(i18n.LANGUAGES), key=PICKER_KEY, on_change=_picked,
                         format_func=lambda code: i18n.LANGUAGES[code].name)


# The document's language and direction: Streamlit has no API for <html lang dir>, so a small script sets them
# (a screen reader and axe read `lang`; `dir` turns the page and the sidebar right to left). What reads left to right
# in every language (formulas, code, charts, tables and matrices of numbers) is kept so by RTL_STYLE.
DOCUMENT_SCRIPT = """<script>
(() => {{ const root = window.document.documentElement; root.lang = "{lang}"; root.dir = "{direction}"; }})();
</script>"""

RTL_STYLE = """<style>
[data-testid='stMain'], [data-testid='stSidebar'] { direction: rtl; text-align: right; }
/* Streamlit aligns its elements' text left: to the start of the line instead (the right, here) */
[data-testid='stElementContainer'], [data-testid='stHeading'], [data-testid='stMarkdownContainer'],
[data-testid='stCaptionContainer'], [data-testid='stWidgetLabel'], h1, h2, h3, h4, h5, h6, p, li
  { text-align: start; }
.katex, .katex-display, [data-testid='stCode'], pre, code, [data-testid='stVegaLiteChart'],
[data-testid='stTable'], [data-testid='stDataFrame'], [data-testid='stTextArea'] textarea,
[data-testid='stNumberInput'] input, [data-testid='stSlider'] [data-baseweb='slider'],
details.chart-data table { direction: ltr; unicode-bidi: isolate; }
.katex-display { text-align: center; }
/* a word in a formula (\text{...}) is set apart: an Arabic word would otherwise turn the numbers after it around
   ("السابق(16, 0)" drawn as (0, 16)), and itself reads right to left */
.katex .text { unicode-bidi: plaintext; }
/* a box's text reads in the direction of its first letter: a chosen token "0: crane", an analogy
   "france : paris :: italy : ?", a prompt in English, a table cell "8 x 8" stay in order; Arabic reads right to left */
[data-testid='stSelectbox'] input, [data-testid='stTextInput'] input, [role='option'], [data-testid='stTable'] td,
[data-testid='stTable'] th { unicode-bidi: plaintext; }
/* a chart's own words (an Arabic axis title with its brackets) read in the direction of their first letter */
[data-testid='stVegaLiteChart'] svg text { unicode-bidi: plaintext; }
/* the sidebar, folded away: Streamlit moves it off the left edge, but right to left it sits at the right edge and
   its contents ran back over the page (a phone's width) */
[data-testid='stSidebar'][data-collapsed='true'], [data-testid='stSidebar'][data-collapsed='true'] *
  { visibility: hidden !important; }
[data-testid='stTable'] th, [data-testid='stTable'] td { text-align: left; }
</style>"""


def document() -> None:
    """Set the page's `lang` and `dir` for this session's language; in a right-to-left one, its styles."""
    chosen = i18n.current()
    lang = chosen.code if chosen.code in i18n.LANGUAGES else "en"
    if chosen.direction == "rtl":
        st.html(RTL_STYLE)   # styles alone: applied with the page's own (a script's element is drawn later)
    st.html(DOCUMENT_SCRIPT.format(lang=lang, direction=chosen.direction), unsafe_allow_javascript=True)
