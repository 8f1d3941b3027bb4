"""gradio_app.py launched on loopback and called through gradio_client, as a notebook would:
each tab's API endpoint gives the engine's numbers, and bad input comes back as the
engine's sentence. The network is refused for the whole module (loopback only)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.e2e.conftest import _free_port
from tests.netguard import offline

gradio = pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")
gradio_client = pytest.importorskip("gradio_client")


@pytest.fixture(scope="module")
def client():
    with offline() as attempts:
        import gradio_app

        port = _free_port()
        gradio_app.demo.queue(default_concurrency_limit=2).launch(
            server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, show_error=True,
            quiet=True, theme=gradio_app.THEME)
        try:
            yield gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
        finally:
            gradio_app.demo.close()
    assert not attempts, f"the Gradio app or its client tried to reach the network: {attempts}"


def table(value) -> tuple[list[str], list[list]]:
    return value["headers"], value["data"]


def test_every_tab_is_an_api_endpoint(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert {"/attention", "/ngram", "/analogy", "/heads"} <= set(endpoints)


def test_attention_endpoint_reproduces_the_chapter(client):
    import gradio_app

    weights, context, summary, chart = client.predict(gradio_app.CHAPTER_MATRIX, True, False, 0,
                                                      api_name="/attention")
    headers, rows = table(weights)
    assert headers == ["query", "crane", "by", "the", "lake"]
    assert rows[0] == ["crane", 0.298, 0.203, 0.206, 0.293]
    assert table(context)[1][0] == ["crane", 0.464, 0.476, 0.286]
    assert "**crane** puts its largest weight, **0.298**" in summary
    assert chart["type"] == "altair"


def test_attention_endpoint_with_a_causal_mask_sees_no_future(client):
    weights, *_ = client.predict("a: 1, 0\nb: 0, 1\nc: 1, 1", False, True, 2, api_name="/attention")
    rows = np.array([row[1:] for row in table(weights)[1]], dtype=float)
    assert np.allclose(np.triu(rows, 1), 0)
    assert np.allclose(rows.sum(axis=1), 1, atol=2e-3)


@pytest.mark.parametrize("x, query, sentence", [
    ("crane: 0.8, oops, 0.4", 0, "'oops' is not a number"),
    ("crane: nan, 0.1, 0.4", 0, "finite"),
    ("a: 1, 0\nb: 0, 1", 7, "from 0 to 1"),
])
def test_attention_endpoint_answers_bad_input_with_a_sentence(client, x, query, sentence):
    with pytest.raises(gradio_client.exceptions.AppError, match=sentence):
        client.predict(x, True, False, query, api_name="/attention")


def test_analogy_endpoint_finds_the_queen(client):
    answers, summary = client.predict("man", "king", "woman", 5, "3cosadd", api_name="/analogy")
    headers, rows = table(answers)
    assert headers[:2] == ["word", "score"] and len(rows) == 5
    assert rows[0][0] == "queen" and "man : king :: woman : queen" in summary
    rome = client.predict("france", "paris", "italy", 3, "3cosmul", api_name="/analogy")[0]
    assert table(rome)[1][0][0] == "rome"


def test_analogy_endpoint_names_an_unknown_word(client):
    with pytest.raises(gradio_client.exceptions.AppError, match="not among the 400,000 words"):
        client.predict("man", "king", "zzqxblorp", 5, "3cosadd", api_name="/analogy")


def test_heads_endpoint_shows_the_engines_weights_for_one_head(client):
    from engine import limits
    from engine.pretrained import load

    text = "The cat sat on the mat."
    rows_table, summary, chart = client.predict(text, 3, 2, api_name="/heads")
    headers, rows = table(rows_table)
    alpha = np.array([row[1:] for row in rows], dtype=float)
    expected = load().forward_text(text, max_tokens=limits.GRADIO_HEAD_MAX_TOKENS).weights[3, 2]
    assert headers[1] == "<|endoftext|>" and alpha.shape == expected.shape
    assert np.allclose(alpha, expected.round(3), atol=1e-3)
    assert np.allclose(np.triu(alpha, 1), 0)       # a causal model: no token looks ahead
    assert summary.startswith("Layer 3, head 2 of 30 x 9")
    with pytest.raises(gradio_client.exceptions.AppError,
                       match="layer must be from 0 to 29|greater than maximum value 29"):
        client.predict(text, 30, 0, api_name="/heads")
    with pytest.raises(gradio_client.exceptions.AppError, match="Type a sentence"):
        client.predict("   ", 0, 0, api_name="/heads")


def test_ngram_endpoint_samples_reproducibly_from_the_plays(client):
    text, following, summary = client.predict(3, "kneser-ney", 1.0, 7, 120, "Romeo:", api_name="/ngram")
    again, *_ = client.predict(3, "kneser-ney", 1.0, 7, 120, "Romeo:", api_name="/ngram")
    other, *_ = client.predict(3, "kneser-ney", 1.0, 8, 120, "Romeo:", api_name="/ngram")
    assert text.startswith("Romeo:") and len(text) == len("Romeo:") + 120
    assert text == again and text != other                  # the seed decides the text
    headers, rows = table(following)
    assert headers == ["next character", "P", "count"] and len(rows) == 10
    assert abs(sum(row[1] for row in rows)) <= 1.0 + 1e-6 and rows[0][1] >= rows[-1][1]
    assert "after **'o:'**" in summary
    greedy, *_ = client.predict(5, "kneser-ney", 0, 1, 60, "Romeo:", api_name="/ngram")
    assert greedy == client.predict(5, "kneser-ney", 0, 2, 60, "Romeo:", api_name="/ngram")[0]  # T = 0: no dice


def test_ngram_endpoint_answers_bad_input_with_a_sentence(client):
    with pytest.raises(gradio_client.exceptions.AppError, match="greater than maximum value 3"):
        client.predict(3, "kneser-ney", 1e9, 0, 50, "Romeo:", api_name="/ngram")
    with pytest.raises(gradio_client.exceptions.AppError):
        client.predict(3, "kneser-ney", 1.0, 0, 50, "\U0001F989 owl", api_name="/ngram")
