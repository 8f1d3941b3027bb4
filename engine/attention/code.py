"""'Show the code': runnable Python, R and Julia that reproduce the attention numbers on screen.

The generated programs are the chapter's own lines, with the student's current matrices
written in, so a student can paste them into a notebook and get exactly the page's numbers.
Each Python program comes with what it prints (engine.shown_code.Program): the same numpy lines,
in the same order, on the same numbers, here.
"""
from __future__ import annotations

import numpy as np

from engine.shown_code import Printout, Program


def _num(value: float) -> str:
    return repr(float(value))


def _rows(matrix: np.ndarray, labels: list[str] | None, open_: str, close: str, sep: str, comment: str,
          indent: str = "    ") -> list[str]:
    lines = []
    for i, row in enumerate(np.atleast_2d(matrix)):
        body = sep.join(_num(v) for v in row)
        end = "," if (open_ and i < len(matrix) - 1) else ""
        note = f"  {comment} {labels[i]}" if labels and labels[i] else ""
        lines.append(f"{indent}{open_}{body}{close}{end}{note}")
    return lines


def python_code(x: np.ndarray, labels: list[str], *, W_q=None, W_k=None, W_v=None, scale: bool = True,
                causal: bool = False, query: int = 0, sharpness: float = 1.0) -> str:
    """numpy: the chapter's softmax_rows and attention, with these matrices."""
    def block(name, matrix, names=None):
        return [f"{name} = np.array(["] + _rows(matrix, names, "[", "]", ", ", "#") + ["])"]

    lines = ["import numpy as np", "", "def softmax_rows(scores):",
             "    shifted = scores - scores.max(axis=1, keepdims=True)",
             "    weights = np.exp(shifted)",
             "    return weights / weights.sum(axis=1, keepdims=True)", ""]
    lines += block("x", x, labels)
    projections = {"W_q": W_q, "W_k": W_k, "W_v": W_v}
    for name, W in projections.items():
        if W is not None:
            lines += block(name, W)
    q = "x @ W_q" if W_q is not None else "x"
    k = "x @ W_k" if W_k is not None else "x"
    v = "x @ W_v" if W_v is not None else "x"
    lines += ["", f"queries, keys, values = {q}, {k}, {v}", "scores = queries @ keys.T"]
    if scale:
        lines.append("scores = scores / np.sqrt(keys.shape[1])")
    if sharpness != 1:
        lines.append(f"scores = {_num(sharpness)} * scores  # the sharpness beta")
    if causal:
        lines.append("scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)")
    lines += ["weights = softmax_rows(scores)", "context = weights @ values",
              f"print(np.round(weights[{query}], 3))", f"print(np.round(context[{query}], 3))"]
    return "\n".join(lines) + "\n"


def r_code(x: np.ndarray, labels: list[str], *, W_q=None, W_k=None, W_v=None, scale: bool = True,
           causal: bool = False, query: int = 0, sharpness: float = 1.0) -> str:
    """R: the chapter's version, 1-based rows."""
    def block(name, matrix, names=None):
        return [f"{name} <- rbind("] + _rows(matrix, names, "c(", ")", ", ", "#", "  ") + [")"]

    lines = ["softmax_rows <- function(scores) {", "  shifted <- sweep(scores, 1, apply(scores, 1, max))",
             "  weights <- exp(shifted)", '  sweep(weights, 1, rowSums(weights), FUN = "/")', "}", ""]
    lines += block("x", x, labels)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W is not None:
            lines += block(name, W)
    q = "x %*% W_q" if W_q is not None else "x"
    k = "x %*% W_k" if W_k is not None else "x"
    v = "x %*% W_v" if W_v is not None else "x"
    lines += ["", f"queries <- {q}; keys <- {k}; values <- {v}", "scores <- queries %*% t(keys)"]
    if scale:
        lines.append("scores <- scores / sqrt(ncol(keys))")
    if sharpness != 1:
        lines.append(f"scores <- {_num(sharpness)} * scores  # the sharpness beta")
    if causal:
        lines.append("scores[upper.tri(scores)] <- -Inf")
    lines += ["weights <- softmax_rows(scores)", "context <- weights %*% values",
              f"print(round(weights[{query + 1}, ], 3))", f"print(round(context[{query + 1}, ], 3))"]
    return "\n".join(lines) + "\n"


def julia_code(x: np.ndarray, labels: list[str], *, W_q=None, W_k=None, W_v=None, scale: bool = True,
               causal: bool = False, query: int = 0, sharpness: float = 1.0) -> str:
    """Julia: the chapter's version, 1-based rows."""
    def block(name, matrix, names=None):
        rows = np.atleast_2d(matrix)
        body = []
        for i, row in enumerate(rows):
            end = ";" if i < len(rows) - 1 else ""
            note = f"  # {names[i]}" if names and names[i] else ""
            body.append("     " + " ".join(_num(v) for v in row) + end + note)
        return [f"{name} = ["] + body + ["]"]

    lines = ["function softmax_rows(scores)", "    shifted = scores .- maximum(scores, dims = 2)",
             "    weights = exp.(shifted)", "    weights ./ sum(weights, dims = 2)", "end", ""]
    lines += block("x", x, labels)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W is not None:
            lines += block(name, W)
    q = "x * W_q" if W_q is not None else "x"
    k = "x * W_k" if W_k is not None else "x"
    v = "x * W_v" if W_v is not None else "x"
    lines += ["", f"queries, keys, values = {q}, {k}, {v}", "scores = queries * keys'"]
    if scale:
        lines.append("scores = scores / sqrt(size(keys, 2))")
    if sharpness != 1:
        lines.append(f"scores = {_num(sharpness)} * scores  # the sharpness beta")
    if causal:
        lines.append("scores = [j <= i ? scores[i, j] : -Inf for i in axes(scores, 1), j in axes(scores, 2)]")
    lines += ["weights = softmax_rows(scores)", "context = weights * values",
              f"println(round.(weights[{query + 1}, :], digits = 3))",
              f"println(round.(context[{query + 1}, :], digits = 3))"]
    return "\n".join(lines) + "\n"


def _written(matrix) -> np.ndarray:
    """A matrix as a program writes it out (_num: repr of each float): the numbers the program computes with."""
    return np.array([[float(v) for v in row] for row in np.atleast_2d(matrix)])


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    """The programs' softmax_rows, line for line."""
    shifted = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    return weights / weights.sum(axis=1, keepdims=True)


def python_printout(x: np.ndarray, labels: list[str], *, W_q=None, W_k=None, W_v=None, scale: bool = True,
                    causal: bool = False, query: int = 0, sharpness: float = 1.0) -> str:
    """What python_code's program prints: its lines, in its order, on the numbers it writes out."""
    x = _written(x)
    queries = x @ _written(W_q) if W_q is not None else x
    keys = x @ _written(W_k) if W_k is not None else x
    values = x @ _written(W_v) if W_v is not None else x
    scores = queries @ keys.T
    if scale:
        scores = scores / np.sqrt(keys.shape[1])
    if sharpness != 1:
        scores = float(sharpness) * scores
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    weights = _softmax_rows(scores)
    context = weights @ values
    out = Printout()
    out.print(np.round(weights[query], 3))
    out.print(np.round(context[query], 3))
    return out.text


def attention_code(x, labels, **settings) -> dict[str, Program | str]:
    """The same computation in the chapter's three languages; the Python one with what it prints."""
    return {"Python": Program(python_code(x, labels, **settings), lambda: python_printout(x, labels, **settings)),
            "R": r_code(x, labels, **settings), "Julia": julia_code(x, labels, **settings)}


def context_code(x: np.ndarray, labels: list[str], t: int, k: int, scaled: bool) -> Program:
    """The Context page's program: token t's window average (half-width k) and its attention weights, with X as
    the page holds it (to 4 decimals), and what it prints."""
    rounded = np.round(np.asarray(x, dtype=float), 4).tolist()
    source = (
        "import numpy as np\n\n"
        f"x = np.array({rounded})  # {' '.join(labels)}\n"
        f"t, k = {t}, {k}\n"
        "T = len(x)\n"
        "inside = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]) <= k\n"
        "window = inside / inside.sum(axis=1, keepdims=True)\n"
        f"scores = x @ x.T{' / np.sqrt(x.shape[1])' if scaled else ''}\n"
        "weights = np.exp(scores - scores.max(axis=1, keepdims=True))\n"
        "weights /= weights.sum(axis=1, keepdims=True)\n"
        "print('window   ', np.round(window[t], 3), np.round(window[t] @ x, 3))\n"
        "print('attention', np.round(weights[t], 3), np.round(weights[t] @ x, 3))\n")

    def printout() -> str:
        xs = np.array(rounded)
        T = len(xs)
        inside = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :]) <= k
        window = inside / inside.sum(axis=1, keepdims=True)
        scores = xs @ xs.T / np.sqrt(xs.shape[1]) if scaled else xs @ xs.T
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        out = Printout()
        out.print("window   ", np.round(window[t], 3), np.round(window[t] @ xs, 3))
        out.print("attention", np.round(weights[t], 3), np.round(weights[t] @ xs, 3))
        return out.text

    return Program(source, printout)


def multi_head_code(words: dict[str, list[float]], tokens: list[str], *, h: int, weights: str, gain: float,
                    seed: int, causal: bool) -> Program:
    """The Multi-head page's numpy program: the sentence's tiny-vocabulary vectors (`words`, word -> vector),
    the heads' weights ("identity" with `gain`, or seeded random), h heads of width d/h, concatenated, times
    W_O; and what it prints (head 1's weights and the output's row 0)."""
    vectors = "\n".join(f"    {w!r}: {list(words[w])}," for w in sorted(set(tokens)))
    if weights == "identity":
        weights_lines = f"W_q = W_k = {gain} * np.eye(d)\nW_v = W_o = np.eye(d)"
    else:
        weights_lines = (f"rng = np.random.default_rng({seed})\n"
                         f"W_q, W_k, W_v, W_o = (rng.normal(0, {gain} / np.sqrt(d), size=(d, d)) "
                         "for _ in range(4))")
    mask_line = "    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)\n" if causal else ""
    source = f'''import numpy as np

words = {{
{vectors}
}}
X = np.array([words[w] for w in "{' '.join(tokens)}".split()])
T, d = X.shape
h = {h}
{weights_lines}

def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
{mask_line}    alpha = np.exp(s - s.max(axis=1, keepdims=True))
    alpha /= alpha.sum(axis=1, keepdims=True)
    return alpha, alpha @ V

w = d // h                                    # each head is d/h wide
heads = [attention(X @ W_q[:, m*w:(m+1)*w], X @ W_k[:, m*w:(m+1)*w], X @ W_v[:, m*w:(m+1)*w])
         for m in range(h)]
concat = np.concatenate([context for _, context in heads], axis=1)   # (T, d)
output = concat @ W_o                                                # (T, d)
print(heads[0][0].round(3))    # head 1's weights
print(output[0].round(3))      # the output's first row
'''

    def printout() -> str:
        X = np.array([[float(v) for v in words[w]] for w in tokens])
        T, d = X.shape
        if weights == "identity":
            W_q = W_k = float(gain) * np.eye(d)
            W_v = W_o = np.eye(d)
        else:
            rng = np.random.default_rng(seed)
            W_q, W_k, W_v, W_o = (rng.normal(0, float(gain) / np.sqrt(d), size=(d, d)) for _ in range(4))

        def attention(Q, K, V):
            s = Q @ K.T / np.sqrt(Q.shape[1])
            if causal:
                s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
            alpha = np.exp(s - s.max(axis=1, keepdims=True))
            alpha /= alpha.sum(axis=1, keepdims=True)
            return alpha, alpha @ V

        w = d // h
        heads = [attention(X @ W_q[:, m*w:(m+1)*w], X @ W_k[:, m*w:(m+1)*w], X @ W_v[:, m*w:(m+1)*w])
                 for m in range(h)]
        concat = np.concatenate([context for _, context in heads], axis=1)
        output = concat @ W_o
        out = Printout()
        out.print(heads[0][0].round(3))
        out.print(output[0].round(3))
        return out.text

    return Program(source, printout)
