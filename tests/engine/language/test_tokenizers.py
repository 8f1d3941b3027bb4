"""Tokenizers: exact small examples, round trips, the BPE trainer, and the GPT-2 peer test with tiktoken."""
import pytest
from hypothesis import given, settings, strategies as st

from engine import limits
from engine.language.tokenizers import (
    GPT2_PATTERN, CharTokenizer, WordTokenizer, gpt2_files, gpt2_tokenizer, split_words, tokens_by_merges, train_bpe
)


# --- characters -----------------------------------------------------------------------------

def test_char_vocabulary_is_sorted_distinct_characters():
    tok = CharTokenizer.from_text("hello world")
    assert tok.vocabulary == (" ", "d", "e", "h", "l", "o", "r", "w")
    assert tok.vocab_size == 8
    assert tok.encode("hello") == [3, 2, 4, 4, 5]
    assert tok.decode([3, 2, 4, 4, 5]) == "hello"
    assert tok.tokens("low") == ["l", "o", "w"]


def test_char_unknown_character_is_a_clear_error():
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(ValueError, match=r"never saw: 'x', 'z'"):
        tok.encode("abzx")
    assert tok.unknown("abzx") == {"x", "z"}
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tok.decode([3])
    with pytest.raises(ValueError, match="empty"):
        CharTokenizer.from_text("")


@given(st.text(min_size=1, max_size=200))
def test_char_round_trip(text):
    tok = CharTokenizer.from_text(text)
    assert tok.decode(tok.encode(text)) == text
    assert all(0 <= i < tok.vocab_size for i in tok.encode(text))


# --- words ----------------------------------------------------------------------------------

def test_words_keep_punctuation_and_line_breaks():
    assert split_words("Mary had a little lamb, kiss'd o'er\nthee!") == [
        "Mary", "had", "a", "little", "lamb", ",", "kiss'd", "o'er", "\n", "thee", "!"]


def test_word_vocabulary_by_frequency_with_unknown_first():
    tok = WordTokenizer.from_text("the cat and the hat . the end")
    assert tok.vocabulary == ("<unk>", "the", ".", "and", "cat", "end", "hat")
    assert tok.encode("the cat sat") == [1, 4, 0]
    assert tok.unknown("the cat sat on the mat") == ["sat", "on", "mat"]
    lines = WordTokenizer.from_text("the cat ,\n( the hat ) .")
    assert lines.decode(lines.encode("the cat ,\n( the hat ) .")) == "the cat,\n(the hat)."
    assert WordTokenizer.from_text("a a b c", max_vocab=2).vocabulary == ("<unk>", "a")
    with pytest.raises(ValueError, match="no words"):
        WordTokenizer.from_text("   ")


@given(st.lists(st.sampled_from(["to", "be", "or", "not", ",", ".", "\n", "Mary", "lamb"]), min_size=1, max_size=40))
def test_word_encode_decode_encode_is_stable(words):
    text = " ".join(words)
    tok = WordTokenizer.from_text(text)
    ids = tok.encode(text)
    assert tok.encode(tok.decode(ids)) == ids


# --- BPE training -----------------------------------------------------------------------------

def test_bpe_first_merges_by_hand():
    # pre-tokens "aaab" and " aaab": pair counts (a,a)=4, (a,b)=2, (' ',a)=1
    tok = train_bpe("aaab aaab", 3)
    assert [tok.merge_text(m) + (m.count,) for m in tok.merges] == [
        ("a", "a", "aa", 4),      # then (a,b)=2 ties (aa,a)=2: smaller ids win, 97 < 256
        ("a", "b", "ab", 2),
        ("aa", "ab", "aaab", 2),
    ]
    assert [m.new_id for m in tok.merges] == [256, 257, 258]
    assert tok.vocab_size == 259
    assert tok.encode("aaab aaab") == [258, 32, 258]
    assert tok.tokens("aaab aab") == ["aaab", " ", "aa", "b"]


def test_bpe_counts_match_a_recount_from_scratch():
    text = "the theme of the thesis: these then there " * 5
    tok = train_bpe(text, 20)
    for m in tok.merges:  # each recorded count is the count of the pair under the merges before it
        before = tok.truncated(m.rank)
        pieces = [before.encode_piece(p) for p in GPT2_PATTERN.findall(text)]
        recount = sum(sum(1 for pair in zip(p, p[1:]) if pair == (m.left, m.right)) for p in pieces)
        if m.left == m.right:  # overlapping runs like "aaa" count one merge per two symbols
            continue
        assert recount == m.count


def test_bpe_stops_when_nothing_repeats_and_checks_limits():
    assert len(train_bpe("abc", 10).merges) == 0
    with pytest.raises(ValueError, match="empty"):
        train_bpe("  ", 5)
    with pytest.raises(ValueError, match="merges"):
        train_bpe("abab", limits.MAX_BPE_MERGES + 1)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=80), st.integers(0, 30))
def test_bpe_round_trip_any_text(text, n_merges):
    tok = train_bpe("the quick brown fox jumps over the lazy dog, then the fox sleeps " * 3 + "é日本", n_merges)
    assert tok.decode(tok.encode(text)) == text


def test_truncated_steps_through_merges():
    tok = train_bpe("low lower lowest slow slower " * 4, 12)
    lengths = [len(tok.truncated(m).encode("lowest slower")) for m in range(len(tok.merges) + 1)]
    assert lengths[0] == len("lowest slower".encode())
    assert all(a >= b for a, b in zip(lengths, lengths[1:]))
    with pytest.raises(ValueError, match="merges"):
        tok.truncated(99)


# --- GPT-2 peer test ------------------------------------------------------------------------

def test_gpt2_known_ids():
    tok = gpt2_tokenizer()
    assert tok.vocab_size == 50257
    assert tok.encode("Hello world") == [15496, 995]
    assert tok.tokens("Mary had a little") == ["Mary", " had", " a", " little"]


@pytest.fixture(scope="module")
def tiktoken_gpt2():
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    encoder_json, vocab_bpe = gpt2_files()
    ranks = data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json))
    return tiktoken.Encoding(name="gpt2-offline", pat_str=GPT2_PATTERN.pattern, mergeable_ranks=ranks,
                             special_tokens={"<|endoftext|>": 50256})


def test_gpt2_matches_tiktoken_on_shakespeare(tiktoken_gpt2):
    from engine.language.corpus import load_corpus
    text = load_corpus().validation[:60_000]
    assert gpt2_tokenizer().encode(text) == tiktoken_gpt2.encode_ordinary(text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_gpt2_matches_tiktoken_on_any_text(tiktoken_gpt2, text):
    ours = gpt2_tokenizer().encode(text)
    assert ours == tiktoken_gpt2.encode_ordinary(text)
    assert gpt2_tokenizer().decode(ours) == text


def test_tokens_by_merges_counts_the_text_after_each_marked_merge():
    tok = train_bpe("low lower lowest slow slower " * 4, 12)
    marks, counts = tokens_by_merges(tok, "lowest slower", points=4)
    assert marks == [0, 3, 6, 9, 12]
    assert counts == [len(tok.truncated(m).encode("lowest slower")) for m in marks]
    assert tokens_by_merges(tok.truncated(0), "low") == ([0], [3])


def test_truncated_vocabulary_is_the_bytes_plus_the_kept_merges():
    from engine.language.corpus import load_corpus
    tok = train_bpe(load_corpus().train[:20_000], 300)  # the Tokens page: "BPE, 200 merges" showed V = 1256
    assert len(tok.merges) == 300
    cut = tok.truncated(200)
    assert cut.vocab_size == 256 + 200 == max(m.new_id for m in cut.merges) + 1
    assert len(cut.token_bytes) == cut.vocab_size and cut.special == {}
    assert tok.truncated(0).vocab_size == 256
    assert tok.truncated(len(tok.merges)).vocab_size == tok.vocab_size
    sample = "the thinkers' theses, then: é日本"
    ids = cut.encode(sample)
    assert max(ids) < cut.vocab_size and cut.decode(ids) == sample
    assert cut.tokens(sample) == tok.truncated(200).tokens(sample)


def test_truncated_gpt2_keeps_its_special_token_after_the_kept_merges():
    tok = gpt2_tokenizer()
    cut = tok.truncated(1000)
    assert cut.vocab_size == 256 + 1000 + 1
    assert cut.special == {"<|endoftext|>": 1256}
    assert cut.decode([1256]) == "<|endoftext|>"
    assert cut.decode(cut.encode("Hello world")) == "Hello world"
    assert tok.truncated(len(tok.merges)).vocab_size == 50257
    assert tok.truncated(len(tok.merges)).special == tok.special
