"""views/tokens.py in AppTest: four tokenizers, BPE steps, the next-token distribution, bad input."""
from __future__ import annotations

from tests.pages.conftest import no_exception, texts, whole_page, unfold

PAGE = "views/tokens.py"


def chips(at) -> list[str]:
    """The token chips drawn as HTML (not the Data tables ui.charts writes under each chart)."""
    return [h.value for h in at.get("html") if "chart-data" not in h.value and "chart-summary" not in h.value]


def test_defaults_show_four_tokenizers_and_a_distribution(run_page):
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert not at.error
    shown = texts(at)
    for label in ("**Characters**", "**Words**", "**BPE, 200 merges**", "**GPT-2 BPE**"):
        assert label in shown
    assert len(chips(at)) >= 5  # four tokenizers + the BPE step view
    gpt2_chips = chips(at)[3]
    assert "Mary" in gpt2_chips and ">24119<" in gpt2_chips  # "Mary" is GPT-2 id 24119 (checked against tiktoken)
    table = at.table[0].value      # short tables are HTML (ui.tables): their cells as shown
    assert int(table["tokens for your text"].tolist()[0]) == len(at.text_area(key="tokens.text").value)
    assert "the context 'a little' was followed" in shown
    assert any(r"\mid c) =" in x.value for x in at.get("latex"))


def test_merges_slider_changes_bpe_tokens(run_page):
    at = run_page(PAGE, timeout=300)
    before = int(at.table[0].value["tokens for your text"].tolist()[2])
    at.slider(key="tokens.merges").set_value(0).run()
    no_exception(at)
    assert "**BPE, 0 merges**" in texts(at)
    after = int(at.table[0].value["tokens for your text"].tolist()[2])
    assert after == len(at.text_area(key="tokens.text").value.encode("utf-8")) > before  # 0 merges: one token per byte


def test_bpe_trained_live_on_the_typed_text(run_page):
    at = run_page(PAGE, timeout=300)
    at.text_area(key="tokens.text").input("low lower lowest slow slower slowest " * 4).run()
    at.radio(key="tokens.bpe_source").set_value("the text above").run()
    no_exception(at)
    assert not at.error
    merges_table = at.table[1].value
    assert int(merges_table["pair count when learned"].iloc[0].replace(",", "")) > 1


def test_next_token_settings_change_the_distribution(run_page):
    from tests.pages.conftest import chart_rows

    def bars(at) -> list[float]:
        chart = next(c.proto for c in at.get("vega_lite_chart") if "P(next token" in c.proto.spec)
        return chart_rows(chart).column("probability").to_pylist()

    at = run_page(PAGE, timeout=300)
    before = bars(at)
    assert "The bars smooth these counts (Kneser-Ney)" in texts(at)
    at.selectbox(key="tokens.smoothing").set_value("none").run()   # reruns only the next-token sections
    no_exception(at)
    after = [x.value for x in at.get("latex")]
    assert bars(at) != before and any(r"\frac{" in x and "= 0." in x for x in after)
    assert "The bars smooth these counts" not in texts(at)   # plain counts: the bars are the formula's numbers


def test_bad_input_is_a_sentence_and_the_rest_works(run_page):
    at = run_page(PAGE, timeout=300)
    at.text_area(key="tokens.text").input("   ").run()
    no_exception(at)
    assert any("Type some text first" in e.value for e in at.error)
    assert "the context 'a little' was followed" in texts(at)  # the next-token part still works

    at.text_area(key="tokens.text").input("caf\u00e9 \u2603").run()
    no_exception(at)
    assert [e.value for e in at.error if "never saw" in e.value]  # the corpus has no e-acute
    assert "**GPT-2 BPE**" in texts(at) and len(chips(at)) >= 3

    at.text_input(key="tokens.prompt").input("Mary had a zorp").run()
    no_exception(at)
    assert any("never does ('zorp')" in e.value for e in at.error)


def test_n_reruns_only_the_next_token_sections_and_the_rest_stays(run_page):
    """n reruns only the next-token prediction and the code and challenges (ui.page.section): their numbers
    change, the link follows, and the whole page still shows the title and the tokenizers as they were."""
    at = unfold(run_page(PAGE, timeout=300))
    tokenizer_chips, table = chips(at)[:4], at.table[0].value
    at.slider(key="tokens.n").set_value(2).run()
    no_exception(at)
    assert not at.title and not chips(at)  # only the sections were sent, not the tokenizers
    assert "the context 'little' was followed 456 times by some token (order 2)" in texts(at)
    assert "prepare.corpus_counts('words'), 2, 'kneser-ney'" in at.code[0].value
    assert at.query_params["n"] == "2"
    whole_page(at)
    no_exception(at)
    assert at.title[0].value == "Tokens & next-token prediction"
    assert at.slider(key="tokens.n").value == 2
    assert chips(at)[:4] == tokenizer_chips and at.table[0].value.equals(table)
    shown = texts(at)
    assert "**GPT-2 BPE**" in shown and "(order 2)" in shown and "the context 'a little'" not in shown


def test_the_formula_quotes_its_token(run_page):
    """A token in a formula is quoted, so punctuation reads as a token: P(',' | c), not P(, | c)."""
    at = run_page(PAGE, timeout=300)
    at.text_input(key="tokens.prompt").input("Mary had a little lamb").run()
    no_exception(at)
    latex = " ".join(x.value for x in at.get("latex"))
    assert r"P(\texttt{'" in latex and r"'} \mid c)" in latex


def test_a_word_the_plays_never_use_refuses_only_the_ngram(run_page, smollm2_installed):
    """'crane' hid the SmolLM2 panel too: the subword model reads any word, so only the n-gram says no."""
    at = run_page(PAGE, timeout=300)
    at.text_input(key="tokens.prompt").input("the crane").run()
    no_exception(at)
    assert any("never does ('crane')" in e.value for e in at.error)
    from tests.pages.conftest import chart_rows

    bars = [chart.proto for chart in at.get("vega_lite_chart") if "P(next token" in chart.proto.spec]
    assert len(bars) == 1 and set(chart_rows(bars[0]).column("model").to_pylist()) == {"SmolLM2-135M, web text"}
    assert '"SmolLM2-135M, web text: P(next token | ' in bars[0].spec          # the one model named
    assert "Only the n-gram is refused" in texts(at)


def test_the_plain_counts_come_first_and_kneser_ney_is_folded(run_page):
    """The chapter's C(c w) / C(c .) stands first, with its numbers; Kneser-Ney's discounts and continuation counts
    were a caption before it on the first view: now folded, for a second read."""
    import re

    at = run_page(PAGE, timeout=300)
    no_exception(at)
    latex = [x.value for x in at.get("latex")]
    first = next(x for x in latex if r"\mid c) = \frac{" in x and r"C(c" not in x)
    count, total, plain = re.search(r"\\frac\{(\d+)\}\{(\d+)\} = (0\.\d{3})", first).groups()
    assert f"{int(count) / int(total):.3f}" == plain                      # the plain estimate, from its counts
    words = texts(at)
    assert "continuation counts" not in words and "gamma_c" not in words
    assert "The bars smooth these counts (Kneser-Ney)" in words
    assert "How Kneser-Ney smooths the counts: discounts and shorter contexts" in [box.label for box in at.expander]
    opened = unfold(at)
    assert "continuation counts" in texts(opened) and any(r"\hat P_c" in x.value for x in opened.get("latex"))
