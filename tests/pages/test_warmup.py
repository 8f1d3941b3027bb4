"""ui.warmup: what it fills is exactly what the pages read, and it stays off outside a server."""
from __future__ import annotations

import pytest

import engine.embeddings.glove
import engine.language.ngram
import engine.pretrained.smollm2
import engine.language.tokenizers
from tests.pages.conftest import no_exception
from ui import warmup


def test_no_thread_without_a_server_or_with_the_switch_off(monkeypatch):
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "_asked", set())
    monkeypatch.delenv(warmup.ENVIRONMENT_SWITCH, raising=False)
    warmup.prefetch(*warmup.TASKS)                   # pytest and AppTest have no Streamlit runtime
    assert warmup._thread is None and not warmup._asked
    monkeypatch.setenv(warmup.ENVIRONMENT_SWITCH, "0")
    warmup.prefetch(*warmup.TASKS)
    assert warmup._thread is None and not warmup._asked


def test_an_unknown_task_is_a_programming_error():
    with pytest.raises(KeyError, match="No warm-up task"):
        warmup.prefetch("everything")


def test_every_page_prefetches_known_tasks_and_each_task_is_asked_for():
    import re
    from pathlib import Path

    asked = set()
    root = Path(warmup.__file__).resolve().parents[1]
    for page in [*root.glob("views/*.py"), root / "app.py"]:   # app.py: what every page opens on
        source = page.read_text()
        asked |= set(re.findall(r'warmup\.prefetch\("([^"]+)"\)', source))
        asked |= {getattr(warmup, name) for name in re.findall(r"warmup\.prefetch\(warmup\.([A-Z_]+)\)", source)}
    assert asked == set(warmup.TASKS)


def test_after_the_warm_up_the_cold_choices_compute_nothing(run_page, smollm2_installed, monkeypatch):
    for fill in warmup.TASKS.values():
        fill()

    def computed(*args, **kwargs):
        raise AssertionError("computed again: the warm-up filled a different cache entry than the page reads")

    # each of these runs only inside a cached loader, so after the warm-up none may run
    monkeypatch.setattr(engine.language.tokenizers, "tokenizer_for", computed)
    monkeypatch.setattr(engine.language.ngram, "count_ngrams", computed)
    monkeypatch.setattr(engine.language.ngram, "held_out_rows", computed)
    one_question = engine.embeddings.glove.score_analogies          # the page scores the student's own analogy

    def scored(wv, questions, *args, **kwargs):
        if len(questions) > 1:                                  # the whole set: the accuracy chart's work
            computed()
        return one_question(wv, questions, *args, **kwargs)
    monkeypatch.setattr(engine.embeddings.glove, "score_analogies", scored)
    monkeypatch.setattr(engine.pretrained.smollm2, "sample_text", computed)

    ngram = run_page("views/ngram.py", query={"level": "BPE"})
    no_exception(ngram)
    assert not ngram.error, [e.value for e in ngram.error]

    tokens = run_page("views/tokens.py", query={"level": "BPE"})
    no_exception(tokens)

    embeddings = run_page("views/embeddings.py")
    embeddings.radio(key="embeddings.method").set_value("3cosmul").run()
    no_exception(embeddings)

    generate = run_page("views/generate.py")
    generate.toggle(key="sample_smollm2").set_value(True).run()
    no_exception(generate)
    assert not generate.error, [e.value for e in generate.error]
