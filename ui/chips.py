"""Tokens drawn as coloured chips with their ids, and sampled text with a stretch highlighted."""
from __future__ import annotations

import html
import re

import streamlit as st

from engine.charts.palette import (CHIP_TINTS, GREY_7, GREY_20, GREY_27, GREY_33, GREY_54, GREY_87, GREY_97,
                                   ORANGE_TINT, VERMILLION)
from engine.charts.style import visible
from engine import numbers
from ui import formula


def chips_html(tokens: list[str], ids: list[int], unknown_id: int | None = None, max_chips: int = 800) -> str:
    """HTML for tokens as chips: the piece on top, its id below; unknown tokens get a dashed border.

    Neighbouring chips differ in colour (light tints, CHIP_TINTS) and by a border, so colour is never
    the only cue; black text stays readable on each."""
    parts = []
    for i, (token, token_id) in enumerate(zip(tokens[:max_chips], ids[:max_chips])):
        dashed = unknown_id is not None and token_id == unknown_id
        border = f"2px dashed {VERMILLION}" if dashed else f"1px solid {GREY_54}"
        parts.append(
            f'<span style="display:inline-block;margin:2px 1px;padding:1px 4px;border-radius:4px;'
            f'background:{CHIP_TINTS[i % len(CHIP_TINTS)]};border:{border};text-align:center;'
            f'font-family:monospace;line-height:1.15;color:{GREY_7}">'
            f'{html.escape(visible(token))}<br><span style="font-size:0.7em;color:{GREY_20}">{token_id}</span></span>')
    more = len(tokens) - max_chips
    if more > 0:
        parts.append(f'<span style="color:{GREY_33}"> ... and {more:,} more tokens</span>')
    return "<div>" + "".join(parts) + "</div>"


def token_chips(tokens: list[str], ids: list[int], unknown_id: int | None = None) -> None:
    st.html(chips_html(tokens, ids, unknown_id))


NEWLINE = visible("\n")   # a line break drawn as a token is drawn everywhere (engine.charts.style.visible)


def shown_lines(text: str) -> str:
    """Escaped text whose line breaks are visible: a run of m breaks shows m NEWLINE marks, then breaks the line
    once, so blank lines (and a loop of 99 newlines) show as marks instead of empty space."""
    return re.sub(r"\n+", lambda run: f'<span class="newline" style="color:{GREY_27}">{NEWLINE * len(run.group())}'
                                       "</span>\n", html.escape(text))


def highlighted_text(pieces: list[str], start: int | None, end: int | None, note: str = "") -> None:
    """Text made of pieces, with pieces[start:end] marked (a loop), kept as pre-formatted text, line breaks
    visible (shown_lines)."""
    def escape(part: list[str]) -> str:
        return shown_lines("".join(part))
    if start is None or end is None:
        body = escape(pieces)
    else:
        body = (escape(pieces[:start]) + f'<mark style="background:{ORANGE_TINT};border-bottom:2px solid {VERMILLION}">'
                + escape(pieces[start:end]) + "</mark>" + escape(pieces[end:]))
    title = f'<div style="font-size:0.85em;color:{GREY_27};margin-bottom:4px">{html.escape(note)}</div>' if note else ""
    # overflow-wrap: a run of marks with no space in it (the bigram's 99 line breaks) wraps inside the box
    st.html(f'{title}<pre style="white-space:pre-wrap;overflow-wrap:anywhere;font-size:0.95em;'
            f'background:{GREY_97};padding:10px;border-radius:6px;border:1px solid {GREY_87}">{body}</pre>')


def latex_text(text: str) -> str:
    """A token as LaTeX \\texttt{'...'}, quoted (P(',' | c), not P(, | c)), its special characters escaped, spaces
    and line breaks made visible."""
    return r"\texttt{'" + formula.latex_text(visible(text)) + "'}"


def latex_number(value: float) -> str:
    """A count or fraction in LaTeX, in the reader's signs: 1,234 as is, 2.4e+13 as 2.4 \\times 10^{13}
    (engine.numbers.latex_significant)."""
    return numbers.latex_significant(value)
