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
        gradio_app.serve(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
        try:
            yield gradio_client.Client(f"http://127.0.0.1:{port}/", verbose=False)
        finally:
            gradio_app.demo.close()
    assert not attempts, f"the Gradio app or its client tried to reach the network: {attempts}"


def table(value) -> tuple[list[str], list[list]]:
    return value["headers"], value["data"]


ENDPOINTS = {  # api_name -> the page whose engine calls it makes
    "/next_token": "tokens", "/tokenize": "tokens", "/ngram": "ngram", "/analogy": "embeddings",
    "/embedding_map": "embeddings", "/neighbours": "embeddings", "/hand_vectors": "context", "/context": "context",
    "/attention": "attention", "/multi_head": "multi-head", "/head_costs": "multi-head", "/heads": "heads",
    "/logit_lens": "inside", "/head_effects": "inside", "/patching": "inside", "/position": "position",
    "/encodings": "position", "/block_preset": "block", "/block": "block", "/train": "block", "/generate": "generate",
    "/ladder": "generate", "/image_attention": "beyond", "/audio_attention": "beyond", "/residue_attention": "beyond",
}


def test_every_tab_is_an_api_endpoint(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert set(endpoints) == set(ENDPOINTS)
    for name, endpoint in endpoints.items():      # typed and named: nothing a notebook must guess
        for part in endpoint["parameters"] + endpoint["returns"]:
            assert part["python_type"]["type"] != "Any", (name, part["label"])
        assert not any(p["parameter_name"].startswith("param_") for p in endpoint["parameters"]), name
        labels = [part["label"] for part in endpoint["returns"]]
        assert len(set(labels)) == len(labels) and not any(label.startswith("value_") for label in labels), name


def test_one_tab_per_page_in_the_chapters_order():
    import gradio_app
    from gradio_tabs import TABS
    from gradio_tabs.common import read
    from ui.path import PATH, ideas

    assert list(TABS) == [idea.url for idea in ideas()]
    labels = [read(c["props"]["label"]) for c in gradio_app.demo.get_config_file()["components"]
              if c["type"] == "tabitem"]      # keys the browser translates (tests/test_gradio_static_language.py)
    expected = [label for part, group in PATH.items() for label in (part, *(idea.title for idea in group))]
    assert labels == expected


def test_attention_endpoint_reproduces_the_chapter(client):
    import gradio_app

    weights, context, summary, chart = client.predict(gradio_app.CHAPTER_MATRIX, True, False, 0, 1.0, False,
                                                      "identity", 0, api_name="/attention")
    headers, rows = table(weights)
    assert headers == ["query", "crane", "by", "the", "lake"]
    assert rows[0] == ["crane", 0.298, 0.203, 0.206, 0.293]
    assert table(context)[1][0] == ["crane", 0.464, 0.476, 0.286]
    assert "**crane** puts its largest weight, **0.298**" in summary
    assert chart["type"] == "altair"
    tied = gradio_app.CHAPTER_MATRIX.replace("by: 0, 1, 0.1", "by: 0.8, 0.1, 0.4")   # by = crane: a tie
    summary = client.predict(tied, True, False, 0, 1.0, False, "identity", 0, api_name="/attention")[2]
    assert "**crane**'s largest weights tie: **crane** and **by** at **0.272**" in summary     # the engine's sentence
    assert "puts its largest weight" not in summary


def test_attention_endpoint_with_a_causal_mask_sees_no_future(client):
    weights, *_ = client.predict("a: 1, 0\nb: 0, 1\nc: 1, 1", False, True, 2, 1.0, False, "identity", 0,
                                 api_name="/attention")
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
        client.predict(x, True, False, query, 1.0, False, "identity", 0, api_name="/attention")


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
    from engine.pretrained.smollm2 import load

    text = "The cat sat on the mat."
    rows_table, summary, chart = client.predict(text, 3, 2, api_name="/heads")
    headers, rows = table(rows_table)
    alpha = np.array([row[1:] for row in rows], dtype=float)
    expected = load().forward_text(text, max_tokens=limits.HEAD_VIEWER_MAX_TOKENS).weights[3, 2]
    assert headers[1] == "<|endoftext|>" and alpha.shape == expected.shape
    assert np.allclose(alpha, expected.round(3), atol=1e-3)
    assert np.allclose(np.triu(alpha, 1), 0)       # a causal model: no token looks ahead
    assert summary.startswith("Layer 3, head 2 of 30 x 9: **") and "This head " in summary   # its type, the page's
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


# --- every other endpoint: good input gives the engine's numbers, bad input a sentence ---------------------
def rows_of(value) -> list[dict]:
    headers, data = table(value)
    return [dict(zip(headers, row)) for row in data]


def test_tokenize_endpoint_cuts_the_text_four_ways_as_the_engine_does(client):
    from engine.language.tokenizers import gpt2_tokenizer, tokenize

    text = "Mary had a little lamb"
    overview, tokens, chips = client.predict(text, 10, "the corpus (first 100,000 characters)", api_name="/tokenize")
    summary = {row["tokenizer"]: row for row in rows_of(overview)}
    assert list(summary) == ["Characters", "Words", "BPE, 10 merges", "GPT-2 BPE"]
    gpt2 = tokenize(gpt2_tokenizer(), text)
    assert summary["GPT-2 BPE"]["vocabulary size V"] == 50257 == gpt2.vocab_size
    assert summary["GPT-2 BPE"]["tokens for your text"] == len(gpt2.ids) == 5
    assert [row["id"] for row in rows_of(tokens) if row["tokenizer"] == "GPT-2 BPE"] == gpt2.ids
    assert summary["Characters"]["tokens for your text"] == len(text)
    assert "<code>" in chips and "**Words** (5 tokens)" in chips
    overview, _, chips = client.predict(text + " \U0001F989", 10, "the text above", api_name="/tokenize")
    owl = {row["tokenizer"]: row for row in rows_of(overview)}
    assert owl["Characters"]["tokens for your text"] is None and "\U0001F989" in owl["Characters"]["note"]
    assert owl["GPT-2 BPE"]["tokens for your text"] > 5          # the others go on
    with pytest.raises(gradio_client.exceptions.AppError, match="Type some text first"):
        client.predict("   ", 10, "the text above", api_name="/tokenize")


def test_next_token_endpoint_gives_the_ngrams_distribution_beside_smollm2s(client):
    from engine.pretrained import smollm2 as pretrained
    from engine import prepare
    from engine.language.ngram import NGramModel, prompt_ids

    following, chart, summary = client.predict("Mary had a little", "words", 3, "kneser-ney", True,
                                               api_name="/next_token")
    rows = rows_of(following)
    tokenizer = prepare.corpus_tokens("words")[0]
    model = NGramModel.from_counts(prepare.corpus_counts("words"), 3, "kneser-ney", tokenizer=tokenizer)
    expected = model.distribution(prompt_ids(tokenizer, "Mary had a little")).top(10)
    ngram = [row for row in rows if row["model"].startswith("3-gram")]
    assert [row["P"] for row in ngram] == [round(p, 4) for _, p, _ in expected]
    assert [row["count"] for row in ngram] == [c for _, _, c in expected]
    smollm2 = [row for row in rows if row["model"].startswith("SmolLM2")]
    lamb = pretrained.next_token_distribution("Mary had a little", 10)
    assert smollm2[0]["token"] == "\u2423lamb" and smollm2[0]["P"] == round(float(lamb.probabilities[0]), 4)
    assert chart["type"] == "altair" and "the likeliest next token" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="never does"):
        client.predict("Mary had a zzqxblorp", "words", 3, "kneser-ney", False, api_name="/next_token")


def test_neighbours_and_map_endpoints_follow_the_word_vectors(client):
    from engine.embeddings import glove as E

    wv = E.load_glove()
    nearest, chart, summary = client.predict("paris - france + italy", 5, True, 50_000, api_name="/neighbours")
    found = E.nearest(wv, E.compose(wv, "paris - france + italy").vector, k=5,
                      exclude=("paris", "france", "italy"), vocab_size=50_000)
    assert [row["word"] for row in rows_of(nearest)] == found.words and found.words[0] == "rome"
    assert np.allclose([row["cosine"] for row in rows_of(nearest)], found.cosines, atol=1e-4)
    word_map, points, cosines, summary = client.predict("france", "paris", "italy", "germany, berlin", 50_000,
                                                        api_name="/embedding_map")
    offsets = E.offsets(wv, [("france", "paris"), ("italy", "rome"), ("germany", "berlin")])
    assert np.allclose([row[1:] for row in table(cosines)[1]], offsets.cosines, atol=1e-4)
    projection = E.project_2d(wv, ["france", "paris", "italy", "rome", "germany", "berlin"])
    assert np.allclose([[row["x"], row["y"]] for row in rows_of(points)], projection.coords, atol=1e-4)
    assert {row["word"]: row["role"] for row in rows_of(points)}["rome"] == "answer"
    assert word_map["type"] == "altair" and "italy → rome" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="less than minimum value 1000"):
        client.predict("paris", 5, True, 20, api_name="/neighbours")
    with pytest.raises(gradio_client.exceptions.AppError, match="Two signs in a row"):
        client.predict("paris - + italy", 5, True, 50_000, api_name="/neighbours")


def test_context_endpoints_put_a_window_beside_attention(client):
    from engine.attention.mechanism import attention, window_weights
    from engine.embeddings.hand_vectors import sentence_vectors
    from engine.attention.typed_matrices import format_matrix

    x_text, query, note = client.predict("the crane by the lake", api_name="/hand_vectors")
    tokens, x, _ = sentence_vectors("the crane by the lake")
    assert x_text == format_matrix(x, tokens) and query == 1 and note == ""
    weights, contexts, chart, summary = client.predict(x_text, 2, 1, True, api_name="/context")
    rows = {row["method"]: [row[label] for label in ("the (1)", "crane", "by", "the (2)", "lake")]
            for row in rows_of(weights)}
    assert np.allclose(rows["window k = 2"], window_weights(5, 2)[1].round(3))
    assert np.allclose(rows["attention"], attention(x, x, x).weights[1].round(3))
    assert table(contexts)[1][1][1:] == [float(v) for v in attention(x, x, x).context[1].round(3)]
    assert "Attention's favourite neighbour of **crane**" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="letters a-z"):
        client.predict("123 456", api_name="/hand_vectors")
    with pytest.raises(gradio_client.exceptions.AppError, match="token must be from 0 to 4"):
        client.predict(x_text, 2, 9, True, api_name="/context")


def test_multi_head_endpoints_give_the_engines_output_shapes_and_costs(client):
    from engine.attention.mechanism import compare_head_costs, identity_projections, multi_head_attention
    from engine.embeddings.tiny_vocabulary import embed

    grid, shapes, output, summary = client.predict("the owl saw the cat", 4, "identity", 2.0, 0, False,
                                                   api_name="/multi_head")
    W = identity_projections(8, gain=2.0)
    result = multi_head_attention(embed("the owl saw the cat").x, W["W_q"], W["W_k"], W["W_v"], W["W_o"], 4)
    assert np.allclose([row[1:] for row in table(output)[1]], result.output.round(3))
    steps = {row["step"]: row for row in rows_of(shapes)}
    assert steps["queries of head m"]["shape"] == "5 x 2" and steps["queries of head m"]["how many"] == 4
    assert grid["type"] == "altair" and summary.startswith("4 heads of width d/h = 2")
    with pytest.raises(gradio_client.exceptions.AppError, match="cannot be split evenly into h = 3"):
        client.predict("the owl saw the cat", 3, "identity", 2.0, 0, False, api_name="/multi_head")
    with pytest.raises(gradio_client.exceptions.AppError, match="no vector for: zebra"):
        client.predict("the zebra", 2, "identity", 2.0, 0, False, api_name="/multi_head")
    costs, chart, summary = client.predict(1024, 768, 12, api_name="/head_costs")
    expected = list(compare_head_costs(1024, 768, 12).values())
    assert [row["parameters"] for row in rows_of(costs)] == [c.params for c in expected]
    assert [row["FLOPs: total"] for row in rows_of(costs)] == [c.flops for c in expected]
    assert "**2,359,296** parameters" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="cannot be split evenly"):
        client.predict(1024, 768, 7, api_name="/head_costs")


def test_logit_lens_and_head_effects_endpoints_read_smollm2_as_the_engine_does(client):
    from engine.interpret import interventions
    from engine.pretrained.smollm2 import load

    lens_rows, chart, summary = client.predict("Mary had a little", " lamb", 3, api_name="/logit_lens")
    lens = interventions.logit_lens(load(), "Mary had a little", k=3, target=" lamb")
    rows = rows_of(lens_rows)
    assert [row["layer"] for row in rows] == lens.layers and len(rows) == 31
    assert [row["rank of target"] for row in rows] == lens.target_ranks[:, -1].tolist()
    assert rows[-1]["rank of target"] == 0 and "is the top prediction from" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="must be one token"):
        client.predict("Mary had a little", " lamb chop", 3, api_name="/logit_lens")

    effects, chart, summary = client.predict("Mary had a little", " lamb", "zero", api_name="/head_effects")
    ranked = rows_of(effects)
    assert len(ranked) == 270 and ranked[0]["rank"] == 1
    assert [row["Δ ln P(target)"] for row in ranked] == sorted(row["Δ ln P(target)"] for row in ranked)
    top = ranked[0]
    clean = interventions.ablate_heads(load(), "Mary had a little").next_token_log_probs
    knocked = interventions.ablate_heads(load(), "Mary had a little", [(top["layer"], top["head"])])
    lamb = load().tokenizer.encode(" lamb")[0]
    assert top["Δ ln P(target)"] == pytest.approx(knocked.next_token_log_probs[lamb] - clean[lamb], abs=2e-3)
    with pytest.raises(gradio_client.exceptions.AppError, match="'zero'.*'mean'"):
        client.predict("Mary had a little", " lamb", "half", api_name="/head_effects")


def test_patching_endpoint_restores_the_clean_answer_where_the_engine_does(client):
    from engine.interpret import interventions
    from engine.pretrained.smollm2 import load

    restored, chart, summary = client.predict("The capital of France is", "The capital of Italy is", " Paris",
                                              " Rome", api_name="/patching")
    headers, data = table(restored)
    assert headers[1] == "embedding" and len(headers) == 32 and len(data) == 6
    assert data[-1][-1] == 1.0                       # the last row at the last position is the clean run
    result = interventions.activation_patching(load(), "The capital of France is", "The capital of Italy is",
                                               " Paris", " Rome")
    assert np.allclose([row[1:] for row in data], result.restored.T.round(3), atol=1e-3)
    assert "LD = logit['" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="same number of tokens"):
        client.predict("The capital of France is", "Italy is", " Paris", " Rome", api_name="/patching")


def test_position_and_encodings_endpoints(client):
    from engine.transformer.positional import dot_products_by_offset, permutation_check, positional_encoding
    from engine.embeddings.tiny_vocabulary import embed

    rows, weights, changes, verdict = client.predict("the owl saw the cat", "the cat saw the owl", "none", 1.0,
                                                     False, False, 0, api_name="/position")
    assert max(row["largest change"] for row in rows_of(rows)) < 1e-9 and "cannot tell A from B" in verdict
    rows, *_, verdict = client.predict("the owl saw the cat", "the cat saw the owl", "sinusoidal", 1.0, False, False,
                                       0, api_name="/position")
    check = permutation_check(embed("the owl saw the cat").x, [0, 4, 2, 3, 1], "sinusoidal")
    assert np.allclose([row["largest change"] for row in rows_of(rows)], check.difference)
    assert "now order matters" in verdict
    with pytest.raises(gradio_client.exceptions.AppError, match="exactly the same words"):
        client.predict("the owl saw the cat", "the dog saw the owl", "none", 1.0, False, False, 0, api_name="/position")
    offsets, pictures, profile, rotary, summary = client.predict(16, 8, 10_000, 0, api_name="/encodings")
    sinusoid = dot_products_by_offset(positional_encoding("sinusoidal", 16, 8))
    assert np.allclose([row["sinusoidal: mean p_i . p_(i+k)"] for row in rows_of(offsets)], sinusoid.mean.round(4))
    assert "rounding only" in summary
    with pytest.raises(gradio_client.exceptions.AppError, match="less than minimum value 2.0"):
        client.predict(16, 8, 1.5, 0, api_name="/encodings")          # the engine's lowest base is the box's
    with pytest.raises(gradio_client.exceptions.AppError, match="width d must be a whole number"):
        client.predict(16, 7.5, 10_000, 0, api_name="/encodings")


def test_block_endpoints_count_parameters_from_the_formula(client):
    from engine.transformer.config import PRESETS, count_parameters

    gpt2 = client.predict("GPT-2 small", api_name="/block_preset")
    parts, stages, scale, bars, summary = client.predict(*gpt2, api_name="/block")
    total = sum(row["parameters"] for row in rows_of(parts))
    assert total == 124_439_808 == count_parameters(PRESETS["GPT-2 small"]).total
    assert summary.startswith("**124,439,808 parameters.**")
    assert {row["model"]: row["parameters"] for row in rows_of(scale)}["GPT-3 175B"] == 174_604_259_328
    assert rows_of(stages)[-1]["output shape"] == "1024 x 50257"
    with pytest.raises(gradio_client.exceptions.AppError, match="split evenly into h = 5 heads"):
        client.predict(*gpt2[:3], 5, *gpt2[4:], api_name="/block")
    with pytest.raises(gradio_client.exceptions.AppError, match="GPT-5 is not in the list of choices"):
        client.predict("GPT-5", api_name="/block_preset")


def test_train_endpoint_streams_a_short_run_and_keeps_the_limits(client):
    tiny = client.predict("tiny (the chapter's block)", api_name="/block_preset")
    job = client.submit(*tiny, 2, 10_000, 0.003, 16, 0, api_name="/train")
    text, history, chart = job.result(timeout=120)
    updates = job.outputs()
    assert len(updates) >= 2 and updates[0][0] != text          # progress came before the end
    assert text.startswith("Done: step") and "bits per character" in text
    rows = rows_of(history)
    assert rows[-1]["step"] >= rows[0]["step"] and rows[-1]["training loss (bits/char)"] < 6.3   # log2(75) = 6.23
    assert chart["type"] == "altair"
    with pytest.raises(gradio_client.exceptions.AppError, match="20 blocks are beyond the 8 trained live here"):
        client.predict(*tiny[:5], 20, *tiny[6:], 2, 100, 0.003, 16, 0, api_name="/train")
    with pytest.raises(gradio_client.exceptions.AppError, match="greater than maximum value 300"):
        client.predict(*tiny, 1000, 100, 0.003, 16, 0, api_name="/train")


def test_generate_and_ladder_endpoints(client):
    from engine import prepare
    from engine.transformer.generation import generate

    samples, following, bars, summary, texts = client.predict("ROMEO:", ["shipped transformer", "2-gram"], 0.8, 0,
                                                              40, 3, 1, api_name="/generate")
    shipped = generate(prepare.shipped_transformer()[0], "ROMEO:", 40, seed=3, temperature=0.8)
    assert rows_of(samples)[0] == {"model": "shipped transformer", "sample": "ROMEO:" + shipped.text}
    first = [row for row in rows_of(following) if row["model"] == "shipped transformer"]
    assert [row["P"] for row in first] == [round(p, 4) for _, p, _ in shipped.steps[0].top(8)]
    assert "**2-gram**" in texts and summary.startswith("Step 1:")
    with pytest.raises(gradio_client.exceptions.AppError, match="prompt is empty"):
        client.predict("", ["2-gram"], 0.8, 0, 40, 3, 1, api_name="/generate")
    rungs, chart, sentences = client.predict(api_name="/ladder")
    expected = prepare.fixed_ladder()
    assert [row["model"] for row in rows_of(rungs)] == [r.model for r in expected]
    assert [row["bits per character"] for row in rows_of(rungs)] == [round(r.bits_per_char, 4) for r in expected]
    assert sentences.startswith("Best on this text:")


def test_beyond_words_endpoints_on_a_bundled_and_an_uploaded_picture_a_sound_and_a_protein(client, tmp_path):
    from PIL import Image

    from engine.beyond.modalities import bundled_picture, image_attention, residue_attention, resize_square

    overlay, partners, summary = client.predict("astronaut", None, 224, 16, "crop", 64, 0, 4, 6, "spotlight",
                                                api_name="/image_attention")
    result = image_attention(resize_square(bundled_picture("astronaut"), 224), 16, "crop", 64, 0)
    assert [(row["patch"], row["weight"]) for row in rows_of(partners)] == \
        [(j, round(w, 4)) for j, w in result.strongest_others(4 * 14 + 6, 5)]
    assert summary.startswith("**224 x 224 pixels, p = 16: a grid of 14 x 14 = 196 tokens")
    picture = tmp_path / "stripes.png"
    Image.fromarray((np.indices((40, 40)).sum(axis=0) % 8 * 32).astype(np.uint8)).save(picture)
    _, partners, summary = client.predict("astronaut", gradio_client.handle_file(str(picture)), 0, 8, "exact", 0, 0,
                                          0, 0, "heat", api_name="/image_attention")
    assert "40 x 40 pixels, p = 8: a grid of 5 x 5 = 25 tokens" in summary
    not_a_picture = tmp_path / "notes.png"
    not_a_picture.write_text("these are words, not pixels")
    with pytest.raises(gradio_client.exceptions.AppError, match="not a PNG or JPEG"):
        client.predict("astronaut", gradio_client.handle_file(str(not_a_picture)), 224, 16, "crop", 64, 0, 4, 6,
                       "spotlight", api_name="/image_attention")
    with pytest.raises(gradio_client.exceptions.AppError, match="patch row must be from 0 to 13"):
        client.predict("astronaut", None, 224, 16, "crop", 64, 0, 14, 0, "spotlight", api_name="/image_attention")

    spectrogram, notes, frames, sound, summary = client.predict("melody", None, 512, 128, 64, 0, -1,
                                                                api_name="/audio_attention")
    weights = {row["part"]: row["total weight"] for row in rows_of(notes)}
    assert list(weights) == ["C", "D", "E", "C again"] and weights["C"] > weights["D"] + weights["E"]
    assert "T = 97 tokens" in summary and sound is not None
    stereo = tmp_path / "stereo.wav"
    import wave
    with wave.open(str(stereo), "wb") as writer:
        writer.setnchannels(2), writer.setsampwidth(2), writer.setframerate(8000)
        writer.writeframes(np.zeros(16000, dtype=np.int16).tobytes())
    with pytest.raises(gradio_client.exceptions.AppError, match="upload a mono recording"):
        client.predict("melody", gradio_client.handle_file(str(stereo)), 512, 128, 64, 0, -1,
                       api_name="/audio_attention")

    heatmap, partners, summary = client.predict("GIVEQCCTSICSLYQLENYCN", 0, 0, 5, api_name="/residue_attention")
    expected = residue_attention("GIVEQCCTSICSLYQLENYCN", None, 0).strongest_others(5, 5)
    assert [row["weight"] for row in rows_of(partners)] == [round(w, 4) for _, w in expected]
    assert rows_of(partners)[0]["residue"].startswith("C")       # a cysteine finds a cysteine
    with pytest.raises(gradio_client.exceptions.AppError, match="'B' at position 3"):
        client.predict("GIBEQ", 0, 0, 0, api_name="/residue_attention")


def test_the_server_still_answers_after_every_refusal(client):
    """One bad call to each kind of endpoint, then a good one to the same endpoint: nothing got stuck."""
    calls = [("/tokenize", ("", 10, "the text above"), ("owl", 10, "the text above")),
             ("/attention", ("a: x", True, False, 0, 1.0, False, "identity", 0),
              ("a: 1, 0", True, False, 0, 1.0, False, "identity", 0)),
             ("/heads", ("", 0, 0), ("The owl.", 0, 0)),
             ("/generate", ("ROMEO:", [], 0.8, 0, 5, 0, 1), ("ROMEO:", ["2-gram"], 0.8, 0, 5, 0, 1)),
             ("/residue_attention", ("", 0, 0, 0), ("GIVEQ", 0, 0, 0))]
    for api_name, bad, good in calls:
        with pytest.raises(gradio_client.exceptions.AppError):
            client.predict(*bad, api_name=api_name)
        assert client.predict(*good, api_name=api_name) is not None


# --- at the door: types, uploads, heavy questions, the training line ----------------------------------------
PYTHON_WORDS = ("NoneType", "object of type", "not subscriptable", "has no attribute", "not supported between",
                "could not convert", "invalid literal", "Traceback", "preprocess", "Error:")
WRONG = {"str": 2.5, "float": "two", "int": "two", "bool": "yes", "List[str]": 3}


def test_every_argument_of_every_endpoint_answers_a_wrong_type_with_a_sentence(client):
    """Each argument in turn (the others at their defaults) given nothing, then a value of another type: the
    answer names the box and what it takes, never a Python message (Gradio's own checks gave "'<' not supported
    between instances of 'str' and 'int'"; the tabs, "object of type 'float' has no len()")."""
    import re

    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    checked = 0
    for name, endpoint in endpoints.items():
        parameters = endpoint["parameters"]
        defaults = [p.get("parameter_default") for p in parameters]
        for i, parameter in enumerate(parameters):
            kind = parameter["python_type"]["type"]
            if kind not in WRONG:            # an upload (a file or nothing)
                continue
            for wrong in (None, WRONG[kind]):
                args = list(defaults)
                args[i] = wrong
                with pytest.raises(gradio_client.exceptions.AppError) as refused:
                    client.predict(*args, api_name=name)
                message = str(refused.value)
                assert re.fullmatch(rf"'{re.escape(parameter['label'])}' takes .+, not [a-z ]+\.", message), \
                    (name, parameter["label"], message)
                assert not any(word in message for word in PYTHON_WORDS), (name, message)
                checked += 1
    assert checked > 200


def test_a_large_upload_is_refused_while_it_streams_in(client):
    """/gradio_api/upload refuses a file over limits.GRADIO_MAX_UPLOAD_BYTES (launch's max_file_size) as it
    arrives: 60 MB sent in 1 MB pieces, the server's Python memory (it runs in this process) grows by a few MB,
    not 60 (it neither holds nor keeps the file)."""
    import tracemalloc

    import httpx

    from engine import limits

    assert limits.GRADIO_MAX_UPLOAD_BYTES < 60_000_000
    boundary = "playground-boundary"

    def body():
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.png\"\r\n"
               "Content-Type: image/png\r\n\r\n").encode()
        piece = b"\0" * 1_000_000
        for _ in range(60):
            yield piece
        yield f"\r\n--{boundary}--\r\n".encode()

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        try:
            reply = httpx.post(f"{client.src.rstrip('/')}/gradio_api/upload", content=body(), timeout=120,
                               headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
            status = reply.status_code
        except httpx.TransportError:   # the server closed the connection before the client finished sending
            status = 413
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert status == 413
    assert peak < 20_000_000, f"the refused upload took {peak / 1e6:.0f} MB"


def test_the_tabs_check_an_uploads_size_before_reading_it(tmp_path):
    """A file past the tab's limit (190 MB, sparse on disk) is refused by its size; it is never read."""
    import tracemalloc

    from gradio_tabs.beyond_words import audio_attention_tab, image_attention_tab

    big = tmp_path / "big.png"
    with open(big, "wb") as file:
        file.truncate(190_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(gradio.Error, match="The picture is 190.0 MB; the limit is 8 MB"):
            image_attention_tab("astronaut", str(big), 224, 16, "crop", 64, 0, 4, 6, "spotlight")
        with pytest.raises(gradio.Error, match="The recording is 190.0 MB; the limit is 5 MB"):
            audio_attention_tab("melody", str(big), 512, 128, 64, 0, -1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


def test_heavy_questions_wait_in_the_engines_line_and_past_its_length_get_a_sentence(monkeypatch, tmp_path):
    """/head_effects and /patching reach the engine's heavy line (engine.interpret.interventions.HEAVY_LINE, the one the
    Streamlit pages wait in too) rather than Gradio's queue; with its slot taken and no place left to wait, the
    caller is told so in a sentence, and nothing is computed."""
    import gradio_app
    from engine.interpret import interventions
    from engine.machinery.machine_slots import MachineLine
    from gradio_tabs import inside_the_model

    for api_name in ("head_effects", "patching"):
        event = next(f for f in gradio_app.demo.fns.values() if f.api_name == api_name)
        assert event.concurrency_limit is None                    # every caller reaches the line, not Gradio's queue
    line = MachineLine(1, 0, "runs of the model per head or per patched cell", tmp_path)
    monkeypatch.setattr(interventions, "HEAVY_LINE", line)
    with line.turn():                                             # another student's ranking is being computed
        with pytest.raises(gradio.Error, match="The server is busy: 1 runs of the model per head .* Try again"):
            inside_the_model.head_effects_tab("Mary had a little", " lamb", "zero")
        with pytest.raises(gradio.Error, match="The server is busy"):
            inside_the_model.patching_tab("The capital of France is", "The capital of Italy is", " Paris", " Rome")


@pytest.mark.parametrize("position, said", [(2, "you are number 2 in line"), (0, "Your turn: the run is starting.")])
def test_a_waiting_training_counts_its_place_from_one(position, said):
    """Between leaving the line and starting, a run is still 'waiting' at place 0: no 'number 0 in line'."""
    from types import SimpleNamespace

    from gradio_tabs.block_builder import _progress

    job = SimpleNamespace(state="waiting", queue_position=position, history=[], result=None)
    text = _progress(job, "tiny", {})[0]
    assert said in text and "number 0" not in text


# --- issue 43: every argument given, whole numbers whole, uploads only, nothing fetched, nothing kept ----------------
def _raw_call(client, api_name: str, data: list) -> tuple[str, str]:
    """POST /gradio_api/call/<name> as any HTTP client may (gradio_client fills in what is missing): ('complete' or
    'error', what came back)."""
    import json

    import httpx

    base = client.src.rstrip("/") + "/gradio_api"
    event = httpx.post(f"{base}/call{api_name}", json={"data": data}, timeout=120).json()["event_id"]
    stream = httpx.get(f"{base}/call{api_name}/{event}", timeout=300).text
    kind = "error" if "event: error" in stream else "complete"
    payload = stream.split("data:", 1)[1].strip() if "data:" in stream else ""
    if kind == "error":
        payload = (json.loads(payload) or {}).get("error") or ""
    return kind, payload


def test_a_missing_argument_names_the_box_not_gradios_handler(client):
    """Gradio's own answer named its internal handler and printed its component objects (24 endpoints)."""
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    checked = 0
    for name, endpoint in endpoints.items():
        parameters = endpoint["parameters"]
        if not parameters:
            continue
        defaults = [p.get("parameter_default") for p in parameters]
        kind, message = _raw_call(client, name, defaults[:-1])
        assert kind == "error", name
        count = f"{len(parameters)} values, in this order" if len(parameters) > 1 else "1 value"
        assert message.startswith(f"'{parameters[-1]['label']}' was not given: this call takes {count}:"), \
            (name, message)
        assert "event handler" not in message and "object at 0x" not in message, (name, message)
        checked += 1
    assert checked >= 24


def test_a_fraction_for_a_whole_number_is_refused_not_cut(client):
    """2.5 was silently cut to 2 for every argument of precision 0 (35 calls)."""
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    checked = 0
    for name, endpoint in endpoints.items():
        parameters = endpoint["parameters"]
        defaults = [p.get("parameter_default") for p in parameters]
        for i, parameter in enumerate(parameters):
            if parameter["python_type"]["type"] != "int":
                continue
            args = list(defaults)
            args[i] = 2.5
            with pytest.raises(gradio_client.exceptions.AppError) as refused:
                client.predict(*args, api_name=name)
            assert str(refused.value) == f"'{parameter['label']}' takes a whole number, not 2.5.", (name, refused.value)
            checked += 1
    assert checked >= 30


def test_a_file_input_takes_uploads_of_this_app_only_and_nothing_is_fetched(client, monkeypatch):
    """A FileData whose path was a web address made the server download it (a DNS lookup was seen)."""
    import socket

    looked_up = []
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: (looked_up.append(host), real(host, *a, **k))[1]
                        if host not in ("b.invalid",) else looked_up.append(host) or real("localhost", *a, **k))
    others = [224, 16, "crop", 64, 0, 1, 1, "spotlight"]
    meta = {"_type": "gradio.FileData"}
    for payload, said in [
        ({"path": "http://b.invalid/x.png", "meta": meta}, "takes a file uploaded to this app, not a web address"),
        ({"path": "//b.invalid/x.png", "meta": meta}, "not a web address"),
        ({"path": "x.png", "url": "http://b.invalid/x.png", "meta": meta}, "its 'url' may only name this app's own"),
        ({"path": "/etc/passwd", "meta": meta}, "not a path on the server"),
    ]:
        kind, message = _raw_call(client, "/image_attention", ["astronaut", payload, *others])
        assert kind == "error" and said in message, (payload, message)
    assert "b.invalid" not in looked_up


def test_an_upload_leaves_the_disk_when_its_call_ends_and_a_second_call_still_reads_it(client):
    import io
    import os

    import httpx
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)).save(buffer, "PNG")
    base = client.src.rstrip("/") + "/gradio_api"
    path = httpx.post(f"{base}/upload", files={"files": ("p.png", buffer.getvalue(), "image/png")}).json()[0]
    assert os.path.exists(path)
    payload = {"path": path, "url": f"{base}/file={path}", "orig_name": "p.png", "meta": {"_type": "gradio.FileData"}}
    first = _raw_call(client, "/image_attention", ["astronaut", payload, 0, 16, "crop", 64, 0, 1, 1, "spotlight"])
    assert first[0] == "complete" and "4 x 4" in first[1]
    assert not os.path.exists(path)                           # read, then deleted as the call ended
    again = _raw_call(client, "/image_attention", ["astronaut", payload, 0, 8, "crop", 64, 0, 1, 1, "spotlight"])
    assert again[0] == "complete" and "8 x 8" in again[1]     # the browser sends the same path: its bytes were kept


def test_a_request_body_over_the_limit_is_refused_before_it_is_read(client):
    import httpx

    from engine import limits

    big = "x" * (limits.GRADIO_MAX_REQUEST_BYTES + 1)
    reply = httpx.post(client.src.rstrip("/") + "/gradio_api/call/attention", timeout=60,
                       json={"data": [big, True, False, 0]})
    assert reply.status_code == 413 and "may be at most 1,000,000 bytes" in reply.text


def test_typed_text_reads_as_typed_in_the_summaries_and_the_error_box(client):
    """The summaries are Markdown and the error box reads HTML: neither renders what was typed."""
    from tests.markdown_leaks import HOSTILE, rendered_leaks

    x = f"{HOSTILE['dollars']}: 1, 0\n{HOSTILE['image']}: 0, 1"
    summary = client.predict(x, True, False, 0, 1.0, False, "identity", 0, api_name="/attention")[2]
    assert r"\$x\$" in summary and not rendered_leaks(summary, HOSTILE["dollars"] + " " + HOSTILE["image"])
    with pytest.raises(gradio_client.exceptions.AppError) as refused:
        client.predict(f"{HOSTILE['html']}: 1, oops", True, False, 0, 1.0, False, "identity", 0,
                       api_name="/attention")
    assert "<img" not in str(refused.value)


def test_uploads_no_call_read_are_deleted_when_the_server_stops():
    """30 uploads left 201 MB in Gradio's temp folder, never cleaned, not even at shutdown. gradio_app.py started on
    its own (its own GRADIO_TEMP_DIR), 8 uploads, 4 read by a call, then SIGTERM as a container stops."""
    from bench.session_memory import run_gradio

    figures = run_gradio(1, 0.3)
    print(figures)
    assert figures["uploaded"] > 0
    assert figures["after the calls"] < figures["uploaded"] * 0.6      # what a call read is gone
    assert figures["after shutdown"] == 0
