"""What a page shows in plain English under the pseudo language (engine.i18n.PSEUDO, ?lang=en-XA): every marked
message comes out accented and bracketed (⟦...⟧), so what is left readable is a sentence nobody marked.

    python -m tests.i18n_probe views/attention_calculator.py [name=value ...]

prints each visible text of the page (markdown, captions, titles, headers, widget labels and help, LaTeX, alerts,
table headers) that holds an English word of three or more letters outside the brackets. Model tokens, example
words and code are allowed to stay; judge what it prints. The catalogs' template must be current
(`python -m engine.i18n update`) for a newly marked message to show as pseudo.
"""
from __future__ import annotations

import re
import sys

from streamlit.testing.v1 import AppTest

from engine import i18n
from tests.pages.conftest import ROOT

WORD = re.compile(r"[A-Za-z]{3,}")
BRACKETED = re.compile(re.escape(i18n.PSEUDO_OPEN) + r".*?" + re.escape(i18n.PSEUDO_CLOSE), re.S)


def visible_texts(at: AppTest) -> list[str]:
    """Every string the page shows a reader, from AppTest's element tree."""
    found = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "latex", "error", "warning", "info",
                 "success", "expander", "tabs"):
        for element in at.get(kind):
            for attribute in ("value", "label", "body"):
                value = getattr(element, attribute, None)
                if isinstance(value, str) and value:
                    found.append(value)
                    break
    for kind in ("button", "checkbox", "toggle", "radio", "selectbox", "multiselect", "slider", "select_slider",
                 "number_input", "text_input", "text_area", "color_picker", "date_input"):
        for element in at.get(kind):
            for attribute in ("label", "help", "placeholder"):
                value = getattr(element, attribute, None)
                if isinstance(value, str) and value:
                    found.append(value)
            for option in getattr(element, "options", None) or []:
                if isinstance(option, str):
                    found.append(option)
    return found


def unmarked(at: AppTest) -> list[str]:
    """The visible texts with an English word outside the pseudo brackets."""
    out = []
    for text in visible_texts(at):
        rest = BRACKETED.sub(" ", text)
        rest = re.sub(r"`[^`]*`|\$[^$]*\$|\\[A-Za-z]+|https?://\S+|:material/[a-z_]+:", " ", rest)
        if WORD.search(rest):
            out.append(text)
    return out


def main(argv: list[str]) -> int:
    file, pairs = argv[0], argv[1:]
    at = AppTest.from_file(str(ROOT / file), default_timeout=120)
    at.query_params["lang"] = i18n.PSEUDO.code
    for pair in pairs:
        key, _, value = pair.partition("=")
        at.query_params[key] = value
    at.run()
    if at.exception:
        print("EXCEPTION:", [e.value for e in at.exception])
    left = unmarked(at)
    for text in left:
        print("-", text[:300].replace("\n", " / "))
    print(f"{len(left)} visible texts with unmarked English")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
