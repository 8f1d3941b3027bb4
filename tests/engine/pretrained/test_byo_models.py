"""Bring your own model: any Llama-architecture GGUF file, read by our pass, against transformers on the same file.

Small random models are written with gguf's own GGUFWriter (tests/gguf_models.py) in several shapes
(layers, width, query and key/value heads, vocabulary, tied or untied output) and number formats
(F32, F16, Q8_0, Q4_0, Q4_1); transformers' LlamaForCausalLM reads the same file with its GGUF loader
and must give the same logits and the same weights in every head. Files the pass cannot read give a
sentence that says what is supported.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from engine import limits
from engine.machinery import cache
from engine.pretrained import gguf_file
from engine.interpret import heads, interventions
from engine.pretrained import smollm2 as P
from tests.gguf_models import Shape, write_llama

TEXTS = ["The cat sat on the mat",
         "Mary had a little lamb, its fleece was white as snow 12345 \u00e9t\u00e9 \U0001f642"]
SHAPES = {
    "2 layers, d 64, 4 heads, 2 kv, untied": (Shape(), False),
    "3 layers, d 48, 6 heads, 6 kv, tied": (Shape(n_layer=3, d_model=48, n_head=6, n_kv_head=6, d_ff=80,
                                                  vocab_size=320, rope_base=500_000.0, norm_eps=1e-6), True),
    "1 layer, d 64, 2 heads, 1 kv, tied": (Shape(n_layer=1, n_head=2, n_kv_head=1, d_ff=64, vocab_size=280), True),
}
# (shape, number format): Q8_0 and Q4_x need rows of whole 32-number blocks (d 48 is not)
CASES = [(shape, "F32") for shape in SHAPES] + [(shape, "F16") for shape in SHAPES] + [
    ("2 layers, d 64, 4 heads, 2 kv, untied", "Q8_0"), ("2 layers, d 64, 4 heads, 2 kv, untied", "Q4_1"),
    ("1 layer, d 64, 2 heads, 1 kv, tied", "Q4_0"), ("1 layer, d 64, 2 heads, 1 kv, tied", "Q8_0")]


@pytest.fixture(scope="module")
def transformers():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local files only; never ask the hub
    return pytest.importorskip("transformers", reason="the peer tests need transformers and gguf: "
                                                      "pip install -r requirements-test.txt")


@pytest.fixture(scope="module")
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _peer(transformers, path):
    llama = transformers.LlamaForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32,
                                                          attn_implementation="eager")
    return llama.eval()


@pytest.mark.parametrize("shape, kind", CASES)
def test_same_numbers_as_transformers_llama(tmp_path, transformers, one_thread, shape, kind):
    sizes, tied = SHAPES[shape]
    path = write_llama(tmp_path / f"random-{kind}.gguf", sizes, tied=tied, kind=kind, seed=len(shape))
    model = P.load(path)
    assert model.config.n_layer == sizes.n_layer and model.config.n_kv_head == sizes.n_kv_head
    assert model.tied == tied and model.name == f"random-{kind}"
    llama = _peer(transformers, path)
    assert sum(p.numel() for p in llama.parameters()) == model.n_parameters
    for text in TEXTS:
        ids = model.encode_text(text)[0]
        with torch.inference_mode():
            out = llama(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
        ours = model.forward(ids)
        assert ours.weights.shape == (sizes.n_layer, sizes.n_head, len(ids), len(ids))
        np.testing.assert_allclose(ours.logits, out.logits[0].numpy(), atol=2e-4, rtol=1e-4)
        np.testing.assert_allclose(ours.weights, torch.stack(out.attentions)[:, 0].numpy(), atol=3e-5)
        np.testing.assert_allclose(ours.hidden_states[:-1], torch.stack(out.hidden_states)[:-1, 0].numpy(),
                                   atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("kind", ["F16", "Q8_0", "Q4_0", "Q4_1"])
def test_dequantized_weights_are_ggufs_own(tmp_path, kind):
    """Every tensor comes out as gguf.quants.dequantize makes it, whatever its rows per read."""
    import gguf

    path = write_llama(tmp_path / "q.gguf", Shape(n_layer=1), kind=kind, tied=False)
    _, weights, _ = gguf_file.read_gguf(path)
    reader = gguf.GGUFReader(str(path))
    for tensor in reader.tensors:
        expected = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        np.testing.assert_array_equal(weights[tensor.name], expected.reshape(weights[tensor.name].shape))
    stored = {tensor.name: tensor.tensor_type.name for tensor in reader.tensors}
    assert stored["blk.0.attn_q.weight"] == kind and stored["blk.0.attn_norm.weight"] == "F32"


@pytest.mark.parametrize("tokenizer, pre", [("gpt2", "gpt2"), ("gpt2", "llama-bpe"), ("llama", None)])
def test_same_tokens_as_transformers_tokenizer(tmp_path, transformers, tokenizer, pre):
    path = write_llama(tmp_path / "t.gguf", Shape(n_layer=1, vocab_size=330), tokenizer=tokenizer,
                       pre=pre or "default")
    ours = P.load(path).tokenizer
    theirs = transformers.AutoTokenizer.from_pretrained(str(tmp_path), gguf_file=path.name)
    for text in TEXTS + ["  two  spaces\n\nand tabs\t!", "don't won't I'll", "1234567 ab12", "\u6771\u4eac"]:
        ids = ours.encode(text)
        assert ids == theirs(text, add_special_tokens=False)["input_ids"], text
        assert ours.decode(ids) == theirs.decode(ids)
        assert ours.decode(ids) == text or tokenizer == "llama"   # sentencepiece loses a leading space
        pieces = b"".join(ours.token_bytes(i) for i in ids)
        assert pieces == text.encode() or (tokenizer == "llama" and pieces == b" " + text.encode())  # ▁ in front


def test_a_sentencepiece_model_reads_documents_after_its_bos(tmp_path):
    model = P.load(write_llama(tmp_path / "sp.gguf", Shape(n_layer=1, vocab_size=340), tokenizer="llama"))
    ids, _ = model.encode_text("The cat")
    assert model.start_id == 1 and ids[0] == 1 and model.tokenizer.display(1) == "<s>"
    assert model.tokenizer.tokens("The cat")[0] == " The" and "".join(model.tokenizer.tokens("The cat")) == " The cat"
    assert "<0xC3>" in model.tokenizer.tokens("\u00e9")       # no piece for é: its first byte, part of a character


def test_the_pages_questions_and_tools_run_on_a_small_model(tmp_path, one_thread):
    model = P.load(write_llama(tmp_path / "m.gguf", tied=False))
    dist = P.next_token_distribution("The cat sat on the", 5, model=model)
    assert len(dist.tokens) == 5 and dist.context_tokens[0] == "<|endoftext|>"
    assert P.sample_text("The cat", max_new_tokens=3, seed=1, model=model).steps
    assert 0 < P.score_text("The dog sat on the log.", model=model).bits_per_character < 20
    induction = heads.induction_probe(model)
    assert induction.shape == (2, 4) and np.isfinite(induction).all()
    lens = interventions.logit_lens(model, "The cat sat", k=3, target=" on")
    assert lens.top_ids.shape[0] == 3
    probe = interventions.copying_probe(model, 10, 0)
    ids = np.asarray(probe.ids)
    assert ids[0] == model.start_id and np.all((ids[1:] >= 75) & (ids[1:] < 300))


# --- which models, and how many are kept ------------------------------------------------------------

def test_available_models_lists_smollm2_first_then_the_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(P.MODELS_VARIABLE, raising=False)
    assert list(P.available_models()) == [P.DEFAULT_NAME]
    (tmp_path / "b-model.gguf").write_bytes(b"")
    (tmp_path / "a-model.gguf").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a model")
    (tmp_path / "folder.gguf").mkdir()
    monkeypatch.setenv(P.MODELS_VARIABLE, str(tmp_path))
    models = P.available_models()
    assert list(models) == [P.DEFAULT_NAME, "a-model", "b-model"]
    assert models["a-model"] == tmp_path / "a-model.gguf"
    monkeypatch.setenv(P.MODELS_VARIABLE, str(tmp_path / "nowhere"))
    assert list(P.available_models()) == [P.DEFAULT_NAME]


def test_the_folder_lists_and_opens_only_regular_files_inside_it(tmp_path, monkeypatch):
    """`x.gguf -> /etc/passwd` was listed and read, and a model outside the folder loaded through a link: a link that
    leaves the folder, a folder and a link to nothing are left out, each with its sentence; a link that stays inside
    is followed. Loading a file of the folder checks again (it may have been swapped for a link since)."""
    folder, elsewhere = tmp_path / "models", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    inside = write_llama(folder / "inside.gguf", Shape(n_layer=1))
    outside = write_llama(elsewhere / "outside.gguf", Shape(n_layer=1))
    (folder / "passwd.gguf").symlink_to("/etc/passwd")
    (folder / "outside.gguf").symlink_to(outside)
    (folder / "again.gguf").symlink_to(inside)                 # stays in the folder: read
    (folder / "dangling.gguf").symlink_to(folder / "gone")
    (folder / "folder.gguf").mkdir()
    monkeypatch.setenv(P.MODELS_VARIABLE, str(folder))
    assert list(P.available_models()) == [P.DEFAULT_NAME, "again", "inside"]
    refused = P.refused_models()
    assert sorted(refused) == ["dangling.gguf", "folder.gguf", "outside.gguf", "passwd.gguf"]
    assert "passwd.gguf in the models folder is a link to a file outside it; it is left out" in refused["passwd.gguf"]
    assert "is not a file" in refused["folder.gguf"] and "cannot be read" in refused["dangling.gguf"]
    with pytest.raises(ValueError, match="outside.gguf in the models folder is a link to a file outside it"):
        P.load(folder / "outside.gguf")
    assert P.load(folder / "again.gguf").config.n_layer == 1
    (folder / "inside.gguf").unlink()                          # swapped for a link after it was listed
    (folder / "inside.gguf").symlink_to(outside)
    with pytest.raises(ValueError, match="is a link to a file outside it"):
        P.load(folder / "inside.gguf")


def test_a_few_models_stay_loaded_each_in_its_own_cache_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_LOADED_MODELS", 2)
    paths = [write_llama(tmp_path / f"m{i}.gguf", Shape(n_layer=1), seed=i) for i in range(3)]
    first = P.load(paths[0])
    assert P.load(paths[0]) is first and P.load(str(paths[0])) is first
    P.load(paths[1])
    P.load(paths[2])                     # the least recently used, m0, is let go
    assert P.load(paths[1]) is P.load(paths[1]) and P.load(paths[0]) is not first
    keys = {key for name, key, _ in cache.entries() if name == "gguf-models"}
    assert len(keys) >= 3                # one entry per file content
    np.testing.assert_array_equal(P.load(paths[0]).token_embedding.numpy(), first.token_embedding.numpy())


# --- files it cannot read: a sentence that says what it reads ---------------------------------------

def test_another_architecture_is_a_sentence(tmp_path):
    path = write_llama(tmp_path / "gpt2.gguf", architecture="gpt2")
    with pytest.raises(ValueError, match=r"reads Llama-architecture GGUF files \(as SmolLM2's.*this file "
                                         r".*says its architecture is 'gpt2'"):
        gguf_file.read_gguf(path)
    with pytest.raises(ValueError, match="architecture is 'gpt2'"):
        P.load(path)


@pytest.mark.parametrize("keep", [0.6, 0.02])
def test_a_truncated_file_is_a_sentence(tmp_path, keep):
    path = write_llama(tmp_path / "whole.gguf", Shape(n_layer=1))
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(path.read_bytes()[:int(path.stat().st_size * keep)])
    with pytest.raises(ValueError, match="cut short.*Llama-architecture|Llama-architecture.*cut short|cut short"):
        gguf_file.read_gguf(cut)
    with pytest.raises(ValueError, match="Llama-architecture|cut short"):
        P.load(cut)


def test_files_the_llama_pass_cannot_read_say_why(tmp_path, monkeypatch):
    extra = write_llama(tmp_path / "extra.gguf", Shape(n_layer=1),
                        extra={"rope_freqs.weight": np.ones(8, dtype=np.float32)})
    with pytest.raises(ValueError, match="plain rotary"):
        gguf_file.read_gguf(extra)
    bias = write_llama(tmp_path / "bias.gguf", Shape(n_layer=1),
                       extra={"blk.0.attn_q.bias": np.zeros(64, dtype=np.float32)})
    with pytest.raises(ValueError, match=r"does not use \(blk.0.attn_q.bias\)"):
        gguf_file.read_gguf(bias)
    groups = write_llama(tmp_path / "groups.gguf", Shape(n_layer=1, n_head=4, n_kv_head=3, d_model=48))
    with pytest.raises(ValueError, match="key/value heads to divide"):
        gguf_file.read_gguf(groups)
    bert = write_llama(tmp_path / "bert.gguf", Shape(n_layer=1), pre="bert-like-split")
    with pytest.raises(ValueError, match="splits text before its merges as 'bert-like-split'"):
        gguf_file.read_gguf(bert)
    monkeypatch.setattr(limits, "MAX_MODEL_PARAMETERS", 1_000)
    with pytest.raises(ValueError, match="billion parameters"):
        gguf_file.read_gguf(write_llama(tmp_path / "big.gguf", Shape(n_layer=1)))


def test_another_tokenizer_kind_is_a_sentence(tmp_path):
    import gguf

    path = write_llama(tmp_path / "wordpiece.gguf", Shape(n_layer=1))
    reader = gguf.GGUFReader(str(path), "r+")       # rewrite 'gpt2' as 'bert' in place: same length, same layout
    field = reader.fields["tokenizer.ggml.model"]
    field.parts[field.data[0]][:] = np.frombuffer(b"bert", dtype=np.uint8)
    del reader
    with pytest.raises(ValueError, match="tokenizer of kind 'bert'.*'gpt2'.*'llama'"):
        gguf_file.read_gguf(path)
