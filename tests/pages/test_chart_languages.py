"""Every page's charts under the pseudo language (engine.i18n.PSEUDO): no chart word in plain English (titles, axis and
legend titles, legend entries, tooltips' field titles; tests/chart_words.py) beyond what stays as written on purpose:
the tokens and example words the models read, the models' and methods' names."""
from __future__ import annotations

import pytest

from engine import i18n
from tests.chart_words import english_chart_words, page_chart_specs
from tests.pages.conftest import no_exception

# what a page's charts may show in English, and why
KEPT = {
    "views/attention_calculator.py": ("crane", "the", "lake"),                 # the worked example's tokens
    "views/embeddings.py": ("heron", "gantry"),                                # GloVe's words for the two senses
    "views/head_viewer.py": ("The nurse said that", "The engineer said that"),  # SmolLM2's prompts
    "views/ngram.py": ("Kneser-Ney",),                                         # a smoothing's name
}
PAGES = [f"views/{name}.py" for name in (
    "attention_calculator", "beyond_words", "block_builder", "context_window", "embeddings", "generate", "head_viewer",
    "inside_the_model", "multi_head", "ngram", "position", "tokens")]


@pytest.mark.parametrize("page", PAGES)
def test_no_chart_word_is_left_in_english_under_the_pseudo_language(run_page, page):
    at = run_page(page, query={"lang": i18n.PSEUDO.code}, timeout=300)
    no_exception(at)
    specs = page_chart_specs(at)
    assert specs
    assert english_chart_words(specs, KEPT.get(page, ())) == []


def test_the_generate_ladders_legend_is_spanish(run_page):
    at = run_page("views/generate.py", query={"lang": "es"}, timeout=300)
    no_exception(at)
    from tests.chart_words import chart_words
    words = {word for spec in page_chart_specs(at) for word in chart_words(spec)}
    assert {"referencia", "n-grama", "transformer"} <= words
    assert not {"baseline", "n-gram", "bits per character", "model"} & words
