"""Tokens, N-gram sampler and Embedding explorer in other languages (issue 41): each page runs in Spanish or Korean
without an exception, its title and question translated; and under the pseudo language (tests/i18n_probe.py) no
visible text is left in plain English apart from the allow-list below."""
from __future__ import annotations

import re

import pytest

from engine import i18n
from engine.chapter.embeddings import PAGE as EMBEDDINGS
from engine.chapter.ngram import PAGE as NGRAM
from engine.chapter.tokens import PAGE as TOKENS
from tests.i18n_probe import BRACKETED, WORD, unmarked
from tests.pages.conftest import no_exception

# What may stay English on these pages, and why:
# - names: of methods and models (BPE, Kneser-Ney, GPT-2, PCA, 3CosAdd...), kept in every language's textbooks;
# - what the models read: Shakespeare's plays' titles (the corpus's own names, link values) and GloVe's words;
# - formulas' symbols (PPL, cos) and the further reading's titles (the papers as published);
# - the shell's own words around a page (ui/: "Try this", "Hint:", "Download", "Show the code", "Further reading",
#   "Next: ... (in the sidebar)", "Done."), marked by the shell's branch (i18n-shell), not by these pages.
NAMES = ("GPT-2 BPE", "BPE", "Kneser-Ney", "GloVe", "3CosAdd", "3CosMul", "PCA")
SHELL = re.compile(r"^(Try this|Further reading|Download|Show the code)$|^Next: \*\*.*\(in the sidebar\)$|Hint: |"
                   r"\*\*Done\.\*\*|:material/[a-z_]+:")
FORMULA = re.compile(r"\\mathrm\{PPL\}|\\text\{[a-z]+\}|\{bmatrix\}|\\[A-Za-z]+")


def allowed(text: str, words: frozenset[str]) -> bool:
    """Whether a text the probe lists holds only what the allow-list keeps in English."""
    if text.startswith("- [") or text.strip() in words:
        return True
    rest = BRACKETED.sub(" ", SHELL.sub(" ", text))
    rest = FORMULA.sub(" ", re.sub(r"\$\$|`[^`]*`", " ", rest))
    for name in NAMES:
        rest = rest.replace(name, " ")
    return not WORD.search(rest) or all(w.lower() in words for w in WORD.findall(rest))


def english_words(page: str) -> frozenset[str]:
    """The English the page's models read: the plays' titles (Tokens, N-gram), GloVe's example words (Embeddings)."""
    if page == "views/embeddings.py":
        from engine.chapter.embeddings import HOMONYMS, PRESETS

        found = {w for words in PRESETS.values() for w in re.findall(r"[a-z]+", " ".join(words))}
        found |= {w for word, h in HOMONYMS.items() for w in [word, *h["senses"].values()]}
        return frozenset(found)
    from engine.language.corpus import load_corpus

    return frozenset(load_corpus().plays)


PAGES = [("views/tokens.py", TOKENS, "es"), ("views/ngram.py", NGRAM, "ko"), ("views/embeddings.py", EMBEDDINGS, "es")]


@pytest.mark.parametrize("page, spec, code", PAGES, ids=[p for p, _s, _c in PAGES])
def test_the_page_in_another_language(run_page, page, spec, code):
    at = run_page(page, query={"lang": code}, timeout=300)
    no_exception(at)
    with i18n.use(code):
        title, question = i18n._(spec.title), i18n._(spec.question)
    assert title != spec.title and question != spec.question     # the catalog translates them
    assert at.title[0].value == title
    assert any(question in m.value for m in at.markdown)
    assert not at.error, [e.value for e in at.error]


PSEUDO_RUNS = [
    ("views/tokens.py", {}),
    ("views/tokens.py", {"smoothing": "add-k", "level": "characters", "bpe_source": "the text above"}),
    ("views/ngram.py", {}),
    ("views/ngram.py", {"smoothing": "add-k", "level": "characters", "n": "5"}),
    ("views/embeddings.py", {}),
    ("views/embeddings.py", {"method": "3cosmul", "preset": "man : doctor :: woman : ?  (inputs are never answers)"}),
]


@pytest.mark.parametrize("page, query", PSEUDO_RUNS, ids=[f"{p}-{len(q)}" for p, q in PSEUDO_RUNS])
def test_no_unmarked_english_under_the_pseudo_language(run_page, page, query):
    at = run_page(page, query={"lang": i18n.PSEUDO.code} | query, timeout=300)
    no_exception(at)
    words = english_words(page)
    assert [text for text in unmarked(at) if not allowed(text, words)] == []
