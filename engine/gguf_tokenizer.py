"""SmolLM2's tokenizer, built from the vocabulary and merges in its GGUF file (byte-level BPE, as GPT-2's)."""
from __future__ import annotations

from typing import Sequence

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


class GGUFTokenizer:
    """SmolLM2's own byte-level BPE (49,152 tokens), built from the vocabulary and merges in the GGUF.

    As in SmolLM2's tokenizer: digits are split one by one, then GPT-2's pre-tokenizer
    regex, then the merges. Control tokens (<|endoftext|>, <|im_start|>, ...) are kept whole.
    """

    name = "SmolLM2 byte-level BPE"

    def __init__(self, tokens: list[str], merges: list[str], token_type: Sequence[int]):
        from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

        self.vocab_size = len(tokens)
        bpe = models.BPE(vocab={token: i for i, token in enumerate(tokens)},
                         merges=[tuple(merge.split(" ", 1)) for merge in merges])
        self._tokenizer = Tokenizer(bpe)
        self._tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ])
        self._tokenizer.decoder = decoders.ByteLevel()
        control = [token for token, kind in zip(tokens, token_type) if int(kind) == 3]
        self._tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in control])

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
