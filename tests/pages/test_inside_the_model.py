"""views/inside_the_model.py in AppTest: SmolLM2's causal tools on the page, their sentences, bad input."""
from __future__ import annotations

import re

import pytest

from engine.interpret import readings
from tests.pages.conftest import no_exception, texts, whole_page, unfold
from tests.pages.i18n_checks import unmarked_left
from ui.session_slots import LIVE_MODEL

PAGE = "views/inside_the_model.py"
TIMEOUT = 300

pytestmark = pytest.mark.usefixtures("smollm2_installed")
PARTS = ["1. Read every layer: the logit lens", "2. Knock out heads",   # the page's five parts, in order
         "3. Where does the fact travel? Activation patching", "4. Copying from context", "5. Your own model"]


def subheaders(at) -> list[str]:
    return [s.value for s in at.subheader]


def test_defaults_show_every_section_and_the_sentences_computed_from_the_numbers(run_page):
    at = run_page(PAGE, timeout=TIMEOUT)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert subheaders(at)[:5] == PARTS
    words = texts(at)
    # the logit lens on "Mary had a little": ' lamb' wins only after the last block, ' bit' before it
    assert "' lamb' becomes the top prediction after ' little' only after the last block (P = 0.152)" in words
    assert "rows 21 to 29 (after block 20 to after block 28) put ' bit' on top" in words
    assert "predicts the input token itself at 4 of 5 positions" in words
    # knocking out the 5 heads of largest effect on the names prompt
    assert "Knocking out 5 heads (zero ablation) takes P(' Mary') from 0.802 to" in words
    at = unfold(at)   # the second read: every head alone, the copying numbers, our own model
    words = texts(at)
    assert "whose removal costs ' Mary' most" in words and "rank correlation" in words
    # patching the Eiffel Tower into the Colosseum: the subject's token, then the last one after block 23
    assert "patching 'iffel' (position 3) brings back most of the answer" in words
    assert "From row 24 (after block 23) on, the last token ' of' carries it" in words
    # copying: 0.99 nats on the second copy, much more with 5 induction heads knocked out
    assert re.search(r"1\.43 bits \(0\.99\d* nats\)", words)   # nats with the digits that give the bits
    assert "With L17H3, L17H4, L17H5, L18H6, L23H7 knocked out" in words
    assert "Further reading" in subheaders(at) and "Try this" in subheaders(at)
    assert len(at.get("vega_lite_chart")) >= 9


def test_heads_are_estimated_first_and_the_exact_scan_on_request_says_how_well_they_agree(run_page):
    """The knock-out scan opens on attribution's estimate (two passes); the button runs the 270 exact passes, and
    the page's sentence on the agreement is the one the engine's two results give, computed here again."""
    from engine.interpret import interventions
    from engine.pretrained import smollm2 as pretrained
    from engine.pretrained.llama import DEFAULT_NAME
    from ui import loaders

    at = unfold(run_page(PAGE, timeout=TIMEOUT))
    words = texts(at)
    assert "**Every head, one at a time, estimated.**" in words and "attribution patching" in words
    assert "The one-pass estimate and the exact scan" not in words
    assert "the 5 heads with the largest estimated effect: " in words       # picked by the estimate, said so
    at.button(key="inside.exact_button").click().run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    text, target, _ = next(iter(readings.KNOCK_OUT_EXAMPLES.values()))
    exact = loaders.pretrained_head_effects(DEFAULT_NAME, text, target, "zero")   # the page's, not run again
    assert not exact.estimated and exact.ids == pretrained.load().encode_text(text)[0]
    agreement = readings.compare_rankings(interventions.head_attribution(pretrained.load(), text, target), exact,
                                          readings.BARS_TOP_K)
    words = texts(whole_page(at))
    assert agreement.sentence in words                           # the sentence, and its table of disagreements
    listed = next(frame.value for frame in at.table if "exact change in ln P" in frame.value.columns)
    assert listed["head"].tolist() == [row["head"] for row in agreement.disagreements]
    assert "**Every head, one at a time.**" in words and "Check it: knock out" not in words
    assert "the 5 heads with the largest effect (each knocked out in turn): " in words   # now the exact ranking
    assert "largest estimated effect" not in words
    at.selectbox(key="inside.ko_preset").set_value("Mary had a little (5 tokens)").run()
    assert "The one-pass estimate and the exact scan" not in texts(whole_page(at))   # a new prompt: estimated first


def test_a_target_of_two_tokens_is_the_engines_sentence_and_the_rest_stays(run_page):
    at = run_page(PAGE, timeout=TIMEOUT)
    at.text_input(key="inside.target").input("lamb").run()
    no_exception(at)
    assert any("The target must be one token: 'lamb' becomes 2 tokens" in e.value
               and "' lamb', with the space" in e.value for e in at.error)
    words = texts(at)
    assert "only after the last block" not in words                       # the lens is gone ...
    assert "From row 24 (after block 23) on" in words                      # ... the other sections are not
    assert "Further reading" in subheaders(at)
    at.text_input(key="inside.target").input(" lamb").run()
    assert not at.error


def test_patching_prompts_of_different_lengths_give_a_sentence(run_page):
    at = run_page(PAGE, timeout=TIMEOUT)
    at.text_input(key="inside.corrupt").input("The Colosseum is in the city").run()   # reruns only the patching
    no_exception(at)
    assert [e.value for e in at.error] == [
        "Patching compares the two prompts position by position, so they need the same number of tokens: the "
        "clean one has 10, the corrupted one 9."]
    at = whole_page(at)
    assert "only after the last block" in texts(at) and "Further reading" in subheaders(at)


def test_the_induction_slider_reruns_only_the_copying_probe_and_the_challenges(run_page):
    at = unfold(run_page(PAGE, timeout=TIMEOUT))
    assert "With L17H3, L17H4, L17H5, L18H6, L23H7 knocked out, the second copy costs 10.31 bits" in texts(at)
    assert "with at most 4 induction heads knocked out. **Done.**" not in texts(at)
    at.slider(key="inside.k").set_value(4).run()               # reruns only the copying probe and the challenges
    no_exception(at)
    assert not at.error and not at.title and subheaders(at) == ["Try this"]
    words = texts(at)
    assert "With L17H3, L17H4, L17H5, L18H6 knocked out, the second copy costs 9.83 bits" in words
    assert "with at most 4 induction heads knocked out. **Done.**" in words
    assert "heads = top_heads(prepare.induction_scores(), 4)" in at.code[0].value
    assert at.query_params["k"] in (["4"], "4")
    at = whole_page(at)
    no_exception(at)
    assert at.title[0].value == "Inside the model" and at.slider(key="inside.k").value == 4
    assert subheaders(at)[:5] == PARTS
    words = texts(at)
    assert "' lamb' becomes the top prediction after ' little' only after the last block (P = 0.152)" in words
    assert "From row 24 (after block 23) on, the last token ' of' carries it" in words
    assert "With L17H3, L17H4, L17H5, L18H6 knocked out, the second copy costs 9.83 bits" in words
    assert "with at most 4 induction heads knocked out. **Done.**" in words


def test_a_link_with_values_out_of_range_gets_sentences_and_the_defaults(run_page):
    at = run_page(PAGE, query={"k": "99", "source": "999", "mode": "half", "heads": "L99H1", "length": "5",
                               "target": "x" * 200}, timeout=TIMEOUT)
    no_exception(at)
    warnings = " ".join(w.value for w in at.warning)
    for name in ("k", "source", "mode", "heads", "length", "target"):
        assert f"The link's value for '{name}'" in warnings
    assert at.slider(key="inside.k").value == 5 and at.radio(key="inside.mode").value == "zero"
    assert at.text_input(key="inside.target").value == " lamb"
    assert not at.error


def test_a_link_opens_the_exact_view(run_page):
    at = run_page(PAGE, query={"text": "The Eiffel Tower is in the city of", "target": " Paris", "k": "4"},
                  timeout=TIMEOUT)
    no_exception(at)
    words = texts(at)
    assert "' Paris' is the top prediction after ' of' from row 29 (after block 28) on" in words
    assert "before* the last block. **Done.**" in words                           # the first challenge
    assert "more than 7 bits per token with at most 4 induction heads knocked out. **Done.**" in words


def test_knocking_out_previous_token_heads_on_mary_meets_a_challenge(run_page):
    at = run_page(PAGE, timeout=TIMEOUT)
    at.selectbox(key="inside.ko_preset").set_value("Mary had a little (5 tokens)").run()
    assert at.text_input(key="inside.ko_text").value == "Mary had a little"
    at.multiselect(key="inside.heads").set_value(["all previous-token heads"]).run()
    no_exception(at)
    words = texts(at)
    assert "takes P(' lamb') from 0.152 to" in words and "it is now ranked" in words
    assert "make the target lose its first place. **Done.**" in words
    assert at.query_params["heads"] in (["all previous-token heads"], "all previous-token heads")


def test_mean_ablation_and_another_source_token(run_page):
    at = unfold(run_page(PAGE, timeout=TIMEOUT))
    at.radio(key="inside.mode").set_value("mean").run()
    no_exception(at)
    assert "(mean ablation)" in texts(at)
    at.selectbox(key="inside.source").set_value(4).run()
    no_exception(at)
    assert "looks hardest at ' John'" in texts(at)


def test_a_live_model_from_the_block_builder_joins_section_5(run_page):
    from streamlit.testing.v1 import AppTest

    from engine.prepare import shipped_transformer
    from tests.pages.conftest import ROOT

    at = AppTest.from_file(str(ROOT / PAGE), default_timeout=TIMEOUT)
    at.session_state[LIVE_MODEL.key] = shipped_transformer()[0]          # any trained TransformerLanguageModel
    at = unfold(at.run())
    at.radio(key="inside.own_model").set_value("your live model (Block builder)").run()
    no_exception(at)
    assert not at.error
    assert "'e' is the top prediction after 'b'" in texts(at)
    at.text_input(key="inside.own_target").input("ee").run()
    assert any("The target must be one token" in e.value for e in at.error)


def test_the_code_shown_reproduces_the_lens(run_page, capsys):
    at = unfold(run_page(PAGE, timeout=TIMEOUT))
    source = next(block.value for block in at.code if "logit_lens" in block.value)
    exec(compile(source, "<shown code>", "exec"), {})
    printed = capsys.readouterr().out
    assert "top-1 from row 30" in printed and "' bit'" in printed


def test_every_patching_example_has_prompts_of_equal_length():
    from engine.pretrained import smollm2 as pretrained

    model = pretrained.load()
    for clean, corrupt, _, _ in readings.PATCHING_EXAMPLES.values():
        assert len(model.encode_text(clean)[0]) == len(model.encode_text(corrupt)[0]), (clean, corrupt)


def test_after_the_warm_up_the_page_computes_nothing(run_page, monkeypatch):
    from engine.interpret import interventions
    from ui import loaders, warmup

    for loader in (loaders.pretrained_logit_lens, loaders.pretrained_head_attribution, loaders.pretrained_knock_out,
                   loaders.pretrained_patching, loaders.pretrained_copying, loaders.shipped_logit_lens,
                   loaders.shipped_head_effects):
        loader.clear()
    warmup.TASKS["the Inside-the-model page's examples"]()

    def computed(*args, **kwargs):
        raise AssertionError("computed again: the warm-up filled a different cache entry than the page reads")

    for name in ("logit_lens", "head_attribution", "head_effects", "ablate_heads", "activation_patching",
                 "copying_probe"):
        monkeypatch.setattr(interventions, name, computed)
    at = run_page(PAGE, timeout=TIMEOUT)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    for example in list(readings.KNOCK_OUT_EXAMPLES)[1:]:
        at.selectbox(key="inside.ko_preset").set_value(example).run()
        no_exception(at)
    for example in readings.PATCHING_EXAMPLES:
        at.selectbox(key="inside.patch_preset").set_value(example).run()
        no_exception(at)
    assert not at.error, [e.value for e in at.error]


def test_a_table_of_contents_links_to_every_part(run_page):
    """The page is about 9,000 px in one scroll: a line under the introduction links to each part's anchor."""
    import re

    at = run_page(PAGE, timeout=TIMEOUT)
    no_exception(at)
    contents = next(m.value for m in at.markdown if m.value.startswith("**On this page:**"))
    links = re.findall(r"\[([^\]]+)\]\(#([a-z-]+)\)", contents)
    assert [heading for heading, _ in links] == PARTS
    anchors = {s.proto.anchor for s in at.subheader}
    assert {anchor for _, anchor in links} <= anchors


def test_a_first_read_is_short_what_it_does_not_need_is_folded(run_page):
    """The page was 10,013 px tall at 1400: every head knocked out alone and where it looks, each copy's numbers
    and our own model now open on request, their contents drawn only then; the group of heads picked by the
    estimate says so until the exact scan runs."""
    at = run_page(PAGE, timeout=TIMEOUT)
    no_exception(at)
    folded = {box.label for box in at.expander}
    assert {"Every head knocked out alone, and where each one looks", "Each copy's loss in bits and in nats, and the "
            "formula", "Read our model's layers and knock out its heads"} <= folded
    words = texts(at)
    assert "Where a head looks against what it does" not in words and "The heads it needs most here" not in words
    first = len(at.get("vega_lite_chart"))
    assert "the 5 heads with the largest estimated effect: L" in words
    opened = unfold(at)
    no_exception(opened)
    assert len(opened.get("vega_lite_chart")) >= first + 4
    assert "Where a head looks against what it does" in texts(opened)
    assert "The heads it needs most here" in texts(opened)


def test_a_character_models_empty_target_asks_for_a_character_not_a_word(run_page):
    """Part 5's model reads characters: its hint asked for ' Paris'."""
    at = unfold(run_page(PAGE, timeout=TIMEOUT))
    at.text_input(key="inside.own_target").input("").run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any("Type the target character" in e for e in errors) and not any("Paris" in e for e in errors)
    at.text_input(key="inside.own_target").input("ab").run()
    assert any("The target must be one token: 'ab' becomes 2 tokens: 'a', 'b'" in e.value for e in at.error)


def test_the_page_in_spanish_and_korean(run_page):
    for lang, title, heading in (("es", "Dentro del modelo", "2. Anular cabezas"),
                                 ("ko", "모델의 내부", "2. 헤드 없애기")):
        at = run_page(PAGE, {"lang": lang}, timeout=TIMEOUT)
        no_exception(at)
        assert at.title[0].value == title and heading in subheaders(at)
        # the models read English: said once, in the reader's language; their tokens stay as they read them
        assert any("SmolLM2" in c.value and "lamb" not in c.value for c in at.caption)
        assert "' lamb'" in texts(at)
    at = run_page(PAGE, {"lang": "es"}, timeout=TIMEOUT)
    assert any(re.search(r"P = 0,\d{3}", m.value) for m in at.markdown)   # the sentences' numbers in Spanish


def test_the_pseudo_language_leaves_no_english_unmarked(run_page):
    from engine import i18n

    with i18n.use(i18n.PSEUDO.code):   # AppTest formats the widgets' options (format_func) in this thread too
        at = unfold(run_page(PAGE, {"lang": "en-XA"}, timeout=TIMEOUT))
    no_exception(at)
    assert unmarked_left(at) == []
