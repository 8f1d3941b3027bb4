"""engine.numbers: figures as printed, and figures worked from printed ones, so that they add up on the page."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import numbers
from engine.numbers import enough_digits, fixed, shown, significant, worked


@pytest.mark.parametrize("value, digits, text", [(-0.0001, 3, "0.000"), (-0.004, 2, "0.00"), (-0.0, 1, "0.0"),
                                                 (-0.006, 2, "-0.01"), (0.125, 2, "0.12"), (math.inf, 2, "inf"),
                                                 (-math.inf, 2, "-inf"), (math.nan, 2, "nan")])
def test_fixed_never_prints_negative_zero(value, digits, text):
    assert fixed(value, digits) == text


def test_worked_sums_the_numbers_as_shown():
    """The Embeddings arithmetic on main: 0.34 0.03 -0.20 printed for terms that, as shown, add to 0.34 0.02 -0.19."""
    b = np.array([0.13877217, 0.21287449, -0.20366374])
    a = np.array([0.11154588, 0.05000806, -0.17538428])
    c = np.array([0.31173512, -0.13691764, -0.16780941])
    exact = [fixed(v, 2) for v in b - a + c]
    assert exact == ["0.34", "0.03", "-0.20"]                      # what main printed
    total = worked(lambda b, a, c: b - a + c, b, a, c, digits=2)
    assert [fixed(v, 2) for v in total] == ["0.34", "0.02", "-0.19"]
    assert [fixed(v, 2) for v in shown(b, 2) - shown(a, 2) + shown(c, 2)] == [fixed(v, 2) for v in total]


def test_enough_digits_makes_a_logarithm_recompute():
    """Inside the model on main: ln 0.303 - ln 0.802 printed -0.975, the shown numbers give -0.973."""
    p_with, p_without = 0.8019, 0.3027 * math.exp(-0.0017)   # ln ratio -0.975 that 3 decimals do not reproduce
    change = math.log(p_without) - math.log(p_with)
    assert fixed(math.log(shown(p_without)) - math.log(shown(p_with))) != fixed(change)
    places = enough_digits(lambda w, wo: math.log(wo) - math.log(w), p_with, p_without, result_digits=3)
    assert places > 3
    assert fixed(math.log(shown(p_without, places)) - math.log(shown(p_with, places))) == fixed(change)


def test_significant_writes_one_number_one_way():
    assert significant(5.551115123125783e-17) == "5.55e-17" and significant(0.0) == "0"
    assert significant(0.74937) == "0.749" and significant(2.4) == "2.4"


# --- the engine's sentences and tables, recomputed from what they print -------------------------------------

def numbers_in(text: str) -> list[float]:
    import re
    return [float(x) for x in re.findall(r"-?\d+\.\d+", text)]


def test_the_ladders_margin_is_the_difference_of_its_printed_figures():
    """Generate on main: 'beats by 0.174 bits' beside 1.968 and 1.795."""
    from engine.transformer.ladder import Bar, ladder_sentences

    bars = [Bar("6-gram (Kneser-Ney)", 1.9744, "n-gram"), Bar("7-gram (Kneser-Ney)", 1.96846, "n-gram"),
            Bar("shipped transformer", 1.79486, "transformer")]
    text = " ".join(ladder_sentences(bars))
    assert "1.968" in text and "1.795" in text
    assert "beats the best n-gram by **0.173 bits** (0.120 nats)" in text
    tie = " ".join(ladder_sentences([Bar("7-gram (Kneser-Ney)", 1.96846, "n-gram"),
                                     Bar("shipped transformer", 1.96805, "transformer")]))
    assert "tie to 3 decimals" in tie and "0.000" not in tie


def test_every_preset_row_gives_its_count_from_its_own_columns():
    """Block builder on main: Baby GPT's 805,376 needed biases off and 64 x 128 learned positions, not shown."""
    from engine.transformer.config import PRESETS, TransformerConfig, scale_row

    configs = dict(PRESETS) | {
        "no norms, rotary, own head": TransformerConfig(layer_norm="none", positional="rotary", tied_head=False),
        "post, final, sinusoidal": TransformerConfig(layer_norm="post", final_norm=True, bias=False)}
    for name, config in configs.items():
        row = scale_row(name, config)
        d, d_ff, N, V, T = row["d"], row["d_ff"], row["blocks N"], row["vocabulary V"], row["context T"]
        bias = row["biases"] == "on"
        per_norm = 2 * d if bias else d
        norms_per_block = 2 if row["LayerNorms"].startswith("2 per block") else 0
        final = 1 if "final" in row["LayerNorms"] else 0
        block = 4 * d * d + 2 * d * d_ff + (4 * d + d_ff + d if bias else 0) + norms_per_block * per_norm
        total = (V * d + (T * d if row["positions"].startswith("learned") else 0) + N * block + final * per_norm
                 + (V * d if row["W_vocab"].startswith("own") else 0))
        assert total == row["parameters"], name
    assert scale_row("baby", PRESETS["baby GPT (nanoGPT on a CPU)"])["parameters"] == 805_376


def test_a_run_stopped_by_time_is_probed_at_its_last_step():
    """Block builder on main: 'At the end (step 1,500)' while the curve ran on to about 1,750."""
    import torch

    from engine.transformer.model import TransformerLM
    from engine.transformer.training import TrainConfig, train
    from engine.transformer.config import TransformerConfig

    torch.manual_seed(0)
    model = TransformerLM(TransformerConfig(vocab_size=5, context_length=16, d_model=16, n_heads=2, d_ff=32,
                                            n_layers=1))
    ids = np.tile(np.arange(5), 400)
    result = train(model, ids, ids[:300], TrainConfig(max_steps=10_000, max_seconds=0.5, eval_every=1000,
                                                      eval_batches=1), probe=lambda m, step: step)
    assert result.stopped_by == "time" and result.steps[-1] < 1000
    assert result.probes[-1] == result.steps[-1]


def test_heads_forming_speak_bits_and_say_which_step():
    from engine.charts.lines import head_formation_lines
    from engine.interpret.interventions import HeadFormation
    from engine.interpret.readings import formation_sentence

    point = HeadFormation(step=1500, previous_token=np.array([[0.5, 0.2]]), induction=np.array([[0.1, 0.4]]),
                          first_copy_loss=3.0, second_copy_loss=1.2)
    spec = head_formation_lines([point])
    assert "nats" not in str(spec) and "bits per character" in str(spec)
    ended_later = formation_sentence(point, 1750, running=False)
    assert "At the end" not in ended_later and "1,500" in ended_later and "1,750" in ended_later
    assert formation_sentence(point, 1500, running=False).startswith("At the end (step 1,500)")
    text = formation_sentence(point, 1500, running=False)
    assert "nats" not in text
    second, first, gap = numbers_in(text.split("(gap")[0])[-2:] + numbers_in(text.split("(gap")[1])[:1]
    assert fixed(first - second, 2) == fixed(gap, 2) and fixed(first, 2) == fixed(3.0 / math.log(2), 2)


def test_heatmap_cells_never_print_negative_zero():
    from engine.charts.heatmaps import heatmap_spec

    spec = heatmap_spec(np.array([[-1e-9, 0.5], [-0.0004, 1.0]]), ["a", "b"], ["a", "b"], digits=2,
                        domain=(-1.0, 1.0))
    texts = [row["text"] for row in str_rows(spec)]
    assert "-0.00" not in texts and texts.count("0.00") == 2


def str_rows(spec: dict) -> list[dict]:
    from tests.engine.vegalite import data_rows
    return [row for row in data_rows(spec) if "text" in row]


def test_the_patch_cost_is_drawn_on_a_number_line():
    """Beyond words on main: patch sizes 4, 8, 16, 32 spaced evenly bent the T^2 curve."""
    from engine.charts.lines import cost_chart
    from engine.beyond.modalities import patch_costs

    spec = cost_chart(patch_costs(224, 224, [4, 8, 16, 32]), 16)
    assert spec["encoding"]["x"]["type"] == "quantitative"


def test_held_out_sentences_say_what_the_curve_shows():
    """N-gram on main: 'trades one failure for the other' over a Kneser-Ney curve flat from n = 3 to 6."""
    from engine.language.ngram import HeldOutRow, held_out_sentences, smoothing_name

    bits = {"none": [math.inf] * 6, "add-k": [8.814, 10.017, 12.599, 13.889, 14.378, 14.603],
            "kneser-ney": [8.810, 7.188, 6.879, 6.874, 6.875, 6.877]}
    rows = [HeldOutRow(n + 1, s, b * math.log(2), b, 2 ** b, 0) for s, values in bits.items()
            for n, b in enumerate(values)]
    text = " ".join(held_out_sentences(rows, 1.0))
    assert "**Kneser-Ney**: lowest at n = 4 (6.874 bits per token); from n = 3 to 6 it stays within 0.01" in text
    assert "**add-1 (Laplace)**: lowest at n = 1" in text and "then worse" in text
    assert smoothing_name("add-k", 1) == "add-1 (Laplace)" and "Lidstone" in smoothing_name("add-k", 0.5)


def test_numbers_shown_together_are_written_one_way():
    """Position's bars mixed 0.17, 0.375 and 0.0443 in one chart: one format for all, from the largest."""
    from engine.numbers import alike

    assert alike([0.1700, 0.3752, 0.0443, 0.0988, 0.7494]) == ["0.170", "0.375", "0.044", "0.099", "0.749"]
    assert alike([0.000275, 0.00707, 0.0242]) == ["0.0003", "0.0071", "0.0242"]
    assert alike([0.0, 5.551115e-17, 5.551115e-17]) == ["0", "5.55e-17", "5.55e-17"]
    assert alike([0.0, 0.0]) == ["0", "0"]
    assert alike([12.5, 3.25]) == ["12.5", "3.2"]


def test_a_count_in_a_formula_is_grouped_as_the_reader_groups_its_commas_braced():
    """KaTeX spaces a bare comma as punctuation ("28, 860"); a Spanish formula showed 1,234 and 2.4 beside 0,298."""
    from engine import i18n

    with i18n.use("en"):
        assert numbers.latex_grouped(28_860) == "28{,}860"
        assert numbers.latex_significant(2.4e13) == r"2.4 \times 10^{13}"
        assert numbers.latex_significant(0.020193) == "0.02019"
    with i18n.use("es"):
        assert numbers.latex_grouped(652_582) == "652.582"
        assert numbers.latex_significant(1234.0) == "1.234"
        assert numbers.latex_significant(2.4e13) == r"2{,}4 \times 10^{13}"
        assert numbers.latex_significant(0.020193) == "0{,}02019"
