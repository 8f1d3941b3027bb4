"""The Space's charts in the visitor's language (issue 41): every tab's charts, built for a page's default link values
under the pseudo language (engine.i18n.PSEUDO), leave no chart word in plain English (tests/chart_words.py) beyond the
tokens and example words the models read; Inside the model's three charts in Spanish."""
from __future__ import annotations

import importlib
import json

import pytest

from engine import i18n
from tests.chart_words import chart_words, english_chart_words

TABS = ["attention_calculator", "beyond_words", "block_builder", "context_window", "embeddings", "generate",
        "multi_head", "ngram", "position", "tokens"]
SMOLLM2_TABS = [("head_viewer", "from_link"), ("inside_the_model", "lens_from_link"),
                ("inside_the_model", "effects_from_link"), ("inside_the_model", "patching_from_link")]
KEPT = ("crane", "the", "lake")   # the attention calculator's tokens


def _specs(outputs) -> list[dict]:
    """The Vega-Lite specs among a tab's outputs (gr.Plot values: PlotData with the spec as JSON)."""
    if isinstance(outputs, (list, tuple)):
        return [spec for output in outputs for spec in _specs(output)]
    plot = getattr(outputs, "plot", None)
    return [json.loads(plot)] if isinstance(plot, str) else []


def _built(module_name: str, function: str, code: str) -> list[dict]:
    module = importlib.import_module(f"gradio_tabs.{module_name}")
    with i18n.use(code):
        outputs = getattr(module, function)(module.PAGE.values({}))
        if hasattr(outputs, "__next__"):    # a streamed event: its last outputs
            outputs = list(outputs)[-1]
    return _specs(outputs)


@pytest.mark.parametrize("tab", TABS)
def test_a_tabs_charts_under_the_pseudo_language(tab):
    assert english_chart_words(_built(tab, "from_link", i18n.PSEUDO.code), KEPT) == []


@pytest.mark.parametrize("tab, function", SMOLLM2_TABS)
def test_smollm2s_tabs_charts_under_the_pseudo_language(smollm2_installed, tab, function):
    specs = _built(tab, function, i18n.PSEUDO.code)
    assert specs and english_chart_words(specs) == []


def test_inside_the_models_charts_in_spanish(smollm2_installed):
    words = {word for function in ("lens_from_link", "effects_from_link", "patching_from_link")
             for spec in _built("inside_the_model", function, "es") for word in chart_words(spec)}
    assert {"capa", "cabeza", "posición", "fila del flujo residual", "recuperado"} <= words
    assert not {"layer", "head", "position", "restored", "residual stream row"} & words
