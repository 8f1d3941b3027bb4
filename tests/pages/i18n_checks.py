"""Checks that a page speaks the reader's language (issue 41), shared by the attention pages' tests.

`unmarked_english(page, query)` runs a page in the pseudo language (tests/i18n_probe.py) and returns what it still
shows in plain English, less the allow-list: what stays English on purpose (model tokens, example words, code,
formulas, references' titles) and what the app's shared parts (ui/, the shell) draw around a page, which their own
tests check.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from engine import i18n
from tests.i18n_probe import BRACKETED, WORD, unmarked
from tests.pages.conftest import ROOT, no_exception

# what a page may show in English, and why
ALLOWED = (
    re.compile(r"^\$\$.*\$\$$", re.S),                        # a formula: maths, its words \text{crane} are tokens
    re.compile(r"^(- )?\[?[A-Z][\w.' -]+ (et al\. )?\d{4}"),   # a reference: authors, year, title as published
    re.compile(r"^- \[.*\]\(https?://"),                      # the further-reading list (the references above)
    re.compile(r"^\d+: \S+$"),                               # a token picker's option: "2: the"
)
SHELL = (   # drawn by ui/ (the shell's helper marks these): the page's own text is checked, not the frame's
    "Try this", "Further reading", "Download", "Show the code", "Python", "Next: ", "Hint: ",
    "One row per line; numbers separated by spaces or commas.",
    ":material/check_circle:",
)


def run_in(page: str, lang: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / page), default_timeout=300)
    at.query_params["lang"] = lang
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def allowed(text: str, tokens: tuple[str, ...] = ()) -> bool:
    """Whether an English text on a pseudo page is one the allow-list names: a token, a formula, a reference, or
    the frame's words (a challenge's "Hint: ⟦...⟧": the page's own message inside it is marked)."""
    if text in tokens or any(pattern.search(text) for pattern in ALLOWED) or any(text.startswith(frame)
                                                                                for frame in SHELL):
        return True
    untagged = re.sub(r"<[^>]+>", " ", text)   # HTML's own words (span, style, color) are no English a reader sees
    return untagged != text and not unmarked_words(untagged)


def unmarked_words(text: str) -> bool:
    """Whether a text still holds an English word outside the pseudo brackets (as tests/i18n_probe.py reads it)."""
    rest = BRACKETED.sub(" ", text)
    rest = re.sub(r"`[^`]*`|\$[^$]*\$|\\[A-Za-z]+|https?://\S+|:material/[a-z_]+:", " ", rest)
    return bool(WORD.search(rest))


def unmarked_english(page: str, query: dict[str, str] | None = None, tokens: tuple[str, ...] = ()) -> list[str]:
    at = run_in(page, i18n.PSEUDO.code, query)
    no_exception(at)
    return [text for text in unmarked(at) if not allowed(text, tokens)]
