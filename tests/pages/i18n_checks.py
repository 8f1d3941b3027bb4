"""What every page's language tests share: the pseudo probe's leftovers that a page's own helper cannot mark.

A page run in the pseudo language (engine.i18n.PSEUDO) must show no plain English outside `ALLOWED`: formulas
(LaTeX: symbols, model tokens and example words inside them), and the shell's own parts of every page (ui/:
"Try this", "Download", "Show the code", the further reading's titles of papers, "Next: ..."), which the shell's
catalog marks, not the page's.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from engine import i18n
from tests.i18n_probe import WORD, visible_texts

SHELL = {"Try this", "Further reading", "Download", "Show the code", "Data", "What it prints:", "Python"}
SHELL_PREFIXES = ("Next: ", "Hint: ⟦", "- [", "$$", "**On this page:**", ":material/explore: **Beyond the chapter.**",
                  "The whole part of the chapter, redone step by step",      # ui.code's notebook line
                  "Train a model on the Block builder page in this browser")  # ui.session_slots.LIVE_MODEL_NOTE
TOKEN_OPTION = re.compile(r"\d+: \S+")   # a position and the model's token there (a source token's choices)


def allowed(text: str) -> bool:
    """A leftover the page's helper may leave: a formula, a model's token, or a text the shell (ui/) writes on every
    page."""
    return (text in SHELL or text.startswith(SHELL_PREFIXES) or bool(re.fullmatch(r"\$[^$]*\$", text))
            or bool(TOKEN_OPTION.fullmatch(text)))


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


def unmarked_left(at: AppTest) -> list[str]:
    """The page's visible English that nobody marked, less what `allowed` lets stay."""
    return [text for text in visible_texts(at) if english_left(text) and not allowed(text)]
