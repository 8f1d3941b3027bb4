"""Warm-up: the shared caches fill in the background, so no student waits for a first computation.

A class does not click one student at a time: thirty students pick BPE on the N-gram page,
3CosMul on the Embedding page or SmolLM2's sample on Generate at about the same moment.
Done cold, each costs seconds of one CPU (BPE tokens and their n-gram counts, about 4 s),
and every student who asked waits for it. So when a page is first shown on a server, it
names the caches behind its own controls (`prefetch`), and one background thread fills
each of them once, at the lowest CPU priority (any page's rerun goes first). And when the
server's first session starts (app.py), one task loads what every page opens on: torch,
SmolLM2, GloVe, the shipped transformer, the ladder, the counts. With the prepared cache
(engine.prepare) that is memory-mapping files, a second or two; every page's first visit
afterwards is a rerun, not a computation.

Off with PLAYGROUND_WARM_UP=0 (the browser tests set it); nothing runs outside a
`streamlit run` server (AppTest, a notebook).
"""
from __future__ import annotations

import logging
import os
import queue
import threading
import time
from typing import Callable

ENVIRONMENT_SWITCH = "PLAYGROUND_WARM_UP"
log = logging.getLogger(__name__)
_lock = threading.Lock()
_asked: set[str] = set()
_queue: "queue.Queue[str]" = queue.Queue()
_thread: threading.Thread | None = None


def _ngrams() -> None:
    from engine.language.corpus import ALL_PLAYS
    from engine.language.tokenizers import LEVELS
    from ui import loaders

    for level in LEVELS:
        loaders.tokenized(ALL_PLAYS, level, None)
        loaders.ngram_counts(ALL_PLAYS, level, None)
        loaders.held_out(ALL_PLAYS, level, None)


def _analogy_accuracy() -> None:
    from engine.embeddings.glove import METHODS
    from ui import loaders

    for method in METHODS:
        loaders.analogy_accuracy(method)


def _ladder() -> None:
    from ui import loaders

    loaders.fixed_ladder()  # every n-gram order 1..8 counted and scored, and the shipped transformer


def _smollm2_sample() -> None:
    from ui import pretrained_views

    pretrained_views.default_sample()


def shared_data() -> None:
    """The read-only data the pages open on, loaded without running torch: the first part of every
    page's first view, and what deploy/preload.py loads once before forking a lecture hall's processes."""
    from engine import limits
    from engine.language.corpus import ALL_PLAYS
    from ui import loaders

    loaders.corpus()
    loaders.corpus_characters()
    loaders.gpt2_tokenizer()
    loaders.corpus_bpe(limits.TOKENS_BPE_MERGES, limits.TOKENS_BPE_TRAIN_CHARS)   # the Tokens page's
    loaders.tokenized(ALL_PLAYS, "characters", None)
    loaders.tokenized(ALL_PLAYS, "words", None)
    loaders.ngram_counts(ALL_PLAYS, "characters", None)
    loaders.glove()
    import torch  # noqa: F401  (a second of imports, paid here instead of on a page)

    loaders.smollm2()
    loaders.shipped_transformer()


def _every_first_view() -> None:
    """What each page's first view reads, lightest first (the attention pages need none of it)."""
    from engine.pretrained.llama import DEFAULT_NAME
    from ui import loaders

    shared_data()
    loaders.pretrained_induction_scores(DEFAULT_NAME)
    _head_viewer()
    loaders.fixed_ladder()
    loaders.char_ngrams()
    for name in loaders.BUNDLED_PICTURES:
        loaders.bundled_picture(name)
    _inside_the_model()      # last: seconds of patching, its default example first


def _head_viewer() -> None:
    """The head viewer's first view: SmolLM2's weights on its default sentence, every head scored and drawn."""
    from engine.pretrained.llama import DEFAULT_NAME
    from ui import loaders
    from engine.chapter.heads import PAGE
    from ui.pretrained_views import warm_absorbed_probes

    loaders.pretrained_scored_heads(DEFAULT_NAME, PAGE.param("text").default)
    warm_absorbed_probes()


def _inside_the_model() -> None:
    """The Inside-the-model page's first view, computed by the functions the page calls (ui.inside_views), then
    its other examples: the slow ones are the patching heatmaps; every head's effect is estimated (attribution, two
    passes), the exact scan runs only when a student asks for it."""
    from engine.interpret import readings
    from engine.pretrained.llama import DEFAULT_NAME
    from ui import inside_views

    inside_views.first_view(DEFAULT_NAME)
    for text, target in list(readings.OWN_EXAMPLES.values())[1:]:
        inside_views.own_model(text, target)
    for text, target, _ in list(readings.KNOCK_OUT_EXAMPLES.values())[1:]:
        inside_views.example_knock_out(DEFAULT_NAME, text, target)
    for pair in list(readings.PATCHING_EXAMPLES.values())[1:]:
        inside_views.patching(DEFAULT_NAME, *pair)


NGRAMS = "n-grams of the plays, every token level"     # the Tokens and N-gram pages prefetch it
INSIDE = "the Inside-the-model page's examples"        # the Inside-the-model page prefetches it

# name -> what it fills, each with the arguments its page passes
TASKS: dict[str, Callable[[], None]] = {
    "every page's first view": _every_first_view,
    NGRAMS: _ngrams,
    "analogy accuracy, both scores": _analogy_accuracy,
    "SmolLM2's default sample": _smollm2_sample,
    "the model ladder": _ladder,
    INSIDE: _inside_the_model,
}


def prefetch(*names: str) -> None:
    """Fill these caches (keys of TASKS) in the background, once per server process."""
    unknown = [name for name in names if name not in TASKS]
    if unknown:
        raise KeyError(f"No warm-up task named {unknown}; see ui.warmup.TASKS.")
    if os.environ.get(ENVIRONMENT_SWITCH, "1") == "0":
        return
    from streamlit import runtime

    if not runtime.exists():
        return
    global _thread
    with _lock:
        for name in names:
            if name not in _asked:
                _asked.add(name)
                _queue.put(name)
        if _thread is None:
            _thread = threading.Thread(target=_work, name="warm-up", daemon=True)
            _thread.start()


def _work() -> None:
    from engine.transformer.training_jobs import yield_to_pages
    from ui.server import return_freed_memory

    yield_to_pages()
    # Streamlit warns on each call that this thread has no session; the caches need none.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    while True:
        name = _queue.get()
        begin = time.perf_counter()
        try:
            TASKS[name]()
            log.info("warm-up: %s in %.1f s", name, time.perf_counter() - begin)
        except Exception as error:   # a package missing: the page that needs it says so itself
            log.warning("warm-up of %s failed: %s", name, error)
        return_freed_memory()
