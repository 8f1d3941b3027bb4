"""engine.interpret.readings: the Inside-the-model page's numbers and sentences, from the tools' results;
and the chart builders that draw them (valid Vega-Lite, with the rows they draw)."""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from engine.interpret import interventions as I
from engine.interpret import readings as R
from engine import limits
from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import layer_heatmap
from engine.charts.lines import loss_by_position, rank_by_layer
from engine.charts.points import attention_effect_scatter
from tests.engine.interpret.test_interventions import letters_lm, small
from tests.engine.vegalite import assert_valid, data_rows

LAYERS = ["embedding", "after block 0", "after block 1", "after block 2", "after block 3"]


def lens_with(top_last: list[str], target: str, ranks: list[int]) -> I.LogitLens:
    """A logit lens of 5 rows and 2 positions whose last position's top tokens are `top_last`."""
    vocabulary = sorted(set(top_last) | {target, "x", "y"})
    ids = {token: i for i, token in enumerate(vocabulary)}
    top_tokens = np.empty((5, 2, 2), dtype=object)
    top_tokens[:, 0, 0], top_tokens[:, 0, 1] = "x", "y"
    top_tokens[:, 1, 0] = top_last
    top_tokens[:, 1, 1] = ["y" if t != "y" else "x" for t in top_last]
    top_ids = np.vectorize(ids.__getitem__)(top_tokens)
    log_probs = np.log(np.full((5, 2, 2), [0.6, 0.2]))
    target_log_probs = np.log(np.array([[0.1, p] for p in (0.01, 0.02, 0.05, 0.3, 0.6)]))
    return I.LogitLens(ids=[ids["x"], ids["y"]], tokens=["x", "y"], layers=LAYERS, top_ids=top_ids,
                       top_tokens=top_tokens, top_log_probs=log_probs, target=ids[target],
                       target_log_probs=target_log_probs, target_ranks=np.array([[5, r] for r in ranks]))


def test_a_target_winning_only_at_the_end_and_the_run_before_it():
    reading = R.read_lens(lens_with(["a", "b", "b", "b", "t"], "t", [9, 7, 4, 2, 0]), "t")
    assert reading.first_top_row == 4 and reading.run == ("b", 1, 3, 0.6)
    assert reading.sentences[0] == ("'t' becomes the top prediction after 'y' only after the last block (P = 0.600); "
                                    "a row earlier (after block 2) it is ranked 3.")
    assert reading.sentences[1] == ("On the way, rows 1 to 3 (after block 0 to after block 2) put 'b' on top "
                                    "(P up to 0.600).")
    assert reading.echoes == 1 and "at 1 of 2 positions" in reading.sentences[2]     # 'x' reads back as 'x'


def test_a_target_winning_early_and_one_that_never_wins():
    early = R.read_lens(lens_with(["a", "c", "t", "t", "t"], "t", [9, 3, 0, 0, 0]), "t")
    assert early.first_top_row == 2 and early.run is None                # a stretch of 1 row is not worth a word
    assert early.sentences[0].startswith("'t' is the top prediction after 'y' from row 2 (after block 1) on, "
                                         "with P = 0.050 there and 0.600 after the last block.")
    never = R.read_lens(lens_with(["a", "b", "b", "b", "b"], "t", [9, 7, 4, 2, 1]), "t")
    assert never.first_top_row is None and never.run == ("b", 1, 3, 0.6)   # the last row is the model's own answer
    assert never.sentences[0] == ("'t' is not the top prediction after 'y': after the last block it is ranked 2 "
                                  "(P = 0.600); the model says 'b' (P = 0.600).")
    with pytest.raises(ValueError, match="Follow a target"):
        R.read_lens(I.logit_lens(small(), [1, 2, 3]), "t")


def test_head_labels_and_groups():
    assert R.head_label(17, 4) == "L17H4" and R.parse_head_label(" L17H4 ") == (17, 4)
    for bad in ("17,4", "L17", "layer 17 head 4", ""):
        with pytest.raises(ValueError, match="L<layer>H<head>"):
            R.parse_head_label(bad)
    assert R.every_head_label(2, 2) == ["L0H0", "L0H1", "L1H0", "L1H1"]
    types = np.array([["previous-token", "induction"], ["mixed", "induction"]], dtype=object)
    effects = fake_effects(np.array([[-0.1, 0.2], [-0.9, -0.5]]))
    groups = R.head_groups(types, effects, k=2)
    assert groups == {"all previous-token heads": [(0, 0)], "all induction heads": [(0, 1), (1, 1)],
                      "the 2 heads with the largest effect": [(1, 0), (1, 1)]}
    assert R.chosen_heads(["all induction heads", "L1H1", "L0H0"], groups) == ((0, 0), (0, 1), (1, 1))
    assert R.top_heads(np.array([[0.3, np.nan], [0.9, 0.1]]), 3) == [(1, 0), (0, 0), (1, 1)]
    with pytest.raises(ValueError, match="between 0 and 4"):
        R.top_heads(np.zeros((2, 2)), 5)


def fake_effects(effects: np.ndarray, clean: float = math.log(0.5)) -> I.HeadEffects:
    T = 4
    return I.HeadEffects(ids=list(range(T)), tokens=["<s>", "a", "b", "c"], target=7, target_token=" t", mode="zero",
                         clean_log_prob=clean, ablated_log_probs=clean + effects, effects=effects)


def test_attention_against_effect_overlap_and_rank_correlation():
    effects = fake_effects(np.array([[-0.9, 0.0, 0.1], [-0.5, -0.2, 0.3]]))
    weights = np.zeros((2, 3, 4, 4))
    weights[..., :, 0] = 1.0                                     # every head parked on the first token ...
    attention = np.array([[0.1, 0.7, 0.0], [0.05, 0.3, 0.2]])    # ... except the last row's weight on token 2
    weights[:, :, -1, 0] = 1 - attention
    weights[:, :, -1, 2] = attention
    result = R.attention_vs_effect(weights, effects, source=2, k=2)
    assert result.by_attention == [(0, 1), (1, 1)] and result.by_effect == [(0, 0), (1, 0)]
    assert result.overlap == [] and result.source_token == "b" and result.last_token == "c"
    assert result.rank_correlation == pytest.approx(R.spearman(attention.ravel(), -effects.effects.ravel()))
    assert result.sentence.startswith("Of the 2 heads in which the last token 'c' looks hardest at 'b', none is "
                                      "among the 2 whose removal costs ' t' most. Over all 6 heads")
    together = R.attention_vs_effect(weights, fake_effects(-attention), source=2, k=2)
    assert together.overlap == [(0, 1), (1, 1)] and together.rank_correlation == pytest.approx(1.0)
    assert "2 are among the 2 whose removal costs ' t' most: L0H1, L1H1" in together.sentence
    with pytest.raises(ValueError, match="same text"):
        R.attention_vs_effect(weights[:, :, :3, :3], effects, source=2)
    with pytest.raises(ValueError, match="0 to 3"):
        R.attention_vs_effect(weights, effects, source=4)


def test_spearman_with_ties_is_pearson_of_mean_ranks():
    a, b = np.array([1.0, 2.0, 2.0, 5.0, 3.0]), np.array([2.0, 1.0, 4.0, 4.0, 9.0])
    ranks_a, ranks_b = np.array([0, 1.5, 1.5, 4, 3]), np.array([1, 0, 2.5, 2.5, 4])
    assert R.spearman(a, b) == pytest.approx(np.corrcoef(ranks_a, ranks_b)[0, 1])
    assert math.isnan(R.spearman(np.ones(3), [1, 2, 3]))


def test_effect_rows_put_the_largest_drop_first_with_both_probabilities():
    rows = R.effect_rows(fake_effects(np.array([[-0.1, -0.7], [0.4, -0.2]])), 2, attention=np.full((2, 2), 0.25))
    assert [row["head"] for row in rows] == ["L0H1", "L1H1"]
    assert rows[0]["P with it"] == pytest.approx(0.5) and rows[0]["P without it"] == pytest.approx(0.5 * math.exp(-0.7))
    assert rows[0]["attention to source"] == 0.25


def test_an_estimate_gives_its_change_only_named_as_an_estimate():
    estimated = dataclasses.replace(fake_effects(np.array([[-0.1, -0.7], [0.4, -0.2]])), estimated=True)
    rows = R.effect_rows(estimated, 2)
    assert rows == [{"head": "L0H1", "estimated change in ln P": -0.7},
                    {"head": "L1H1", "estimated change in ln P": -0.2}]


def test_the_estimate_against_the_exact_scan_names_the_heads_only_one_puts_on_top():
    exact = fake_effects(np.array([[-0.9, -0.5, 0.1], [-0.4, 0.0, 0.2]]))
    estimated = dataclasses.replace(fake_effects(np.array([[-0.8, -0.1, 0.1], [-0.3, -0.6, 0.2]])), estimated=True)
    agreement = R.compare_rankings(estimated, exact, k=3)
    assert agreement.by_exact == [(0, 0), (0, 1), (1, 0)] and agreement.by_estimate == [(0, 0), (1, 1), (1, 0)]
    assert agreement.shared == [(0, 0), (1, 0)]
    assert agreement.only_exact == [(0, 1)] and agreement.only_estimate == [(1, 1)]
    assert agreement.rank_correlation == pytest.approx(R.spearman(estimated.effects.ravel(), exact.effects.ravel()))
    assert agreement.sentence == (
        f"The one-pass estimate and the exact scan rank the 6 heads with a rank correlation of "
        f"{agreement.rank_correlation:.2f} (1: the same order). Of the 3 heads whose removal costs ' t' most, 2 are in "
        "both top 3s; the table lists the 2 that only one of them puts there.")
    assert agreement.disagreements == [
        {"head": "L0H1", "estimated change in ln P": -0.1, "exact change in ln P": -0.5,
         "in the top 3 of": "the exact scan"},
        {"head": "L1H1", "estimated change in ln P": -0.6, "exact change in ln P": 0.0,
         "in the top 3 of": "the estimate"}]
    same = R.compare_rankings(dataclasses.replace(exact, estimated=True), exact, k=3)
    assert same.rank_correlation == pytest.approx(1.0) and same.sentence.endswith("3 are in both top 3s.")
    assert same.disagreements == []
    with pytest.raises(ValueError, match="same prompt"):
        R.compare_rankings(estimated, dataclasses.replace(exact, mode="mean"))


def fake_patching(restored: np.ndarray) -> I.Patching:
    rows, T = restored.shape
    return I.Patching(clean_tokens=[f"c{t}" for t in range(T)], corrupt_tokens=[f"k{t}" for t in range(T)],
                      layers=LAYERS[:rows], clean_target=1, corrupt_target=2, clean_target_token=" A",
                      corrupt_target_token=" B", clean_logit_diff=2.0, corrupt_logit_diff=-2.0,
                      patched_logit_diff=4 * restored - 2, restored=restored)


def test_the_route_of_a_fact_from_its_token_to_the_last_one():
    restored = np.array([[0.0, 0.9, 0.0, 0.0],
                         [0.0, 0.8, 0.0, 0.05],
                         [0.0, 0.7, 0.1, 0.2],
                         [0.0, 0.1, 0.0, 0.85],
                         [0.0, 0.0, 0.0, 1.0]])
    route = R.patching_route(fake_patching(restored))
    assert route.carriers.tolist() == [1, 1, 1, 3, 3]
    assert (route.handover_row, route.arriving_row, route.early_position) == (3, 2, 1)
    assert route.sentences == [
        "Up to row 2 (after block 1), patching 'c1' (position 1) brings back most of the answer, up to 0.90 of it: "
        "the fact sits on that token.",
        "From row 3 (after block 2) on, the last token 'c3' carries it (0.85 restored): blocks 1 to 2 move it there."]
    last_only = np.zeros((5, 3))
    last_only[:, -1] = 1.0
    assert R.patching_route(fake_patching(last_only)).sentences[0].startswith(
        "The last token 'c2' carries the answer in every row")
    sudden = restored.copy()
    sudden[2, 3] = 0.0
    assert "block 2 moves it there" in R.patching_route(fake_patching(sudden)).sentences[1]


def test_knocking_out_no_head_changes_nothing_and_heads_change_the_target():
    lm = letters_lm()
    same = R.knock_out(lm, "the cat", " ", (), "zero", k=3)
    assert same.before == same.after and same.target_before == pytest.approx(same.target_after)
    assert "No head is knocked out" in same.sentence
    knocked = R.knock_out(lm, "the cat", " ", [(0, 0), (1, 2)], "mean", k=3)
    alone = I.ablate_heads(lm, "the cat", [(0, 0), (1, 2)], "mean").next_token_log_probs
    space = lm.tokenizer.encode(" ")[0]
    assert knocked.target_after == pytest.approx(math.exp(alone[space]), rel=1e-5)
    assert knocked.heads == ((0, 0), (1, 2)) and len(knocked.after) == 3
    assert knocked.sentence.startswith(f"Knocking out 2 heads (mean ablation) takes P(' ') from "
                                       f"{R.probability_text(knocked.target_before)} to "
                                       f"{R.probability_text(knocked.target_after)}")
    with pytest.raises(ValueError, match="becomes 2 tokens"):
        R.knock_out(lm, "the cat", "ab")


def test_a_long_target_is_refused_before_it_is_encoded():
    limit = limits.TARGET_MAX_CHARS
    with pytest.raises(ValueError, match=f"this one has 100,000 characters \\(the limit is {limit}\\)"):
        I.single_token(letters_lm().tokenizer, "a" * 100_000)


def test_copying_compared_in_bits_and_nats():
    model = small()
    intact, knocked = I.copying_probe(model, 12, seed=3), I.copying_probe(model, 12, seed=3, heads_to_ablate=[(0, 0)])
    comparison = R.compare_copying(intact, knocked)
    assert comparison.stretches == {"first copy": (1, 11), "second copy": (13, 23)}
    assert comparison.rows[0]["second copy, bits"] == pytest.approx(intact.second_copy_loss / math.log(2))
    assert comparison.rows[1]["run"] == "1 induction head knocked out"
    assert "With L0H0 knocked out" in comparison.sentences[1]
    np.testing.assert_allclose(comparison.bits_per_position["intact"], intact.losses / math.log(2))
    with pytest.raises(ValueError, match="one sequence"):
        R.compare_copying(knocked, intact)


def test_the_patching_examples_name_two_different_targets():
    for clean, corrupt, good, bad in R.PATCHING_EXAMPLES.values():
        assert clean != corrupt and good != bad
    assert R.largest_effect_group(R.EXAMPLE_GROUP_SIZE) == "the 5 heads with the largest effect"


# --- the charts -------------------------------------------------------------------------------------------

def test_layer_heatmap_prints_the_given_text_and_clamps_its_colours():
    values = np.array([[0.2, 0.9], [1.3, -0.1]])
    spec = assert_valid(layer_heatmap(values, ["0: embedding", "1: after block 0"], ["a", "b"],
                                      cell_text=[["x", "y"], ["z", "w"]], value_name="P", domain=(0, 1),
                                      extra={"second": np.array([["p", "q"], ["r", "s"]])}))
    rows = data_rows(spec)
    assert [(r["row"], r["col"], r["text"], r["second"]) for r in rows][:2] == \
        [("0: embedding", "a", "x", "p"), ("0: embedding", "b", "y", "q")]
    assert [r["ink"] for r in rows] == ["black", "white", "white", "black"]
    assert spec["layer"][0]["encoding"]["color"]["scale"] == {"scheme": "blues", "domain": [0.0, 1.0], "clamp": True}
    diverging = assert_valid(layer_heatmap(np.array([[-2.0, 0.5]]), ["layer 0"], ["H0", "H1"], diverging=True,
                                           numbers=False, legend_orient="bottom"))
    assert diverging["layer"][0]["encoding"]["color"]["scale"]["domain"] == [-2.0, 0, 2.0]
    assert len(diverging["layer"]) == 1 and [r["ink"] for r in data_rows(diverging)] == ["black", "black"]
    with pytest.raises(ValueError, match="row and column labels"):
        layer_heatmap(values, ["one"], ["a", "b"])


def test_a_knocked_out_heads_loss_is_orange_and_a_gain_blue_as_on_every_other_page():
    """The knock-out heatmap drew "the target loses" in blue, the opposite of every other page (blue more, orange
    less): a negative change in ln P is orange, a positive one blue, 0 white; each number in the ink of its cell."""
    from engine.charts.heatmaps import CHANGE, change_colours, heatmap_spec
    from engine.charts.palette import BLUE, ORANGE, WHITE, rgb

    effects = np.array([[-0.97, 0.0, 0.4]])
    spec = assert_valid(layer_heatmap(effects, ["layer 0"], ["0", "1", "2"], value_name="change in ln P",
                                      diverging=True, digits=2))
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domain"] == [-0.97, 0, 0.97] and scale["range"] == [ORANGE, WHITE, BLUE]
    colours = change_colours(effects.ravel(), -0.97, 0.97)
    assert tuple(colours[0]) == tuple(rgb(ORANGE)) and tuple(colours[1]) == tuple(rgb(WHITE))
    assert colours[2][2] > colours[2][0]                                        # bluish where it gains
    patched = assert_valid(heatmap_spec(np.array([[1.0, -0.5]]), ["p"], ["0", "1"], scheme=CHANGE, domain=(-1, 1)))
    assert patched["layer"][0]["encoding"]["color"]["scale"]["range"] == [ORANGE, WHITE, BLUE]
    assert [r["ink"] for r in data_rows(patched)] == ["white", "black"]         # white on full blue


def test_rank_by_layer_counts_ranks_from_one_on_a_reversed_log_axis():
    spec = assert_valid(rank_by_layer([40, 5, 0], [0.001, 0.05, 0.6], ["embedding", "after block 0", "after block 1"],
                                      token=" lamb"))
    assert [r["rank"] for r in data_rows(spec)] == [41, 6, 1]
    y = spec["encoding"]["y"]
    assert y["scale"]["type"] == "log" and y["scale"]["domain"][1] == 1 and y["axis"]["values"] == [1, 10]


def test_loss_by_position_draws_each_run_over_the_copies():
    spec = assert_valid(loss_by_position({"intact": [3.0, 1.0, 0.5], "knocked": [3.0, 2.0, 2.5]},
                                         {"first copy": (1, 1), "second copy": (2, 3)}))
    lines = spec["layer"][2]["data"]["values"]
    assert [(r["run"], r["position"], r["loss"]) for r in lines][:3] == [("intact", 1, 3.0), ("intact", 2, 1.0),
                                                                         ("intact", 3, 0.5)]
    assert spec["layer"][0]["data"]["values"][1] == {"stretch": "second copy", "from": 1.5, "to": 3.5}


def test_the_scatter_colours_both_rankings_and_names_their_first_heads():
    attention, effects = np.array([[0.5, 0.1], [0.0, 0.3]]), np.array([[-0.1, -0.9], [0.0, -0.2]])
    spec = assert_valid(attention_effect_scatter(attention, effects, source=" Mary", target=" Mary",
                                                 by_attention=[(0, 0), (1, 1)], by_effect=[(0, 1), (1, 1)], named=1))
    kinds = {r["head"]: (r["kind"], r["label"]) for r in data_rows(spec)}
    assert kinds == {"L0H0": ("looks hardest", "L0H0"), "L0H1": ("matters most", "L0H1"), "L1H0": ("other heads", ""),
                     "L1H1": ("both", "")}


def test_next_token_panels_side_by_side_keep_each_panels_rank_order():
    spec = assert_valid(next_token_bars({"intact": [("Mary", 0.8), ("the", 0.1)], "without": [("the", 0.2),
                                                                                               ("a", 0.1)]}))
    assert spec["spec"]["layer"][0]["encoding"]["y"]["sort"] == {"field": "rank", "op": "min"}


def test_the_knock_out_ratio_follows_from_the_probabilities_as_printed():
    """"0.802 to 0.001 (764.3 times smaller)" did not follow from the printed numbers (0.802 / 0.001 = 802): each
    probability keeps three significant digits and the ratio is worked from them."""
    def sentence(before: float, after: float) -> str:
        return R.KnockOut(heads=((0, 5),), mode="zero", target_token=" lamb", before=[(" lamb", before)],
                          after=[(" bit", 0.3)], target_before=before, target_after=after, rank_after=3).sentence

    words = sentence(0.80214, 0.0010497)
    assert "from 0.802 to 0.00105 (764 times smaller)" in words
    before, after, ratio = re.search(r"from (\S+) to (\S+) \((\S+) times smaller\)", words).groups()
    assert f"{float(before) / float(after):,.0f}" == ratio
    assert "from 0.402 to 0.501 (1.25 times larger)" in sentence(0.40214, 0.50105)
    assert "from 0.500 to 1.23e-07 (4,065,041 times smaller)" in sentence(0.5, 1.234e-7)
    assert "the same to 3 significant digits" in sentence(0.80214, 0.80209)
