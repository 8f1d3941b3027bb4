"""engine.attention.learning: exact gradients of -log alpha_it in W_Q and W_K, and the calculator's learning run;
engine.attention.mechanism's sharpness; engine.attention.readings: ties and the sentences built on them."""
from __future__ import annotations

import numpy as np
import pytest

from engine import limits
from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention, weights_by_sharpness
from engine.attention.readings import (
    calculator_reading, clear_winner, favourite_neighbour_sentence, largest_weight_sentence, leaders, overflow_solution,
)
from engine.attention.learning import LEARNING_RATE, learn_query_key, loss_and_gradients

CRANE, BY, LAKE = 0, 1, 3


def _loss(x, W_q, W_k, query, target, scale=True):
    return loss_and_gradients(x, W_q, W_k, query, target, scale=scale).loss


@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradients_match_central_finite_differences(seed, scale):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(5, 3))
    W_q, W_k = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    exact = loss_and_gradients(x, W_q, W_k, 1, 4, scale=scale)
    h = 1e-6
    for name, W, grad in (("W_q", W_q, exact.dW_q), ("W_k", W_k, exact.dW_k)):
        numeric = np.zeros_like(W)
        for index in np.ndindex(W.shape):
            up, down = W.copy(), W.copy()
            up[index] += h
            down[index] -= h
            args = (up, W_k) if name == "W_q" else (W_q, up)
            back = (down, W_k) if name == "W_q" else (W_q, down)
            numeric[index] = (_loss(x, *args, 1, 4, scale) - _loss(x, *back, 1, 4, scale)) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_gradients_match_torch_autograd():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, W_q, W_k = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=(3, 3))
    exact = loss_and_gradients(x, W_q, W_k, 0, 3)
    X = torch.tensor(x)
    Wq = torch.tensor(W_q, requires_grad=True)
    Wk = torch.tensor(W_k, requires_grad=True)
    scores = (X[0] @ Wq) @ (X @ Wk).T / np.sqrt(3)
    loss = -torch.log_softmax(scores, dim=0)[3]
    loss.backward()
    assert exact.loss == pytest.approx(loss.item(), rel=1e-12)
    np.testing.assert_allclose(exact.dW_q, Wq.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(exact.dW_k, Wk.grad.numpy(), rtol=1e-10)


def test_step_zero_is_the_chapters_attention_and_the_shown_steps_move_crane_to_lake():
    run = learn_query_key(CHAPTER_X, CHAPTER_TOKENS, CRANE, LAKE, steps=12)
    np.testing.assert_allclose(run.steps[0].weights.round(3), [0.298, 0.203, 0.206, 0.293])
    assert clear_winner(run.steps[0].weights) == CRANE           # the chapter: crane on itself
    assert clear_winner(run.steps[-1].weights) == LAKE           # after the page's 12 steps: on lake
    assert run.first_step_on_target is not None and run.first_step_on_target <= 12
    losses = [s.loss for s in run.steps]
    assert all(b < a for a, b in zip(losses, losses[1:]))       # every step lowers the loss
    assert losses[0] == pytest.approx(-np.log(run.steps[0].weights[LAKE]))
    # the learned W_Q, W_K in the calculator give the same weights
    last = run.steps[-1]
    again = self_attention(CHAPTER_X, last.W_q, last.W_k, None)
    np.testing.assert_allclose(again.weights[CRANE], last.weights)
    assert run.learning_rate == LEARNING_RATE


def test_learning_refuses_bad_settings():
    with pytest.raises(ValueError, match="steps"):
        learn_query_key(CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=limits.MAX_LEARN_STEPS + 1)
    with pytest.raises(ValueError, match="target"):
        learn_query_key(CHAPTER_X, CHAPTER_TOKENS, 0, 4, steps=3)
    with pytest.raises(ValueError, match="learning rate"):
        learn_query_key(CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=3, learning_rate=0)


def test_sharpness_one_is_the_chapter_and_larger_sharpens():
    assert self_attention(CHAPTER_X, sharpness=1.0).weights[0].round(3).tolist() == [0.298, 0.203, 0.206, 0.293]
    sweep = weights_by_sharpness(CHAPTER_X, query=0, sharpnesses=[0.1, 1, 32])
    assert sweep[0].max() < 0.27 < sweep[1].max() < sweep[2].max()
    np.testing.assert_allclose(sweep.sum(axis=1), 1)
    # beta = sqrt(d_k) with scaling on gives back the unscaled scores of steps 1-3
    np.testing.assert_allclose(self_attention(CHAPTER_X, sharpness=np.sqrt(3)).weights,
                               self_attention(CHAPTER_X, scale=False).weights)
    with pytest.raises(ValueError, match="sharpness"):
        self_attention(CHAPTER_X, sharpness=0)
    with pytest.raises(ValueError, match="sharpness"):
        self_attention(CHAPTER_X, sharpness=limits.MAX_SHARPNESS * 2)


def test_ties_are_decided_at_the_printed_precision():
    x = CHAPTER_X.copy()
    x[BY] = x[CRANE]                                   # by = crane: the two weights are equal
    row = self_attention(x).weights[CRANE]
    assert leaders(row) == [CRANE, BY] and clear_winner(row) is None
    sentence = largest_weight_sentence(row, CHAPTER_TOKENS, CRANE)
    assert "tie: **crane** and **by** at **0.272**" in sentence
    assert "puts its largest weight" not in sentence
    assert leaders([0.2724, 0.2716, 0.456]) == [2]
    assert leaders([0.2731, 0.2719]) == [0]            # 0.273 against 0.272: a winner
    assert leaders([0.2721, 0.2719]) == [0, 1]         # both print 0.272


def test_the_self_sentence_says_what_is_true():
    row = self_attention(CHAPTER_X).weights[CRANE]
    sentence = largest_weight_sentence(row, CHAPTER_TOKENS, CRANE)
    assert "always points its own way" not in sentence
    assert "|x|²" in sentence and "lake** gets the most, **0.293" in sentence
    x = CHAPTER_X.copy()
    x[BY] = 2 * x[CRANE]                               # longer, same way: beats crane's own score
    assert clear_winner(self_attention(x).weights[CRANE]) == BY
    context = favourite_neighbour_sentence(row, CHAPTER_TOKENS, CRANE)
    assert "favourite neighbour of **crane** is **lake** (0.293)" in context and "on itself" in context


def test_favourite_neighbours_tie():
    row = np.array([0.1, 0.197, 0.4, 0.197, 0.106])
    sentence = favourite_neighbour_sentence(row, list("abcde"), 2)
    assert "tie: **b** and **d** at 0.197 each, 1 and 1 positions away" in sentence


def test_a_query_of_zeros_prefers_no_token_and_the_sentence_says_so():
    """crane = 0 gave "favourite neighbours tie: by, the and lake ... A window needs k = 1 to reach it, and then gives
    it only 0.500": no favourite, an 'it' that named nothing, and 'only' for more than attention's 0.250."""
    from engine.attention.readings import context_reading

    x = CHAPTER_X.copy()
    x[CRANE] = 0
    row = self_attention(x).weights[CRANE]
    sentence = context_reading(row, CHAPTER_TOKENS, CRANE)
    assert sentence.startswith("**crane** gives every token the same weight, 0.250, itself included")
    assert "attention prefers no token" in sentence and "covers the whole sentence (k = 3)" in sentence
    assert "favourite" not in sentence and "only" not in sentence


def test_the_window_says_only_when_it_gives_less_than_attention_and_names_a_tied_neighbour():
    from engine.attention.readings import context_reading

    default = context_reading(self_attention(CHAPTER_X).weights[CRANE], CHAPTER_TOKENS, CRANE)
    assert "A window needs k = 3 to reach it, and then gives it only 0.250" in default      # attention: 0.293
    near = context_reading(np.array([0.1, 0.3, 0.3, 0.3]), CHAPTER_TOKENS, CRANE)
    assert "by**, **the** and **lake** at 0.300 each, 1, 2 and 3 positions away" in near
    assert ("A window needs k = 1 to reach **by**, the nearest of them, and then gives it 0.500, the same as every "
            "other token inside (attention gives it 0.300).") in near


def test_overflow_solution_is_the_smallest_factor_that_overflows():
    crane = self_attention(CHAPTER_X).scaled[CRANE]    # largest scaled score 0.468: x1,000 = 468 < 709.78
    assert overflow_solution(crane, [1, 10, 100, 1_000, 10_000]) == 10_000
    assert overflow_solution([-5.0, -1.0], [1, 10]) is None


def test_the_calculator_reading_says_how_the_scores_were_scaled():
    scaled, raw = self_attention(CHAPTER_X), self_attention(CHAPTER_X, scale=False)
    said = calculator_reading(scaled.weights[CRANE], CHAPTER_TOKENS, CRANE, d_k=scaled.d_k, scaled=True)
    assert said.startswith(largest_weight_sentence(scaled.weights[CRANE], CHAPTER_TOKENS, CRANE))
    assert said.endswith("Each row of α sums to 1; d_k = 3, the scores divided by √d_k.")
    said = calculator_reading(raw.weights[CRANE], CHAPTER_TOKENS, CRANE, d_k=raw.d_k, scaled=False)
    assert "d_k = 3, the scores not scaled" in said and "√d_k" not in said



# --- counts with nouns: one step, three steps (ngettext, the language's plural forms) -----------------------------

def _neighbour_at(distance: int, length: int = 12) -> str:
    """The favourite-neighbour sentence of token 0 whose one largest-weighted neighbour is `distance` away."""
    row = np.full(length, 0.05)
    row[0], row[distance] = 0.1, 0.4
    return favourite_neighbour_sentence(row / row.sum(), [chr(ord("a") + i) for i in range(length)], 0)


def test_a_count_of_one_reads_singular_and_of_three_plural_in_english():
    from engine.attention.readings import learning_sentence

    assert _neighbour_at(1).startswith("Attention's favourite neighbour of **a** is **b**") and \
        "1 position away." in _neighbour_at(1)
    assert "3 positions away." in _neighbour_at(3) and "position(s)" not in _neighbour_at(3)
    one = learning_sentence(learn_query_key(CHAPTER_X, CHAPTER_TOKENS, CRANE, LAKE, steps=1))
    three = learning_sentence(learn_query_key(CHAPTER_X, CHAPTER_TOKENS, CRANE, LAKE, steps=3))
    assert one.startswith("After 1 step, **crane**") and three.startswith("After 3 steps, **crane**")


def test_arabic_says_two_five_and_eleven_positions_with_three_different_forms():
    """Arabic's plural rule (engine.i18n.PLURAL_FORMS): the dual for 2 (موضعين, the number in the word), a plural for
    3 to 10 (مواضع), a singular in the accusative for 11 to 99 (موضعًا), a singular for 100 and on."""
    from engine import i18n

    with i18n.use("ar"):
        two, five, eleven = _neighbour_at(2), _neighbour_at(5), _neighbour_at(11)
        hundred = _neighbour_at(100, length=101)
    assert two.endswith("على بُعد موضعين.") and "{n}" not in two
    assert five.endswith("على بُعد 5 مواضع.")
    assert eleven.endswith("على بُعد 11 موضعًا.")
    assert hundred.endswith("على بُعد 100 موضع.")
    assert len({two, five, eleven, hundred}) == 4 and "**b**" not in two and "**c**" in two
