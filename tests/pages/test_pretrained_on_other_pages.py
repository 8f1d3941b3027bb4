"""SmolLM2's pieces where other pages call them (ui/pretrained_views.py)."""
from __future__ import annotations

import pytest

from tests.pages.conftest import no_exception, texts


pytestmark = pytest.mark.usefixtures("smollm2_installed")


def test_embedding_explorer_compares_contextual_vectors_per_layer(run_page):
    at = run_page("views/embeddings.py", timeout=300)
    no_exception(at)
    assert "SmolLM2's own static vector" not in texts(at)   # off by default: the page stays light
    at.toggle(key="embeddings.contextual").set_value(True).run()
    no_exception(at)
    written = texts(at)
    assert "Layer 0 is SmolLM2's own static vector" in written
    assert "identical at every layer" in written        # the page's own sentences put 'crane' second
    assert "lowest cosine" in written                   # the context-first pair drifts apart


def test_tokens_page_shows_smollm2_beside_the_ngram(run_page):
    at = run_page("views/tokens.py", timeout=300)
    no_exception(at)
    specs = "".join(chart.proto.spec for chart in at.get("vega_lite_chart")) + \
        "".join(str(chart.proto.datasets) + str(chart.proto.data) for chart in at.get("vega_lite_chart"))
    assert "SmolLM2-135M, web text" in specs
    at.toggle(key="tokens.with_smollm2").set_value(False).run()
    no_exception(at)
    specs = "".join(chart.proto.spec + str(chart.proto.datasets) + str(chart.proto.data)
                    for chart in at.get("vega_lite_chart"))
    assert "SmolLM2-135M, web text" not in specs


def test_generate_page_puts_smollm2_on_the_ladder_and_samples(run_page, monkeypatch):
    from engine import limits

    monkeypatch.setattr(limits, "PRETRAINED_MAX_EVAL_CHARS", 600)   # a short slice keeps the test quick
    at = run_page("views/generate.py", timeout=600)
    no_exception(at)
    at.toggle(key="ladder_smollm2").set_value(True).run()
    no_exception(at)
    assert "SmolLM2 reads the same 600 characters" in texts(at)
    at.toggle(key="sample_smollm2").set_value(True).run()
    no_exception(at)
    assert at.slider(key="gen_smollm2_length").value == 30
    assert not at.error
