"""engine.prepare is the one home of heavy objects: the Streamlit app's cache (ui.loaders), the Gradio Space's
(gradio_tabs.loaders) and the class questions' (engine.classroom.questions.EngineSources) keep what it opens and
build nothing of their own.

Each front door is shown to answer with engine.prepare's function of the same name: that function replaced by one
that returns a marker, every front door's loader returns the marker. What is built on another heavy object reads it
through the caller's own cache (opened once, not once per result). And the two front-end loader modules import no
engine module but engine.prepare (and engine.limits' numbers), read from their source.
"""
from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

from engine import prepare

ROOT = Path(__file__).resolve().parents[2]
LOADERS = {"ui/loaders.py": {"engine.prepare"}, "gradio_tabs/loaders.py": {"engine.prepare", "engine.limits"}}
GRADIO = {"tokens": "corpus_tokens", "counts": "corpus_counts", "corpus_characters": "corpus_characters",
          "corpus_bpe": "corpus_bpe", "gpt2": "gpt2_tokenizer", "glove": "glove", "smollm2": "smollm2",
          "shipped": "shipped_transformer", "ladder": "fixed_ladder"}    # the Space's names -> the engine's


class Marker:
    """What a replaced engine function returns: which function, with which arguments."""

    def __init__(self, name: str, args: tuple):
        self.name, self.args = name, args

    def __eq__(self, other):
        return isinstance(other, Marker) and (self.name, self.args) == (other.name, other.args)

    def __hash__(self):
        return hash((self.name, self.args))

    def __getitem__(self, key):               # char_ngrams()[n], shipped_transformer()[0]: the marker still
        return self


def marked(monkeypatch, name: str) -> None:
    def replaced(*args, sources=None):
        return Marker(name, args)
    monkeypatch.setattr(prepare, name, replaced)


def arguments(function) -> tuple:
    """One made-up value per parameter (all but `sources`): hashable, so every cache can key on them."""
    return tuple(f"arg{i}" for i, p in enumerate(inspect.signature(function).parameters.values())
                 if p.name != "sources")


def streamlit_loaders():
    from ui import loaders

    return {name: value for name, value in vars(loaders).items()
            if callable(value) and hasattr(value, "clear") and getattr(value, "__module__", "") == loaders.__name__}


@pytest.fixture(autouse=True)
def nothing_replaced_is_kept():
    """Whatever a test opened through a replaced function leaves no front door's cache (the next test, in this
    process, would read a marker)."""
    yield
    for name in prepare.OPENED:
        getattr(prepare.Cached, name).cache_clear()
    if "ui.loaders" in sys.modules:
        for loader in streamlit_loaders().values():
            loader.clear()


@pytest.fixture
def no_torch_threads(monkeypatch):
    monkeypatch.setattr(prepare, "serve_on_one_thread", lambda: None)


def test_every_heavy_object_has_one_engine_function_and_one_cached_method():
    for name, kept in prepare.OPENED.items():
        assert inspect.isfunction(getattr(prepare, name)), name
        assert kept is None or kept >= 0, name
        assert getattr(prepare.Cached, name).cache_info().maxsize == kept, name
    named = {task.__name__ for task in prepare.tasks().values() if task.__name__ != "<lambda>"}
    assert named == {"corpus", "glove", "smollm2", "induction_scores", "fixed_ladder"} and named <= set(prepare.OPENED)


def test_every_streamlit_loader_answers_with_the_engine_function_of_its_name(monkeypatch, no_torch_threads):
    loaders = streamlit_loaders()
    assert {"tokenized", "ngram_counts", "held_out", "glove", "smollm2", "pretrained_heads", "generation",
            "fixed_ladder", "char_ngrams", "pretrained_logit_lens"} <= set(loaders)
    for name, loader in loaders.items():
        assert name in prepare.OPENED, f"ui.loaders.{name} keeps something engine.prepare does not name"
        marked(monkeypatch, name)
        loader.clear()
        args = arguments(loader)
        assert loader(*args) == Marker(name, args), name
        loader.clear()


def test_every_class_question_source_answers_with_the_engine_function_of_its_name(monkeypatch):
    from engine.classroom.questions import EngineSources

    sources = EngineSources()
    for name in prepare.OPENED:
        marked(monkeypatch, name)
        getattr(EngineSources, name).cache_clear()
        args = arguments(getattr(prepare, name))
        assert getattr(sources, name)(*args) == Marker(name, args), name
        getattr(EngineSources, name).cache_clear()


def test_every_gradio_loader_answers_with_the_engine_function_of_its_name(monkeypatch, no_torch_threads):
    from gradio_tabs import loaders

    public = {name for name, value in vars(loaders).items()
              if inspect.isfunction(value) and value.__module__ == loaders.__name__ and not name.startswith("_")}
    assert public == set(GRADIO) | {"char_ngram", "heads"}
    for ours, engine_name in GRADIO.items():
        marked(monkeypatch, engine_name)
        getattr(prepare.Cached, engine_name).cache_clear()
        answer = getattr(loaders, ours)(*arguments(getattr(loaders, ours)))
        assert isinstance(answer, Marker) and answer.name == engine_name, ours
        getattr(prepare.Cached, engine_name).cache_clear()
    for engine_name in ("char_ngrams", "pretrained_heads", "pretrained_head_types", "smollm2"):
        marked(monkeypatch, engine_name)
        getattr(prepare.Cached, engine_name).cache_clear()
    assert loaders.char_ngram(3).name == "char_ngrams"
    assert [answer.name for answer in loaders.heads("a text")] == ["pretrained_heads", "pretrained_head_types"]
    for engine_name in ("char_ngrams", "pretrained_heads", "pretrained_head_types", "smollm2"):
        getattr(prepare.Cached, engine_name).cache_clear()


def test_the_three_front_doors_open_the_same_object(monkeypatch, no_torch_threads):
    """One engine function replaced: the Streamlit loader, the Gradio loader and the class's sources all answer
    with what it returns."""
    from engine.classroom.questions import EngineSources
    from gradio_tabs import loaders as space
    from ui import loaders as app

    opened = object()
    monkeypatch.setattr(prepare, "glove", lambda: opened)
    app.glove.clear()
    prepare.Cached.glove.cache_clear()
    try:
        assert app.glove() is space.glove() is EngineSources().glove() is opened
    finally:
        app.glove.clear()
        prepare.Cached.glove.cache_clear()


def test_what_is_built_on_a_heavy_object_reads_it_through_the_callers_cache(monkeypatch):
    """A student's own text: its tokens are made once per front door, though its counts and its held-out table
    (built on the counts) both read them."""
    from engine.classroom.questions import EngineSources
    from engine.language.corpus import OWN_TEXT
    from ui import loaders as app

    real, made = prepare.tokenized, []

    def counted(source, level, own_text):
        made.append((source, level, own_text))
        return real(source, level, own_text)

    monkeypatch.setattr(prepare, "tokenized", counted)
    own = "To be, or not to be, that is the question.\n" * 40
    for front_door in (app, EngineSources()):
        made.clear()
        rows = front_door.held_out(OWN_TEXT, "characters", own)
        assert rows and front_door.ngram_counts(OWN_TEXT, "characters", own).max_order >= 1
        assert made == [(OWN_TEXT, "characters", own)]          # once, for the tokens, the counts and the rows
    for loader in (app.tokenized, app.ngram_counts, app.held_out):
        loader.clear()


@pytest.mark.parametrize("file", sorted(LOADERS))
def test_a_front_end_loader_imports_no_engine_builder_but_the_home_module(file):
    tree = ast.parse((ROOT / file).read_text())
    imported = set()
    for node in ast.walk(tree):                # inside functions too: a lazy import is an import
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= ({node.module} if node.module != "engine" else {f"engine.{a.name}" for a in node.names})
    engine = {name for name in imported if name == "engine" or name.startswith("engine.")}
    assert engine <= LOADERS[file], f"{file} imports {sorted(engine - LOADERS[file])}: open it in engine.prepare"
    assert "engine.prepare" in engine


def test_the_ladder_keeps_its_models_names_as_written_whatever_language_builds_it():
    """The ladder is built once per machine: its models' names are the source's (each page reads them in its own
    language), never those of the request that happened to build it (a pseudo-language run once froze them)."""
    from engine import i18n

    with i18n.use(i18n.PSEUDO.code):
        rungs = prepare.fixed_ladder()
    assert rungs and all(i18n.PSEUDO_OPEN not in rung.model for rung in rungs)
    assert any(rung.model == "4-gram (Kneser-Ney)" for rung in rungs)
