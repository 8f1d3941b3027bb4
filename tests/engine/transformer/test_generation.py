"""engine.transformer.generation and the model-page drawings: seeded steps, bits per character, diagrams."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.charts.diagrams import block_diagram
from engine.transformer.generation import generate, held_out_rung, ladder
from engine.transformer.config import PRESETS, count_parameters, dataflow
from tests.engine.transformer.test_model import SMALL, Letters, built
from engine.transformer.language_model import TransformerLanguageModel


class Fixed:
    """A language model with a known distribution: P(next) = p whatever the context."""
    name = "fixed"

    def __init__(self, probs):
        self.probs = np.asarray(probs, dtype=float)
        self.tokenizer = Letters("abcd")

    def next_token_probs(self, context):
        return self.probs

    def cross_entropy(self, ids):
        return float(-np.mean(np.log(self.probs[list(ids)[1:]])))


def test_each_step_keeps_p_and_the_reshaped_q():
    lm = Fixed([0.5, 0.25, 0.125, 0.125])
    g = generate(lm, "ab", 30, seed=1, temperature=0.5, top_k=2)
    assert g.prompt == [0, 1] and len(g.steps) == 30
    np.testing.assert_allclose(g.steps[0].reshaped, [0.8, 0.2, 0, 0])      # 0.5^2 : 0.25^2, top 2
    assert set(g.ids) <= {0, 1}
    assert g.text == "".join("abcd"[i] for i in g.ids)
    assert g.steps[0].top(2) == [(0, 0.5, pytest.approx(0.8)), (1, 0.25, pytest.approx(0.2))]
    assert generate(lm, "ab", 30, seed=1, temperature=0.5, top_k=2).ids == g.ids
    assert generate(lm, "a", 5, seed=3, temperature=0).ids == [0] * 5


@pytest.mark.parametrize("prompt, length, temperature, words", [
    ("", 5, 1.0, "empty"), ("ab", 0, 1.0, "between 1"), ("ab", 5, -1.0, "Temperature"),
    ("a" * 1000, 5, 1.0, "limit"),
])
def test_bad_generation_requests_say_why(prompt, length, temperature, words):
    with pytest.raises(ValueError, match=words):
        generate(Fixed([0.25] * 4), prompt, length, seed=0, temperature=temperature)


def test_bits_per_character_of_a_known_model():
    lm = Fixed([0.5, 0.25, 0.125, 0.125])
    rung = held_out_rung(lm, "abcd")                    # predicts b, c, d: 2 + 3 + 3 bits over 3 characters
    assert rung.bits_per_char == pytest.approx(8 / 3)
    assert rung.nats_per_token == pytest.approx(8 / 3 * math.log(2))
    assert [r.model for r in ladder([Fixed([0.25] * 4), lm], "abcd")] == ["fixed", "fixed"]


def test_transformer_rungs_and_generation():
    lm = TransformerLanguageModel(built(SMALL), Letters("abcdefghijk"))
    g = generate(lm, "abc", 20, seed=0)               # beyond the context of 12: the window slides
    assert len(g.ids) == 20 and all(s.probs.sum() == pytest.approx(1) for s in g.steps)
    assert held_out_rung(lm, "abcabcabcabc").bits_per_char == pytest.approx(
        lm.cross_entropy([0, 1, 2] * 4) / math.log(2))


@pytest.mark.parametrize("name", list(PRESETS))
def test_dataflow_parameters_add_up(name):
    config = PRESETS[name]
    stages = dataflow(config)
    assert sum(s.parameters for s in stages if not s.in_block) + \
        config.n_layers * sum(s.parameters for s in stages if s.in_block) == count_parameters(config).total
    assert stages[-1].shape == (config.context_length, config.vocab_size)
    svg = block_diagram(stages, config.n_layers, config.residual)
    assert svg.startswith("<svg") and f"repeated N = {config.n_layers} times" in svg and ">residual<" in svg


def test_one_sampling_loop_draws_as_written_and_grows_the_context():
    """engine.lm.draw is the loop every model samples through: p = read(context), q = reshape(p), w ~ q."""
    from engine.lm import apply_temperature_top_k, draw

    table = np.array([[0.1, 0.6, 0.3], [0.5, 0.3, 0.2], [0.15, 0.25, 0.6]])  # no ties: top-2 keeps two
    read = lambda context: table[context[-1]]  # noqa: E731 - a bigram as a reader
    context = [0]
    drawn = list(draw(read, context, 20, rng=np.random.default_rng(5), temperature=0.7, top_k=2))
    rng, expected, last = np.random.default_rng(5), [], 0
    for _ in range(20):
        q = apply_temperature_top_k(table[last], 0.7, 2)
        last = int(rng.choice(3, p=q))
        expected.append(last)
    assert [w for _, _, w in drawn] == expected and context == [0] + expected
    assert all(np.count_nonzero(q) <= 2 for _, q, _ in drawn)


@pytest.mark.parametrize("temperature", [-0.1, float("nan"), float("inf"), True, "1"])
def test_one_temperature_check_for_every_model(temperature):
    from engine.lm import check_temperature

    with pytest.raises(ValueError, match="Temperature must be 0 or more"):
        check_temperature(temperature, 2.0)
    assert check_temperature(2.0, 2.0) == 2.0
