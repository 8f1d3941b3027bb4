"""SmolLM2's pieces where other pages call them (ui/pretrained_views.py)."""
from __future__ import annotations

import pytest

from tests.pages.conftest import no_exception, texts


@pytest.fixture(scope="module", autouse=True)
def smollm2_installed():
    from engine import pretrained

    try:
        pretrained.model_path()
    except ValueError as error:
        pytest.skip(str(error))


def test_embedding_explorer_compares_contextual_vectors_per_layer(run_page):
    at = run_page("views/embeddings.py", timeout=300)
    no_exception(at)
    assert "SmolLM2's own static vector" not in texts(at)   # off by default: the page stays light
    at.toggle(key="contextual").set_value(True).run()
    no_exception(at)
    written = texts(at)
    assert "Layer 0 is SmolLM2's own static vector" in written
    assert "identical at every layer" in written        # the page's own sentences put 'crane' second
    assert "lowest cosine" in written                   # the context-first pair drifts apart
