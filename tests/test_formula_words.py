"""Every word or token placed in a formula goes through ui.formula.word, and comes out as LaTeX that KaTeX
(Streamlit's own bundle) parses: GloVe's 50,000 most frequent words hold $ _ % & # \\ { } ^ ~, and
/embeddings?query=usd drew its neighbour 'us$' as a red KaTeX error."""
from __future__ import annotations

import pytest

from tests.katex import MISSING, katex_errors
from tests.pages.conftest import run_file
from ui import formula

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

SPECIAL = set("$_%&#\\{}^~")


def placed(word: str) -> list[str]:
    """The word in each kind of place the pages put words: in a function's argument, a subscript, a power's
    base, after a quote."""
    w = formula.word(word)
    return [rf"\cos({w},\ q) = 0.5", rf"\hat u_{{{w}}} - \hat u_{{{w}}}", rf"x_{{{w}}}^{{(A)}}",
            rf"E[{w}] \qquad P_{{3}}({formula.word(repr(word))}) = 0.1", rf"{w}: \frac{{1}}{{2}}"]


@pytest.fixture(scope="module")
def glove_words():
    from engine.embeddings import glove as embeddings
    try:
        return embeddings.load_glove().words[:50_000]
    except ValueError as error:
        pytest.skip(str(error))


def test_the_check_sees_the_red_error_of_an_unescaped_word():
    raw, escaped = r"\cos(\text{us$},\ q)", rf"\cos({formula.word('us$')},\ q)"
    assert katex_errors([raw, escaped]).keys() == {raw}


def test_every_glove_word_with_a_special_character_parses_in_every_place(glove_words):
    special = [w for w in glove_words if SPECIAL & set(w)]
    assert len(special) > 40 and {"us$", "&", "#"} <= set(special)
    assert set().union(*(SPECIAL & set(w) for w in special)) >= set("$_%&#\\{}^")
    formulas = [f for w in special for f in placed(w)]
    errors = katex_errors(formulas)
    assert not errors, f"{len(errors)} of {len(formulas)} formulas fail, e.g. {list(errors.items())[:3]}"


def test_the_embedding_page_draws_us_dollar_in_a_formula_that_parses():
    at = run_file("views/embeddings.py", {"query": "usd"}, timeout=120)
    assert not at.exception
    drawn = [x.value.strip().removeprefix("$$").removesuffix("$$") for x in at.get("latex")]   # st.latex's $$ ... $$
    assert any("us\\$" in f for f in drawn), "the neighbour us$ is no longer in a formula: pick another query"
    errors = katex_errors(drawn)
    assert not errors, errors
