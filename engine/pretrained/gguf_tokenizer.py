"""A GGUF file's tokenizer, built from the vocabulary and merges in its metadata.

SmolLM2's is byte-level BPE, as GPT-2's (`tokenizer.ggml.model` 'gpt2'); Llama 2 and TinyLlama carry
sentencepiece BPE ('llama': pieces with ▁ for a space, bytes as <0xNN> when no piece fits, and
scores instead of merges). Both are rebuilt with the `tokenizers` package, as transformers' GGUF
loader rebuilds them.
"""
from __future__ import annotations

import re
from typing import Sequence

from engine.i18n import _

# How a byte-level vocabulary splits a text before its merges (`tokenizer.ggml.pre`): the patterns of
# llama.cpp's pre-tokenizers; the plain GPT-2 pattern is the `tokenizers` ByteLevel one (None here).
_LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                 r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
PRE_TOKENIZERS = {"smollm": "digits", "default": None, "gpt2": None, "gpt-2": None,
                  "llama-bpe": _LLAMA3_SPLIT, "llama3": _LLAMA3_SPLIT, "llama-v3": _LLAMA3_SPLIT,
                  "smaug-bpe": _LLAMA3_SPLIT, "qwen2": _QWEN2_SPLIT}
SPACE = "\u2581"        # ▁, sentencepiece's stand-in for a space
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")

# --- the tokenizer ---------------------------------------------------------------------------

def _byte_of_character() -> dict[str, int]:
    """GPT-2's byte-level alphabet: each of the 256 bytes has a printable stand-in character.

    Printable bytes stand for themselves; the others (space, control bytes, ...) are moved
    to code points 256 and up, so a space becomes 'Ġ' inside the vocabulary.
    """
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    characters = printable[:]
    shifted = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            characters.append(256 + shifted)
            shifted += 1
    return {chr(c): b for b, c in zip(printable, characters)}


_BYTE_OF_CHARACTER = _byte_of_character()


def merges_from_scores(tokens: Sequence[str], scores: Sequence[float]) -> list[str]:
    """A sentencepiece vocabulary's merges, best first, as 'left right': every way to cut a piece into two
    pieces of the vocabulary, ranked by the whole piece's score (transformers' `generate_merges`)."""
    index = {token: i for i, token in enumerate(tokens)}
    found = []
    for token, score in zip(tokens, scores):
        if " " in token:
            continue
        cuts = [(token[:k], token[k:]) for k in range(1, len(token)) if token[:k] in index and token[k:] in index]
        found += [(left, right, float(score)) for left, right in sorted(cuts, key=lambda c: (index[c[0]], index[c[1]]))]
    found.sort(key=lambda merge: (merge[2], len(merge[0]), len(merge[1])), reverse=True)
    return [f"{left} {right}" for left, right, _ in found]


class GGUFTokenizer:
    """A GGUF file's own BPE tokenizer, built from the vocabulary and merges in its metadata.

    `kind` 'gpt2' is byte-level BPE: SmolLM2's (pre 'smollm', 49,152 tokens) splits digits one by
    one, then GPT-2's pre-tokenizer regex, then the merges; other byte-level files split by their
    own pattern (`pre`: GPT-2's, Llama 3's, Qwen2's). `kind` 'llama' is sentencepiece BPE: spaces
    become ▁ (and one goes in front of the text when `add_space_prefix`), a character no piece
    covers falls back to its bytes <0xNN>. Control tokens (<|endoftext|>, <s>, ...) are kept whole.
    """

    name = "SmolLM2 byte-level BPE"

    def __init__(self, tokens: list[str], merges: list[str], token_type: Sequence[int], *, kind: str = "gpt2",
                 pre: str = "smollm", add_space_prefix: bool = True):
        from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

        if kind not in ("gpt2", "llama") or (kind == "gpt2" and pre not in PRE_TOKENIZERS):
            raise ValueError(_("This app reads byte-level BPE (split as {splits}) and sentencepiece BPE tokenizers; "
                               "this one is {kind} split as {split}.", splits=", ".join(PRE_TOKENIZERS),
                               kind=repr(kind), split=repr(pre)))
        self.vocab_size, self.kind = len(tokens), kind
        pairs = [tuple(merge.split(" ", 1)) for merge in merges]
        if kind == "llama":
            self.name = "sentencepiece BPE"
            bpe = models.BPE(vocab={token: i for i, token in enumerate(tokens)}, merges=pairs, fuse_unk=True,
                             byte_fallback=True)
            self._tokenizer = Tokenizer(bpe)
            self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
                replacement=SPACE, prepend_scheme="first" if add_space_prefix else "never", split=False)
            steps = [decoders.Replace(SPACE, " "), decoders.ByteFallback(), decoders.Fuse()]
            self._tokenizer.decoder = decoders.Sequence(steps + [decoders.Strip(" ", 1, 0)] * add_space_prefix)
        else:
            if pre != "smollm":
                self.name = f"byte-level BPE ({pre})"
            self._tokenizer = Tokenizer(models.BPE(vocab={token: i for i, token in enumerate(tokens)}, merges=pairs))
            split = PRE_TOKENIZERS[pre]
            if split == "digits":
                steps = [pre_tokenizers.Digits(individual_digits=True),
                         pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
            elif split is None:
                steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
            else:
                steps = [pre_tokenizers.Split(Regex(split), behavior="isolated"),
                         pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
            self._tokenizer.pre_tokenizer = pre_tokenizers.Sequence(steps)
            self._tokenizer.decoder = decoders.ByteLevel()
        self._control = {i for i, kind_ in enumerate(token_type) if int(kind_) == 3}
        self._tokenizer.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                                            for i in sorted(self._control)])
        user = [token for token, kind_ in zip(tokens, token_type) if int(kind_) == 4]   # added words, e.g. <think>
        if user:
            self._tokenizer.add_tokens([AddedToken(token, special=False, normalized=False) for token in user])

    def encode(self, text: str) -> list[int]:
        return self._tokenizer.encode(text).ids

    def encode_with_offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Token ids and, for each, the (start, end) characters of `text` it covers."""
        encoding = self._tokenizer.encode(text)
        return encoding.ids, encoding.offsets

    def decode(self, ids: Sequence[int]) -> str:
        return self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def token_bytes(self, token_id: int) -> bytes:
        """The raw bytes one token stands for (control tokens: their name).

        The token's string comes from the Rust tokenizer's own vocabulary: a Python list of the
        49,152 strings, made while the GGUF was parsed, kept 13 MiB of the parser's freed memory.
        """
        piece = self._tokenizer.id_to_token(int(token_id))
        if self.kind == "llama":
            byte = _BYTE_PIECE.fullmatch(piece)
            if byte:
                return bytes([int(byte.group(1), 16)])
            return (piece if int(token_id) in self._control else piece.replace(SPACE, " ")).encode("utf-8")
        if all(character in _BYTE_OF_CHARACTER for character in piece):
            return bytes(_BYTE_OF_CHARACTER[character] for character in piece)
        return piece.encode("utf-8")

    def display(self, token_id: int) -> str:
        """One token as a student should see it: its text, or its bytes when it is part of a character."""
        raw = self.token_bytes(token_id)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return "<" + " ".join(f"0x{b:02X}" for b in raw) + ">"

    def tokens(self, text: str) -> list[str]:
        return [self.display(i) for i in self.encode(text)]
