"""Every 'Try this' challenge on every page: not done on the page's first view, and done once its own hint is
applied as a student would apply it (ui.challenges.Challenge.solution: the widget values the hint asks for, set
before the page runs, as a student's typing or a link would set them)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.pages.conftest import ROOT, no_exception
from ui.challenges import SHOWN
from ui.session_slots import BLOCK_RUNS, LIVE_MODEL

PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "views").glob("*.py")
               if "Challenge(" in p.read_text())
SMOLLM2_PAGES = {"views/head_viewer.py", "views/inside_the_model.py"}   # load SmolLM2: skipped without it
# A page's first view, and the other views a student reaches by one choice that draws other challenges (the
# Beyond page's audio and protein parts, the N-gram page at character level): (page, widget values).
VIEWS = [(page, {}) for page in PAGES] + [
    ("views/beyond_words.py", {"beyond.kind": "audio"}),
    ("views/beyond_words.py", {"beyond.kind": "protein"}),
    ("views/ngram.py", {"ngram.level": "characters"}),
]
VIEW_IDS = [page.removeprefix("views/").removesuffix(".py") + "".join(f"-{v}" for v in start.values())
            for page, start in VIEWS]
# Challenges whose hint asks for something no widget value stands for (a training run, a model trained on another
# page): each is completed, following its hint, by the test named.
BY_OTHER_TESTS = {
    "Train two runs that differ only in the residual switch": "test_block_builder_challenges_follow_their_hints",
    "Train a post-norm and a pre-norm run": "test_block_builder_challenges_follow_their_hints",
    "Get a run below 3.3 bits per character": "test_the_held_out_challenges_hint_gets_a_run_below_3_3_bits",
    "Train a model on the Block builder page": "test_a_live_model_trained_on_the_block_builder_completes_generates_"
                                               "challenge",
}


def _run(page: str, values: dict | None = None, timeout: float = 300):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    for key, value in (values or {}).items():
        at.session_state[key] = value
    return at.run()


def _challenges(at) -> dict[str, tuple[bool, dict | None, str]]:
    return dict(at.session_state[SHOWN]) if SHOWN in at.session_state else {}


def _skip_without_smollm2(page: str) -> None:
    if page in SMOLLM2_PAGES:
        from engine.pretrained import smollm2 as pretrained

        try:
            pretrained.model_path()
        except ValueError as error:
            pytest.skip(str(error))


def test_every_page_with_challenges_is_covered():
    assert len(PAGES) >= 12, PAGES
    assert all(Path(ROOT / p).exists() for p in PAGES)


@pytest.fixture(scope="module")
def first_views() -> dict:
    return {}


def _first_view(page: str, start: dict, cache: dict):
    key = (page, tuple(sorted(start.items())))
    if key not in cache:
        cache[key] = _run(page, start)
    return cache[key]


@pytest.mark.parametrize("page,start", VIEWS, ids=VIEW_IDS)
def test_no_challenge_is_done_on_the_first_view(page, start, first_views):
    _skip_without_smollm2(page)
    at = _first_view(page, start, first_views)
    no_exception(at)
    shown = _challenges(at)
    assert shown, f"{page} drew no challenges"
    assert [prompt for prompt, (done, _, _) in shown.items() if done] == []


@pytest.mark.parametrize("page,start", VIEWS, ids=VIEW_IDS)
def test_every_challenge_is_done_once_its_hint_is_applied(page, start, first_views):
    _skip_without_smollm2(page)
    shown = _challenges(_first_view(page, start, first_views))
    for prompt, (_, solution, hint) in shown.items():
        if any(prompt.startswith(begin) for begin in BY_OTHER_TESTS) or solution is None:
            continue
        at = _run(page, start | solution)
        no_exception(at)
        assert not at.error, [e.value for e in at.error]
        done, _, _ = _challenges(at)[prompt]
        assert done, f"{page}: {prompt!r} not done with {solution} (hint: {hint})"


@pytest.mark.parametrize("page", PAGES)
def test_every_challenge_has_a_solution_in_some_view(page, first_views):
    _skip_without_smollm2(page)
    solved, seen = set(), set()
    for view_page, start in VIEWS:
        if view_page == page:
            for prompt, (_, solution, _) in _challenges(_first_view(page, start, first_views)).items():
                seen.add(prompt)
                if solution is not None or any(prompt.startswith(begin) for begin in BY_OTHER_TESTS):
                    solved.add(prompt)
    assert seen and seen == solved, sorted(seen - solved)


def test_hints_that_name_numbers_name_the_solutions_numbers(first_views):
    """A hint that gives the numbers to type gives the ones its solution sets (the calculator's and the Context
    page's matrix rows): generated from the same constants, checked here."""
    for page in ("views/attention_calculator.py", "views/context_window.py"):
        for prompt, (_, solution, hint) in _challenges(_first_view(page, {}, first_views)).items():
            for typed in re.findall(r"`([^`]+)`", hint):
                values = [str(v) for v in solution.values()]
                assert any(typed in value or typed.split(": ", 1)[-1] in value for value in values), (hint, solution)


def _train(at, **widgets):
    """Set the Block builder's widgets, press Train, wait for the run, rerun: as a student does."""
    from tests.pages.conftest import whole_page

    at = whole_page(at)
    if "bb_preset" in widgets:                 # choosing a preset loads its sizes (the selectbox's on_change)
        at.selectbox(key="block.bb_preset").set_value(widgets.pop("bb_preset")).run()
    for key, value in widgets.items():
        at.session_state[f"block.{key}"] = value
    at.run()
    at.button[0].click().run()
    job = at.session_state["block.job"]
    job.join(900)
    assert job.state == "done", job.state
    return at.run()


def test_block_builder_challenges_follow_their_hints(monkeypatch, tmp_path):
    """Train, switch LayerNorm, train; turn the residual connections off, train: each challenge is done when its
    hint has been followed, and the held-out one when the hinted run gets below 3.3 bits per character."""
    monkeypatch.setenv("PLAYGROUND_LOCKS", str(tmp_path))
    at = _run("views/block_builder.py", {"block.bb_steps": 15, "block.bb_batch": 4})
    shown = _challenges(at)
    assert not any(done for done, _, _ in shown.values())
    at = _train(at)
    at = _train(at, bb_layer_norm="pre")
    norm = next(p for p in _challenges(at) if p.startswith("Train a post-norm and a pre-norm run"))
    assert _challenges(at)[norm][0]
    at = _train(at, bb_residual=False)
    assert _challenges(at)[next(p for p in _challenges(at) if p.startswith("Train two runs"))][0]


def test_the_held_out_challenges_hint_gets_a_run_below_3_3_bits(monkeypatch, tmp_path):
    """The hinted run (baby GPT, 500 steps: about a minute on a free CPU, several on a busy one) gets below 3.3
    bits per character on held-out text."""
    monkeypatch.setenv("PLAYGROUND_LOCKS", str(tmp_path))
    at = _run("views/block_builder.py")
    held_out = next(p for p in _challenges(at) if p.startswith("Get a run below 3.3"))
    done, solution, _ = _challenges(at)[held_out]
    assert not done
    at = _train(at, **{key.removeprefix("block."): value for key, value in solution.items()})
    assert _challenges(at)[held_out][0], at.session_state[BLOCK_RUNS.key][-1]["rung"].bits_per_char


def test_a_live_model_trained_on_the_block_builder_completes_generates_challenge(monkeypatch, tmp_path):
    """'Train a model on the Block builder page and bring it here': a short run there, then Generate in the same
    session with 'your live model' picked."""
    monkeypatch.setenv("PLAYGROUND_LOCKS", str(tmp_path))
    at = _train(_run("views/block_builder.py", {"block.bb_steps": 15, "block.bb_batch": 4}))
    live, runs = at.session_state[LIVE_MODEL.key], at.session_state[BLOCK_RUNS.key]
    page = "views/generate.py"
    first = _run(page, {LIVE_MODEL.key: live, BLOCK_RUNS.key: runs})
    ladder = json.dumps([chart.proto.spec for chart in first.get("vega_lite_chart")])
    assert runs[0]["label"][:40] in ladder and "your live runs" in ladder      # the run's rung on Generate's ladder
    prompt = next(p for p in _challenges(first) if p.startswith("Train a model on the Block builder"))
    assert not _challenges(first)[prompt][0]
    _, solution, _ = _challenges(first)[prompt]
    done = _run(page, {LIVE_MODEL.key: live, BLOCK_RUNS.key: runs} | solution)
    no_exception(done)
    assert _challenges(done)[prompt][0]


@pytest.mark.parametrize("page", PAGES)
def test_every_pages_first_view_makes_its_handout(page, first_views):
    """What the page recorded for its handout (ui/handout.py) prints: every chart drawn, every formula as plain
    text with no LaTeX left, within a few pages (the first views are already run here, so this costs a PDF each)."""
    from engine.charts import handout as paper_handout
    from engine import limits
    from engine.charts.plain_formula import plain
    from tests.engine.charts.test_handout import page_count, pdf_text
    from ui import handout

    _skip_without_smollm2(page)
    at = _first_view(page, {}, first_views)
    no_exception(at)
    description = handout.description(at.session_state[handout.RECORD], "http://localhost:8501/page?n=1")
    assert description.title == at.title[0].value and description.blocks
    for block in description.blocks:
        if isinstance(block, paper_handout.Formula):
            lines = plain(block.formula) + plain(block.numbers)
            assert lines and not any("\\" in line or "\x00" in line for line in lines), (block, lines)
    pdf = paper_handout.handout_pdf(description, "A4")
    text = pdf_text(pdf)
    assert 1 <= page_count(pdf) <= limits.HANDOUT_MAX_PAGES and description.title in text
    assert "Not printed" not in text   # every chart drawn
