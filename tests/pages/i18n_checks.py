"""What the pages' language tests share (issue 41): a page run in the pseudo language (engine.i18n.PSEUDO) must show
no plain English outside what may stay English on purpose:
- formulas (LaTeX: symbols, and the model tokens and example words inside them), what a sentence quotes from the
  model ('crane', `code`), and a token picker's options ("2: the");
- references as published (authors, year, title) and the further-reading list;
- the shell's own parts of every page (ui/: "Try this", "Download", "Show the code", "Next: ...", a challenge's
  "Hint: ..."), which the shell's catalog marks and its own tests check, not the page's.

Two ways in: `unmarked_english(page, query, tokens)` runs a page and returns its leftovers; `unmarked_left(at)` reads
an AppTest the caller has already run.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from engine import i18n
from tests.i18n_probe import WORD, visible_texts
from tests.pages.conftest import ROOT, no_exception

# what a page may show in English, and why
ALLOWED = (
    re.compile(r"^\$\$.*\$\$$", re.S),                        # a formula: maths, its words \text{crane} are tokens
    re.compile(r"^\$[^$]*\$$"),                               # an inline formula standing alone
    re.compile(r"^(- )?\[?[A-Z][\w.' -]+ (et al\. )?\d{4}"),   # a reference: authors, year, title as published
    re.compile(r"^- \[.*\]\(https?://"),                      # the further-reading list (the references above)
    re.compile(r"^\d+: \S+$"),                               # a token picker's option: "2: the"
)
SHELL = {"Try this", "Further reading", "Download", "Show the code", "Data", "What it prints:", "Python",
         ":material/check_circle:", "One row per line; numbers separated by spaces or commas."}
SHELL_PREFIXES = ("Try this", "Further reading", "Download", "Show the code", "Python", "Next: ", "Hint: ",
                  "- [", "$$", "**On this page:**", ":material/explore: **Beyond the chapter.**",
                  "The whole part of the chapter, redone step by step")      # ui.code's notebook line

INNERMOST = re.compile(re.escape(i18n.PSEUDO_OPEN) + "[^" + i18n.PSEUDO_OPEN + i18n.PSEUDO_CLOSE + "]*"
                       + re.escape(i18n.PSEUDO_CLOSE))
# what a sentence quotes from the model (engine.markup.said: a token, a prompt) stays as the model reads it: English
QUOTED = re.compile(r"'[^']*'|\$[^$]*\$|`[^`]*`|\\[A-Za-z]+|https?://\S+|:material/[a-z_]+:")


def english_left(text: str) -> bool:
    """Whether `text` holds an English word outside the pseudo brackets (nested ones too: a translated placeholder
    inside a translated message) and outside what it quotes from the model."""
    while True:
        stripped = INNERMOST.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    return bool(WORD.search(QUOTED.sub(" ", text)))


def allowed(text: str, tokens: tuple[str, ...] = ()) -> bool:
    """Whether an English text on a pseudo page is one the allow-list names: a token, a formula, a reference, or the
    shell's words; HTML's own words (span, style, color) are no English a reader sees."""
    if text in tokens or text in SHELL or text.startswith(SHELL_PREFIXES) or any(p.search(text) for p in ALLOWED):
        return True
    untagged = re.sub(r"<[^>]+>", " ", text)
    return untagged != text and not english_left(untagged)


def unmarked_left(at: AppTest, tokens: tuple[str, ...] = ()) -> list[str]:
    """The run page's visible English that nobody marked, less what `allowed` lets stay."""
    return [text for text in visible_texts(at) if english_left(text) and not allowed(text, tokens)]


def run_in(page: str, lang: str, query: dict[str, str] | None = None) -> AppTest:
    """The page run with `?lang=` (and the query's other values)."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=300)
    at.query_params["lang"] = lang
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def unmarked_english(page: str, query: dict[str, str] | None = None, tokens: tuple[str, ...] = ()) -> list[str]:
    """The page run in the pseudo language: what it still shows in plain English, less the allow-list."""
    at = run_in(page, i18n.PSEUDO.code, query)
    no_exception(at)
    return unmarked_left(at, tokens)
