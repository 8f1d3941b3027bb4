"""The reveal a student's listener draws (engine.classroom.live.reveal_card) and the class's answers chart it shows:
the answer with its share per round, the sentence for each answer, the chart as an SVG image that fills a phone's
column with text at its size, its bars about BAR_PX tall however many rounds, isolated options right to left,
nothing escaped twice and nothing unescaped."""
from __future__ import annotations

import base64
import json
import re

from engine import limits
from engine.classroom.chart import BAR_PX, answers_chart
from engine.classroom.live import reveal_card
from engine.classroom.store import ClassState, Question

OPTIONS = ("0: crane", "1: by", "2: the", "3: <lake>")


def revealed(question: Question, rounds: int) -> ClassState:
    return ClassState("ABCD2345", "attention?x=1", 3, 1, question, rounds, True, True, False, 30, 30, False, 0.0)


def drawn_size(img: str) -> tuple[float, float]:
    svg = base64.b64decode(re.search(r'base64,([^"]+)', img).group(1)).decode()
    width, height = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"', svg).groups()
    return float(width), float(height)


def test_the_reveal_says_the_answer_its_share_and_each_readers_own_sentence():
    question = Question("attention", "Which key <wins>?", OPTIONS, 3, "Because <lake> matches.")
    card = reveal_card(revealed(question, 2), [(10, 5, 5, 10), (4, 2, 2, 22)], "en")
    assert card["answer"] == ("<strong>The answer: 3: &lt;lake&gt;</strong>. Right: round 1: 10 of 30 (33%); "
                              "round 2: 22 of 30 (73%).")
    assert card["yours"][3] == "Yours was right." and card["yours"][0] == "Yours was 0: crane."
    assert card["explanation"] == "Because &lt;lake&gt; matches." and "&lt;wins&gt;" in card["title"]
    assert card["open"] == "Open the page as it was asked" and card["page"] == "attention"
    assert "<lake>" not in json.dumps(card) and "&amp;lt;" not in json.dumps(card)


def test_a_poll_has_no_answer_and_no_sentence_per_answer():
    card = reveal_card(revealed(Question("attention", "Which?", OPTIONS[:2], None), 1), [(3, 4)], "en")
    assert card["answer"] == "" and card["yours"] == [] and card["chart"].startswith('<img class="tp-chart"')


def test_right_to_left_the_options_are_isolated_in_their_sentences():
    card = reveal_card(revealed(Question("attention", "Which?", ("crane", "lake"), 1), 1), [(1, 1)], "ar")
    assert card["dir"] == "rtl" and card["lang"] == "ar"
    assert "\u2068lake\u2069" in card["answer"] and "\u2068crane\u2069" in card["yours"][0]


def test_the_chart_fills_a_phones_column_at_its_own_size_and_grows_on_a_wider_screen():
    card = reveal_card(revealed(Question("attention", "Which?", OPTIONS, 0), 1), [(12, 3, 4, 11)], "en")
    width, _ = drawn_size(card["chart"])
    assert 300 <= width <= 390 - 2 * 16            # a phone's column, less the box's padding: text at its own size
    assert "width:100%" in card["chart"] and f"max-width:{2 * width:.0f}px" in card["chart"]
    assert "min-width:0px" in card["chart"]        # never wider than the screen
    assert limits.CLASS_REVEAL_CHART_PX < width


def test_every_bar_is_bar_px_tall_with_one_round_or_several():
    from engine.charts import export

    for rounds in (1, 2, 3):
        spec = answers_chart(OPTIONS, [(1, 2, 3, 4)] * rounds, 0, width=limits.CLASS_REVEAL_CHART_PX)
        svg = export.svg(spec).decode()
        bar = r'<path[^>]*aria-roledescription="bar"[^>]*d="M[\d.]+,[\d.]+h[\d.]+v([\d.]+)'
        bars = [float(h) for h in re.findall(bar, svg)]
        assert len(bars) == len(OPTIONS) * rounds
        assert all(BAR_PX - 1 < h <= BAR_PX + 12 for h in bars), (rounds, bars)   # (2 rounds had drawn 100 px bars)
