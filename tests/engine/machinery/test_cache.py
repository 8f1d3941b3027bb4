"""The prepared cache (engine.machinery.cache, engine.prepare): memory-mapped arrays equal freshly computed
ones bit for bit; a truncated or corrupt file is found and rebuilt; two processes preparing at
once leave one valid entry; a read-only or missing folder still works; nothing is pickled."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import prepare
from engine.machinery import cache
from engine.language import corpus, ngram, tokenizers

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A cache folder of this test's own."""
    monkeypatch.setenv(cache.ENVIRONMENT_VARIABLE, str(tmp_path / "cache"))
    return tmp_path / "cache"


def build_counter(arrays):
    """A build function that counts its calls."""
    calls = []

    def build():
        calls.append(1)
        return {name: np.array(value) for name, value in arrays.items()}, {"note": "meta survives"}
    return build, calls


def entry_files(folder: Path, name: str) -> list[Path]:
    return sorted(p for p in (folder / name).glob("*/*.npy"))


def test_an_entry_is_built_once_then_memory_mapped_read_only(folder):
    build, calls = build_counter({"a": np.arange(10, dtype=np.int32), "b": np.eye(3), "empty": np.zeros(0)})
    first, meta = cache.cached("toy", build, params={"n": 10})
    second, meta2 = cache.cached("toy", build, params={"n": 10})
    assert len(calls) == 1
    assert meta == meta2 == {"note": "meta survives"}
    assert isinstance(second["a"], np.memmap) and not second["a"].flags.writeable
    for name, value in build()[0].items():
        assert np.array_equal(second[name], value) and second[name].dtype == value.dtype
    with pytest.raises(ValueError):
        second["a"][0] = 1


def test_the_key_follows_parameters_input_content_and_code(folder, tmp_path):
    source = tmp_path / "input.txt"
    source.write_text("one")
    build, calls = build_counter({"a": np.arange(3)})
    cache.cached("toy", build, inputs=[source])
    cache.cached("toy", build, inputs=[source])
    assert len(calls) == 1
    source.write_text("two")
    cache.cached("toy", build, inputs=[source])
    assert len(calls) == 2, "new input content must not read the old entry"
    cache.cached("toy", build, inputs=[source], params={"n": 1})
    assert len(calls) == 3
    assert cache.entry_key({}, [source], [ngram]) != cache.entry_key({}, [source], [corpus])


@pytest.mark.parametrize("damage", ["truncate", "flip a byte", "delete", "bad manifest"])
def test_a_damaged_entry_is_logged_and_rebuilt(folder, caplog, damage):
    values = np.arange(100_000, dtype=np.float64)
    build, calls = build_counter({"values": values})
    cache.cached("toy", build)
    [file] = entry_files(folder, "toy")
    if damage == "truncate":
        with open(file, "r+b") as handle:
            handle.truncate(file.stat().st_size // 2)
    elif damage == "flip a byte":
        data = bytearray(file.read_bytes())
        data[-100] ^= 0xFF
        file.write_bytes(bytes(data))
    elif damage == "delete":
        file.unlink()
    else:
        (file.parent / cache.MANIFEST).write_text("{not json")
    with caplog.at_level(logging.WARNING, logger="engine.machinery.cache"):
        arrays, _ = cache.cached("toy", build)
    assert len(calls) == 2
    assert "damaged" in caplog.text and "rebuilding" in caplog.text
    assert np.array_equal(arrays["values"], values)
    assert len(list((folder / "toy").glob("*/" + cache.MANIFEST))) == 1
    assert not [p for p in (folder / "toy").iterdir() if p.name.startswith(".") and p.name != ".lock"]


def test_switched_off_the_arrays_still_come(monkeypatch):
    build, calls = build_counter({"a": np.arange(4)})
    monkeypatch.setenv(cache.ENVIRONMENT_VARIABLE, "off")
    arrays, _ = cache.cached("toy", build)
    assert np.array_equal(arrays["a"], np.arange(4)) and len(calls) == 1


def test_a_read_only_image_cache_is_read_without_writing(folder, monkeypatch):
    """A baked cache the process cannot write to (a container's image): read, never locked."""
    build, calls = build_counter({"a": np.arange(5)})
    cache.cached("toy", build)

    def no_lock(path):
        raise PermissionError(13, "Read-only file system")
    monkeypatch.setattr(cache, "_locked", no_lock)
    arrays, _ = cache.cached("toy", build)
    assert len(calls) == 1 and np.array_equal(arrays["a"], np.arange(5))


def test_python_objects_are_refused_not_pickled(folder):
    def objects():
        return {"words": np.array(["a", None], dtype=object)}, {}
    arrays, _ = cache.cached("objects", objects)   # built in memory, the refusal logged
    assert arrays["words"].dtype == object
    assert not list(folder.glob("objects/*/" + cache.MANIFEST))


def test_no_pickle_anywhere():
    """The cache and the engine read only .npy (allow_pickle=False), JSON and safetensors."""
    offenders = []
    for path in [*ROOT.glob("engine/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("views/*.py"), ROOT / "app.py"]:
        text = path.read_text()
        if "import pickle" in text or "allow_pickle=True" in text or "torch.load(" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


def test_two_processes_preparing_at_once_leave_one_valid_entry(tmp_path, monkeypatch):
    env = dict(os.environ, PLAYGROUND_CACHE=str(tmp_path / "shared"))
    command = [sys.executable, "-m", "engine.prepare", "--only", "corpus", "tokens-words"]
    runs = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    for name in ("corpus", "tokens-words"):
        entries = list((tmp_path / "shared" / name).glob("*/" + cache.MANIFEST))
        assert len(entries) == 1, entries
        assert not [p for p in (tmp_path / "shared" / name).iterdir() if p.name.startswith(".") and p.name != ".lock"]
    monkeypatch.setenv(cache.ENVIRONMENT_VARIABLE, str(tmp_path / "shared"))
    tokenizer, train, validation = prepare.corpus_tokens("words")
    fresh = tokenizers.tokenizer_for("words", *corpus.source_split(corpus.ALL_PLAYS))
    assert tokenizer == fresh
    assert np.array_equal(train, tokenizers.id_array(fresh.encode(corpus.load_corpus().train), fresh.vocab_size))


# --- the prepared entries equal what the pages computed before, bit for bit ---------------------------

def test_corpus_from_the_cache_equals_the_plays_cleaned_again(folder):
    cached_corpus = corpus.load_corpus.__wrapped__()
    fresh_arrays, fresh_meta = corpus._clean_plays(corpus.play_files())
    assert cached_corpus.text == "\n".join(p.text for p in cached_corpus.by_title.values())
    text = bytes(fresh_arrays["text"]).decode("utf-8")
    for title, slug, genre, start, end, split_at in fresh_meta["plays"]:
        play = cached_corpus.play(title)
        assert (play.slug, play.genre, play.text, play.split_at) == (slug, genre, text[start:end], split_at)


@pytest.mark.parametrize("level", tokenizers.LEVELS)
def test_token_ids_and_counts_equal_fresh_ones(folder, level):
    tokenizer, train, validation = prepare.corpus_tokens(level)
    tokenizer, train, validation = prepare.corpus_tokens(level)    # now read from the files
    assert isinstance(train, np.memmap)
    split = corpus.source_split(corpus.ALL_PLAYS)
    fresh = tokenizers.tokenizer_for(level, *split)
    fresh_train = tokenizers.id_array(fresh.encode(split[0]), fresh.vocab_size)
    assert np.array_equal(train, fresh_train) and train.dtype == fresh_train.dtype
    assert tokenizer.encode(split[1][:5000]) == fresh.encode(split[1][:5000])
    counts = prepare.corpus_counts(level)
    counts = prepare.corpus_counts(level)
    fresh_counts = ngram.count_ngrams(fresh_train, counts.max_order, fresh.vocab_size)
    for family in ("keys", "counts", "continuation"):
        for mapped, computed in zip(getattr(counts, family), getattr(fresh_counts, family), strict=True):
            assert np.array_equal(mapped, computed) and mapped.dtype == computed.dtype
    for family in ("raw", "kn_lower"):
        for mapped, computed in zip(getattr(counts, family), getattr(fresh_counts, family), strict=True):
            assert mapped.discount == computed.discount
            assert all(np.array_equal(getattr(mapped, part), getattr(computed, part))
                       for part in ("a", "start", "total", "types"))
    assert prepare.corpus_held_out(level) == ngram.held_out_rows(
        fresh_counts, tokenizers.id_array(fresh.encode(split[1]), fresh.vocab_size), range(1, counts.max_order + 1))


def test_glove_unit_vectors_equal_fresh_ones(folder):
    pytest.importorskip("pyarrow")
    from engine.embeddings import glove as embeddings

    try:
        data = embeddings.data_folder()
    except ValueError as error:
        pytest.skip(str(error))
    import pyarrow.parquet as pq

    mapped = embeddings.load_glove.__wrapped__()
    mapped = embeddings.load_glove.__wrapped__()
    words = pq.read_table(data / embeddings.WORDS_FILE, columns=["index"]).column("index").to_pylist()
    fresh = embeddings.WordVectors.from_arrays(words, np.load(data / embeddings.VECTORS_FILE))
    assert isinstance(mapped.unit, np.memmap)
    assert mapped.words == fresh.words and mapped.index == fresh.index
    assert np.array_equal(mapped.unit, fresh.unit) and np.array_equal(mapped.vectors, fresh.vectors)


def test_smollm2_weights_equal_the_dequantized_file(folder):
    from engine.pretrained import smollm2 as pretrained

    try:
        path = pretrained.model_path()
    except ValueError as error:
        pytest.skip(str(error))
    pretrained._load.__wrapped__(str(path))
    model = pretrained._load.__wrapped__(str(path))             # read back from the files
    config, weights, vocabulary = pretrained.read_gguf(path)
    assert model.config == config
    assert np.array_equal(model.token_embedding.numpy(), weights["token_embd.weight"])
    assert np.array_equal(model.blocks[7].W_q.numpy(), weights["blk.7.attn_q.weight"].T)
    assert np.array_equal(model.blocks[29].W_down.numpy(), weights["blk.29.ffn_down.weight"].T)
    assert model.tokenizer.encode("Mary had a little lamb") == pretrained.GGUFTokenizer(
        vocabulary["tokens"], vocabulary["merges"], vocabulary["token_type"]).encode("Mary had a little lamb")


def test_the_command_lists_what_it_prepared(folder):
    run = subprocess.run([sys.executable, "-m", "engine.prepare", "--only", "corpus", "held-out-characters"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "corpus" in run.stdout and "held-out-characters" in run.stdout and "MiB" in run.stdout
    wrong = subprocess.run([sys.executable, "-m", "engine.prepare", "--only", "nonsense"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "No entry called nonsense" in wrong.stderr and "Traceback" not in wrong.stderr
