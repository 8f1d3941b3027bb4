"""Learning W_Q and W_K: gradient descent on one token's attention, in numpy with exact gradients.

The chapter's plain self-attention (steps 1-3) has nothing to learn: its scores x_i . x_j are fixed by
the embeddings. With projections, q_i = x_i W_Q and k_j = x_j W_K, the scores become learnable. Here we
ask one query token i to attend to one target key t and descend the loss

    L = -log alpha_it,   alpha_ij = softmax_j(s_ij),   s_ij = q_i . k_j / sqrt(d_k)

whose gradients are, with g_j = dL/ds_ij = alpha_ij - [j = t],

    dL/dW_Q = x_i^T (g K) / sqrt(d_k)        dL/dW_K = X^T (g^T q_i) / sqrt(d_k).

Plain gradient descent from W_Q = W_K = I (the chapter's attention, step 0) is deterministic: no
randomness, so the same steps give the same numbers every time.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import limits, numbers
from engine.attention.mechanism import check_matrix, softmax_rows
from engine.attention.readings import clear_winner
from engine.i18n import N_, _

LEARNING_RATE = 2.0   # the default step size: crane attends most to lake after 8 steps


@dataclass(frozen=True)
class LossAndGradients:
    loss: float            # -log alpha_it
    weights: np.ndarray    # (T,) alpha_i.
    dW_q: np.ndarray       # (d, d_k)
    dW_k: np.ndarray       # (d, d_k)


def loss_and_gradients(x, W_q, W_k, query: int, target: int, *, scale: bool = True) -> LossAndGradients:
    """L = -log softmax(x_query W_Q (X W_K)^T / sqrt(d_k))_target and its exact gradients in W_Q and W_K."""
    X = np.asarray(x, dtype=float)
    q = X[query] @ W_q                       # (d_k,)
    K = X @ W_k                              # (T, d_k)
    factor = 1 / np.sqrt(K.shape[1]) if scale else 1.0
    weights = softmax_rows((K @ q) * factor)
    g = weights.copy()
    g[target] -= 1.0                         # dL/ds_j = alpha_j - [j = target]
    dq = factor * (g @ K)                    # (d_k,)
    dK = factor * np.outer(g, q)             # (T, d_k)
    return LossAndGradients(loss=float(-np.log(weights[target])), weights=weights,
                            dW_q=np.outer(X[query], dq), dW_k=X.T @ dK)


@dataclass(frozen=True)
class LearningStep:
    step: int
    loss: float           # before this step's update
    weights: np.ndarray   # (T,) the query's weights with these W_Q, W_K
    W_q: np.ndarray
    W_k: np.ndarray


@dataclass(frozen=True)
class LearningRun:
    """Every step of gradient descent, step 0 being the start (W_Q = W_K = I: the chapter's attention)."""
    tokens: list[str]
    query: int
    target: int
    learning_rate: float
    steps: list[LearningStep]

    @property
    def first_step_on_target(self) -> int | None:
        """The first step at which the query's largest weight is on the target, or None."""
        return next((s.step for s in self.steps if clear_winner(s.weights) == self.target), None)


def learn_query_key(x, tokens: list[str], query: int, target: int, *, steps: int,
                    learning_rate: float = LEARNING_RATE, scale: bool = True) -> LearningRun:
    """`steps` gradient steps W <- W - learning_rate dL/dW on W_Q and W_K, from the identity."""
    X = check_matrix(x, _("X (the token embeddings)"))
    T, d = X.shape
    if len(tokens) != T:
        raise ValueError(_("There must be one token name per row of X: {names} names, {T} rows.", names=len(tokens),
                           T=T))
    for value, message in ((query, N_("The query token must be a row of X, 0 to {last}; got {got}.")),
                           (target, N_("The target token must be a row of X, 0 to {last}; got {got}."))):
        if not isinstance(value, (int, np.integer)) or not 0 <= value < T:
            raise ValueError(_(message, last=T - 1, got=value))
    if not isinstance(steps, (int, np.integer)) or not 0 <= steps <= limits.MAX_LEARN_STEPS:
        raise ValueError(_("The number of steps must be a whole number from 0 to {most}; got {got}.",
                           most=limits.MAX_LEARN_STEPS, got=steps))
    if not np.isfinite(learning_rate) or not 0 < learning_rate <= limits.MAX_LEARNING_RATE:
        raise ValueError(_("The learning rate must be above 0 and at most {most}; got {got}.",
                           most=numbers.localized(f"{limits.MAX_LEARNING_RATE:g}"), got=learning_rate))
    W_q, W_k = np.eye(d), np.eye(d)
    history = []
    for step in range(int(steps) + 1):
        result = loss_and_gradients(X, W_q, W_k, int(query), int(target), scale=scale)
        history.append(LearningStep(step, result.loss, result.weights, W_q.copy(), W_k.copy()))
        W_q = W_q - learning_rate * result.dW_q
        W_k = W_k - learning_rate * result.dW_k
    return LearningRun(list(tokens), int(query), int(target), float(learning_rate), history)
