"""engine.markup: typed text shown back inside Markdown or LaTeX reads as typed, and renders as nothing more."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from engine import markup
from engine.attention.readings import calculator_reading, context_reading, names
from engine.interpret.readings import KnockOut
from tests.markdown_leaks import HOSTILE, rendered_leaks

# the characters Markdown, Streamlit's directives and KaTeX give a meaning to, mixed with letters and line breaks
MARKED = st.lists(st.sampled_from(list("ab1 .:/\n\t#>-+=*_`~|\\[]()!<>$&{}^%@w") + ["http://", "www."]),
                  max_size=40).map("".join)


@given(MARKED)
def test_what_is_escaped_reads_as_typed_again(text):
    assert markup.unmarked(markup.markdown(text)) == text


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_text_renders_as_text(name):
    text = HOSTILE[name]
    assert rendered_leaks(f"**{text}** and {text}", text)            # unescaped, the checker sees it
    assert not rendered_leaks(f"**{markup.markdown(text)}** and {markup.markdown(text)}", text)
    assert not rendered_leaks(markup.said(text) + " " + markup.quoted(text, 10), text)


def test_shortcodes_directives_and_line_starts_are_broken():
    escaped = markup.markdown(":smile: :material/home: :red[x]\n# heading\n1. item\n- item\n===")
    assert ":smile:" not in escaped and ":material/home:" not in escaped and ":red[" not in escaped
    lines = escaped.splitlines()
    assert [line[:2] for line in lines] == [":\u2060", r"\#", "1\\", r"\-", r"\="]


def test_web_addresses_are_not_linked_by_themselves():
    """remark-gfm links a web address found in the text after escapes are read (Chromium followed the escaped
    `http\\://`): an invisible word joiner breaks it."""
    escaped = markup.markdown("see http://b.invalid/x, www.b.invalid and me@b.invalid")
    assert escaped == "see http:\u2060//b.invalid/x, www\u2060.b.invalid and me@\u2060b.invalid"   # word joiners


def test_a_code_span_holds_any_backticks():
    assert markup.code("a`b") == "``a`b``"
    assert markup.code("`x") == "`` `x ``"
    assert markup.code("two\nlines") == "`two lines`"


@given(MARKED)
def test_latex_text_leaves_no_special_character_bare(text):
    escaped = markup.latex_text(text)
    bare = escaped.replace(r"\textbackslash ", "").replace(r"\^{}", "").replace(r"\~{}", "")
    for char in "$_%&#{}":
        assert bare.count(char) == bare.count("\\" + char)


def test_the_attention_readings_show_typed_labels_as_typed():
    """A token named `$x$` or with a picture's Markdown is echoed by the calculator's and the Context page's
    sentences (both front ends print them) as typed."""
    labels = [HOSTILE["dollars"], HOSTILE["image"], "lake"]
    row = [0.2, 0.7, 0.1]
    for sentence in (calculator_reading(row, labels, 0, d_k=3, scaled=True), context_reading(row, labels, 0),
                     names(labels, [0, 1])):
        assert not rendered_leaks(sentence, HOSTILE["dollars"] + " " + HOSTILE["image"]), sentence
        assert r"\$x\$" in sentence


def test_the_inside_readings_quote_tokens_as_typed():
    knocked = KnockOut(heads=((0, 1),), mode="mean", target_token="$", before=[("$", 0.5)], after=[("x$", 0.3)],
                       target_before=0.5, target_after=0.25, rank_after=1)
    assert "'\\$'" in knocked.sentence
    assert not rendered_leaks(knocked.sentence + " $", "$")
