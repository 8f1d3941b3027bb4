"""What every page's language tests share: the pseudo probe's leftovers that a page's own helper cannot mark.

A page run in the pseudo language (engine.i18n.PSEUDO) must show no plain English outside `ALLOWED`: formulas
(LaTeX: symbols, model tokens and example words inside them), and the shell's own parts of every page (ui/:
"Try this", "Download", "Show the code", the further reading's titles of papers, "Next: ..."), which the shell's
catalog marks, not the page's.
"""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from tests.i18n_probe import unmarked

SHELL = {"Try this", "Further reading", "Download", "Show the code", "Data"}
SHELL_PREFIXES = ("Next: ", "Hint: ⟦", "- [", "$$")


def allowed(text: str) -> bool:
    """A leftover the page's helper may leave: a formula, or a text the shell (ui/) writes on every page."""
    return text in SHELL or text.startswith(SHELL_PREFIXES) or bool(re.fullmatch(r"\$[^$]*\$", text))


def unmarked_left(at: AppTest) -> list[str]:
    """The page's visible English that nobody marked, less what `allowed` lets stay."""
    return [text for text in unmarked(at) if not allowed(text)]
