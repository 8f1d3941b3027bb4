"""Tokens & next-token prediction: the page's spec (engine.chapter.spec), read by every front end."""
from __future__ import annotations

from engine.chapter.spec import PageSpec

PAGE = PageSpec(
    key="tokens", url="tokens", view="tokens",
    title="Tokens & next-token prediction",
    question="What does a language model predict, and what exactly is a token?",
    one_line=("Cut any text into characters, words, BPE and GPT-2 tokens; then see P(next token) for 'Mary had "
              "a little'."),
    icon=":material/token:",
)
