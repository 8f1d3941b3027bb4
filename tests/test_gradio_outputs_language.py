"""Everything the Space's events show, under the pseudo language (issue 41): every event of every tab run with its
inputs as the Space first shows them, in a request for ?lang=en-XA, its outputs as the browser gets them (tables as
shown: headers and cells; charts' words, tests/chart_words.py; Markdown) leave no English word outside the pseudo
brackets, beyond what the models read and write:
- the words the event was given (example words, a prompt, the tokens of a typed text) and the cells of a table's
  columns of model text (tokens, words, samples, model and tokenizer names) and formulas (`model_columns`);
- code: `spans`, <code> chips, fenced blocks (a sample), a formula's symbols (out[0], cos(w, b));
- the names that read the same in every language (NAMES);
- a Textbox's value: text the models read or write (a sample, the typed vectors), never a sentence of ours.
The static texts (labels, buttons) are tests/test_gradio_static_language.py's; the take-home box's files
tests/test_gradio_take_home.py's. A new event is run here once it is named in EVENTS."""
from __future__ import annotations

import contextvars
import json
import re
from types import SimpleNamespace

import pytest

from engine import i18n
from engine.i18n import _, pgettext
from tests.chart_words import chart_words
from tests.pages.i18n_checks import INNERMOST, QUOTED

gr = pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")

EVENTS = ["intro", "next_token_tab", "tokenize_tab", "ngram_tab", "analogy_tab", "map_tab", "neighbours_tab",
          "hand_vectors_tab", "context_tab", "attention_tab", "multi_head_tab", "head_costs_tab", "preset_tab",
          "block_tab", "train_tab", "shuffle_tab", "position_tab", "encodings_tab", "generate_tab", "ladder_tab",
          "image_attention_tab", "audio_attention_tab", "residue_attention_tab"]
SMOLLM2_EVENTS = ["heads_tab", "logit_lens_tab", "head_effects_tab", "patching_tab"]
TAKE_HOME = {"made_handout", "made_charts"}     # files: tests/test_gradio_take_home.py
# the names of models, tokenizers and notations that read the same in every language (a page spec's name maps keep
# them as they are)
NAMES = {"Transformer", "Playground", "SmolLM2", "GPT", "BPE", "Kneser", "Ney", "gram", "GloVe", "relu", "gelu",
         "logit", "softmax", "out", "cos", "ln"}
CODE = re.compile(r"```.*?```|<code>.*?</code>|<[^>]+>|\b[A-Za-z]\w*_\w*", re.S)   # a block, a chip, a tag, W_vocab
WORD = re.compile(r"[A-Za-z]{2,}")


def model_columns() -> set[str]:
    """The headers (in the running language) of the table columns that hold what a model reads or writes."""
    return {_("token"), _("top token"), _("word"), _("nearest words"), _("residue"), _("character"),
            _("next character"), _("next token"), _("sample"), _("model"), _("tokenizer"), _("position"),
            _("offset"), pgettext("chart field", "patch"), _("computes")}   # the last: formulas


def english_words(text: str) -> list[str]:
    """The English words of `text` outside the pseudo brackets, what it quotes, and code."""
    text = CODE.sub(" ", text)
    while True:
        stripped = INNERMOST.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    return WORD.findall(QUOTED.sub(" ", text))


def shown_texts(outputs: list, values: list) -> tuple[list[tuple[str, str]], set[str]]:
    """(what, text) for every text the outputs show a reader, and the words of model text among them."""
    texts, model_text = [], set()
    with i18n.use(i18n.PSEUDO.code):                 # the headers as the event wrote them
        columns, top_k = model_columns(), _("top {k}", k="").rstrip(i18n.PSEUDO_CLOSE)
    for component, value in zip(outputs, values):
        if isinstance(value, dict) and value.get("__type__") == "update":
            value = value.get("value")
        if isinstance(component, gr.Dataframe) and isinstance(value, dict):
            headers = [str(h) for h in value["headers"]]
            texts += [("header", h) for h in headers]
            for row in value["metadata"]["display_value"]:
                for header, cell in zip(headers, row):
                    if header in columns or header.startswith(top_k):
                        model_text.update(WORD.findall(str(cell)))
                    else:
                        texts.append((f"cell of '{header}'", str(cell)))
        elif isinstance(component, gr.Plot) and isinstance(getattr(value, "plot", None), str):
            texts += [("chart", word) for word in chart_words(json.loads(value.plot), text_fields=("label",))]
        elif isinstance(component, (gr.Markdown, gr.HTML)) and isinstance(value, str):
            texts.append((type(component).__name__, value))
    return texts, model_text


@pytest.fixture(scope="module")
def events(monkeypatch_module):
    from gradio_tabs import common

    monkeypatch_module.setattr(common, "_current_request", lambda: SimpleNamespace(
        query_params={"lang": i18n.PSEUDO.code}, headers={}, base_url="http://space.example/"))
    import gradio_app

    found = {}
    for block_fn in gradio_app.demo.fns.values():
        if block_fn.fn is not None:
            found.setdefault(block_fn.fn.__name__, block_fn)
    return found


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_every_event_of_the_space_is_run_here(events):
    assert set(events) == set(EVENTS) | set(SMOLLM2_EVENTS) | TAKE_HOME


def _run(block_fn, given: list):
    """The event's outputs (a streamed event's last), as Gradio runs it: in a context of its own (a generator's steps
    set their request's language in the context they run in)."""
    result = block_fn.fn(*given)
    return list(result)[-1] if hasattr(result, "__next__") else result


def _english_left(block_fn) -> list[tuple[str, str]]:
    given = [getattr(component, "value", None) for component in block_fn.inputs]
    result = contextvars.copy_context().run(_run, block_fn, given)
    values = list(result) if isinstance(result, (list, tuple)) else [result]
    texts, model_text = shown_texts(list(block_fn.outputs), values)
    read = model_text | NAMES | {w for value in given if isinstance(value, str) for w in WORD.findall(value)}
    left = [(what, text) for what, text in texts if set(english_words(text)) - read]
    assert texts or not any(isinstance(c, (gr.Dataframe, gr.Plot, gr.Markdown)) for c in block_fn.outputs)
    return left


@pytest.mark.parametrize("name", EVENTS)
def test_an_events_outputs_under_the_pseudo_language(events, name):
    assert _english_left(events[name]) == []


@pytest.mark.parametrize("name", SMOLLM2_EVENTS)
def test_smollm2s_events_under_the_pseudo_language(events, smollm2_installed, name):
    assert _english_left(events[name]) == []


@pytest.mark.parametrize("tab, call, box", [
    ("tokens", lambda module: module.tokenize_tab("to be", 2.5, module.BPE_SOURCES[0]), "number of merges"),
    ("beyond_words", lambda module: module.residue_attention_tab("GIVEQ", 2.5, 8, 0), "projection width d"),
    ("block_builder", lambda module: module.block_tab(2.5, 8, 16, 2, 32, 1, "relu", "post", True, "sinusoidal",
                                                      True, False, False, True), "vocabulary V"),
])
def test_a_refused_number_is_named_in_the_readers_language(tab, call, box):
    """The sentence for a number out of its range names the box in the reader's words (gradio_tabs.common.whole:
    the pseudo language would hide an English name inside its brackets, so Spanish)."""
    import importlib

    module = importlib.import_module(f"gradio_tabs.{tab}")
    with i18n.use("es"), pytest.raises(gr.Error) as refused:
        call(module)
    with i18n.use("es"):
        named = _(box)
    assert named != box and named in refused.value.message and box not in refused.value.message
