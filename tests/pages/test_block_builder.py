"""views/block_builder.py in AppTest: counts, presets, bad configs, a tiny live run."""
from __future__ import annotations

import base64
import re

from tests.pages.conftest import no_exception, texts, whole_page, unfold
from tests.pages.i18n_checks import unmarked_left
from ui.session_slots import BLOCK_RUNS

PAGE = "views/block_builder.py"


def subheaders(at) -> list[str]:
    return [s.value for s in at.subheader]


def diagram(at) -> str:
    """The block diagram as drawn: the SVG the engine lays out (ui.diagrams shows it as an image)."""
    assert not at.get("graphviz_chart"), "no diagram laid out in the browser"
    images = [h.proto.body for h in at.get("html") if "class='diagram'" in h.proto.body]
    assert len(images) == 1, "one block diagram"
    return base64.b64decode(re.search(r"base64,([^']+)'", images[0]).group(1)).decode()


def residual_arrows(at) -> bool:
    return ">residual</text>" in diagram(at)


def test_defaults_are_the_chapters_tiny_block(run_page):
    at = run_page(PAGE, timeout=240)
    no_exception(at)
    assert not at.error
    assert at.selectbox(key="block.bb_preset").value == "tiny (the chapter's block)"
    assert "27,808 parameters" in subheaders(at)
    assert at.radio(key="block.bb_layer_norm").value == "post"
    assert "feed-forward sublayer" in diagram(at) and residual_arrows(at)
    # GPT-3's count and the chapter's caution about later models, in the default view (not only in a preset)
    shown = texts(at)
    assert "**174,604,259,328** parameters by this count" in shown and "outside estimate" in shown


def test_presets_fill_the_switches(run_page):
    at = run_page(PAGE, timeout=240)
    at.selectbox(key="block.bb_preset").set_value("GPT-2 small").run()
    no_exception(at)
    assert "124,439,808 parameters" in subheaders(at)
    assert at.radio(key="block.bb_layer_norm").value == "pre"
    assert "exactly the count of OpenAI's released checkpoint" in texts(at)
    at.selectbox(key="block.bb_preset").set_value("GPT-3 175B").run()
    assert "174,604,259,328 parameters" in subheaders(at)
    at.button[0].click().run()                                # train GPT-3 live: refused with a sentence
    no_exception(at)
    assert any("live training here is limited" in e.value for e in at.error)


def test_the_residual_switch_reruns_only_the_block_and_its_code(run_page):
    """The residual switch reruns the sidebar's 'changed' line, the block and the code (ui.page.section): they show
    the new block; the whole page around them is unchanged."""
    at = unfold(run_page(PAGE, timeout=240))
    assert residual_arrows(at) and "residual=True" in at.code[0].value
    at.toggle(key="block.bb_residual").set_value(False).run()
    no_exception(at)
    assert not at.title                                                   # only the sections ran
    assert not residual_arrows(at)                                        # no residual arrows any more
    assert "residual=False" in at.code[0].value
    assert "Changed from the preset 'tiny (the chapter's block)'." in [c.value for c in at.caption]
    assert "27,808 parameters" in subheaders(at)                          # a residual adds no parameters
    assert at.query_params["bb_residual"] == "0"
    whole = whole_page(at)
    no_exception(whole)
    assert [t.value for t in whole.title] == ["Block builder"]
    assert whole.toggle(key="block.bb_residual").value is False
    assert not residual_arrows(whole)
    assert subheaders(whole) == ["Data flow, with shapes at each arrow", "27,808 parameters",
                                 "Train it live on Shakespeare, one character at a time", "Try this", "Further reading"]
    assert [b.label for b in whole.button] == ["Train", "Stop", "Clear runs"] and not whole.button[0].disabled
    assert "Changed from the preset 'tiny (the chapter's block)'." in [c.value for c in whole.caption]


def test_while_a_run_trains_a_switch_reruns_the_whole_page(run_page):
    """The training's progress is an auto-rerunning fragment whose timer the browser stops when a widget asks for a
    rerun; only a whole run starts it again, so while a run trains the switches rerun the whole page."""
    at = run_page(PAGE, timeout=240)
    at.number_input(key="block.bb_batch").set_value(4)
    at.button[0].click().run()
    job = at.session_state["block.job"]
    try:
        at.toggle(key="block.bb_residual").set_value(False).run()
        no_exception(at)
        assert [t.value for t in at.title] == ["Block builder"]             # the whole page, not the sections
        assert not residual_arrows(at)
        assert at.button[1].label == "Stop" and not at.button[1].disabled   # still training
    finally:
        job.stop()
        job.join(120)


def test_a_config_that_cannot_be_built_says_why(run_page):
    at = run_page(PAGE, timeout=240)
    at.number_input(key="block.bb_d_model").set_value(30).run()
    no_exception(at)
    assert any("split evenly into h = 4 heads" in e.value for e in at.error)
    assert "Train it live on Shakespeare, one character at a time" in subheaders(at)
    at.number_input(key="block.bb_d_model").set_value(32)
    at.number_input(key="block.bb_n_layers").set_value(0).run()
    assert any("n_layers must be a whole number of at least 1" in e.value.replace("\\", "") for e in at.error)


def test_a_short_live_run_is_kept_and_compared(run_page):
    at = run_page(PAGE, timeout=240)
    at.number_input(key="block.bb_steps").set_value(15)
    at.number_input(key="block.bb_batch").set_value(4)
    at.button[0].click().run()
    no_exception(at)
    job = at.session_state["block.job"]
    job.join(120)
    assert job.state == "done" and job.result.steps[-1] == 15
    at.run()
    no_exception(at)
    runs = at.session_state[BLOCK_RUNS.key]
    assert len(runs) == 1 and runs[0]["rung"].bits_per_char < 6.3     # below the uniform guess, log2(75)
    assert at.table[-1].value["steps"].tolist() == ["15"]     # a short table: cells as shown (ui.tables)
    # watch heads form: the probe ran at each evaluation, its chart and sentence are drawn
    assert [point.step for point in runs[0]["probes"]] == job.result.eval_steps
    assert "Watch heads form" in texts(at) and "the strongest induction head is L" in texts(at)
    at.toggle(key="block.bb_residual").set_value(False).run()       # reruns only the block's sections
    whole_page(at).button[0].click().run()
    at.session_state["block.job"].join(120)
    at.run()
    no_exception(at)
    assert len(at.session_state[BLOCK_RUNS.key]) == 2
    assert "with and without" not in texts(at)
    assert "residual switch, and compare their curves.** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_a_training_lost_with_its_server_is_said_and_can_start_again(run_page):
    """Under deploy.serve a tab whose process died reconnects to another with its link, not its session: the link's
    bb_training mark, in a session that never trained, says the run was lost and offers to start it again with the
    link's settings. The mark is on while a run trains and off once it is recorded."""
    lost = "the server that ran your training stopped"
    plain = run_page(PAGE, query={"bb_steps": "5"}, timeout=600)
    assert not any(lost in w.value for w in plain.warning)
    at = run_page(PAGE, query={"bb_training": "1", "bb_steps": "5", "bb_batch": "4"}, timeout=600)
    no_exception(at)
    assert any(lost in w.value for w in at.warning)
    again = next(b for b in at.button if b.label == "Start again")
    again.click().run()
    no_exception(at)
    job = at.session_state["block.job"]
    assert at.query_params["bb_training"] in ("1", ["1"])
    job.join(120)
    assert job.state == "done" and job.result.steps[-1] == 5       # the link's settings
    at.run()
    no_exception(at)
    assert not any(lost in w.value for w in at.warning)
    assert at.query_params["bb_training"] in ("0", ["0"]) and len(at.session_state[BLOCK_RUNS.key]) == 1


def test_a_lost_training_can_be_dismissed(run_page):
    at = run_page(PAGE, query={"bb_training": "1"}, timeout=240)
    next(b for b in at.button if b.label == "Dismiss").click().run()
    no_exception(at)
    assert not any("training stopped" in w.value for w in at.warning)
    assert at.query_params["bb_training"] in ("0", ["0"]) and "block.job" not in at.session_state


def test_a_class_move_that_forgets_a_training_stops_it(run_page):
    """The runs and the job live in the page's state: a class that moves the student here opens the page afresh
    (ui.url_state.open_afresh), which forgets them, and the run it forgets stops instead of training unseen."""
    from ui import url_state

    at = run_page(PAGE, query={"bb_steps": "100000", "bb_seconds": "120", "bb_batch": "4"}, timeout=240)
    at.button[0].click().run()
    job = at.session_state["block.job"]
    assert not job.finished
    at.session_state[url_state._AFRESH] = True
    at.run()
    no_exception(at)
    job.join(60)
    assert job.state == "stopped" and "block.job" not in at.session_state


def test_the_page_in_spanish_and_korean(run_page):
    for lang, title, count in (("es", "Constructor de bloques", "27.808 parámetros"),
                               ("ko", "블록 만들기", "매개변수 27,808개")):
        at = run_page(PAGE, {"lang": lang}, timeout=240)
        no_exception(at)
        assert at.title[0].value == title
        assert count in subheaders(at)   # the count exact, grouped as the reader writes thousands


def test_the_pseudo_language_leaves_no_english_unmarked(run_page):
    # the activations' and the big presets' names are names (relu, gelu, GPT-2 small, GPT-3 175B)
    at = run_page(PAGE, {"lang": "en-XA"}, timeout=240)
    no_exception(at)
    assert [t for t in unmarked_left(at) if t not in {"relu", "gelu", "GPT-2 small", "GPT-3 175B"}] == []
