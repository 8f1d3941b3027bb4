"""N-gram models: a 10-token text by hand, nltk.lm as the add-k peer, properties with hypothesis."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from engine import limits
from engine.language.ngram import (
    NGramModel, count_ngrams, find_loop, held_out_table, nats_to_bits, perplexity, prompt_ids, transition_table
)
from engine.language.tokenizers import CharTokenizer, WordTokenizer

# a b a b c a b a c a  ->  ids with a=0, b=1, c=2
TEN = [0, 1, 0, 1, 2, 0, 1, 0, 2, 0]


def test_counts_by_hand():
    ngrams = count_ngrams(TEN, 2, 3)
    assert ngrams.keys[1].tolist() == [0, 1, 2] and ngrams.counts[1].tolist() == [5, 3, 2]
    bigrams = {tuple(ngrams.gram_tokens(2, g)): int(c) for g, c in enumerate(ngrams.counts[2])}
    assert bigrams == {(0, 1): 3, (0, 2): 1, (1, 0): 2, (1, 2): 1, (2, 0): 2}
    # continuation counts N1+(. w): a after b and c; b after a; c after b and a
    assert ngrams.continuation[1].tolist() == [2, 1, 2]


def test_mle_and_laplace_by_hand():
    mle = NGramModel(2, "none").fit(TEN, 3)
    assert np.allclose(mle.distribution([0]).probs, [0, 3 / 4, 1 / 4])
    assert mle.distribution([0]).context_count == 4
    laplace = NGramModel(2, "add-k", k=1).fit(TEN, 3)
    assert np.allclose(laplace.distribution([0]).probs, [1 / 7, 4 / 7, 2 / 7])
    unigram = NGramModel(1, "add-k", k=0.5).fit(TEN, 3)
    assert np.allclose(unigram.distribution([2, 2]).probs, [5.5 / 11.5, 3.5 / 11.5, 2.5 / 11.5])


def test_kneser_ney_by_hand():
    # order 1: continuation counts [2, 1, 2], D1 = n1/(n1+2 n2) = 1/5 -> P1 = (a - 0.2)/5 + 0.2*3/5 * 1/3
    # order 2: raw counts, D2 = 2/(2+4) = 1/3; after a: S=4, T=2
    kn = NGramModel(2, "kneser-ney").fit(TEN, 3)
    p1 = np.array([0.4, 0.2, 0.4])
    assert np.allclose(NGramModel(1, "kneser-ney").fit(TEN, 3).distribution().probs, [0.5, 0.3, 0.2])
    assert np.allclose(kn.distribution([1, 0]).probs,
                       np.array([0, 3 - 1 / 3, 1 - 1 / 3]) / 4 + (1 / 3) * 2 / 4 * p1)
    assert np.allclose(kn.distribution([1, 0]).probs, [1 / 15, 0.7, 7 / 30])


def test_mle_cross_entropy_by_hand_and_zero_probability():
    mle = NGramModel(2, "none").fit(TEN, 3)
    p = [3 / 4, 2 / 3, 3 / 4, 1 / 3, 1, 3 / 4, 2 / 3, 1 / 4, 1]
    score = mle.score(TEN)
    assert score.nats == pytest.approx(-sum(map(math.log, p)) / 9, rel=1e-12)
    assert score.bits == pytest.approx(score.nats / math.log(2))
    assert score.perplexity == pytest.approx(math.exp(score.nats))
    unseen = mle.score([0, 0, 1])  # "a a" never happened: P = 0, H = infinity
    assert unseen.n_zero == 1 and math.isinf(unseen.nats) and math.isinf(unseen.perplexity)
    # an unseen context backs off to the longest seen one: "c c" -> context "c" never... is seen
    tri = NGramModel(3, "none").fit(TEN, 3)
    assert tri.distribution([2, 2]).order_used == 2
    assert np.allclose(tri.distribution([2, 2]).probs, [1, 0, 0])


def test_helpers():
    assert nats_to_bits(math.log(2)) == pytest.approx(1.0)
    assert perplexity(math.log(7)) == pytest.approx(7.0)
    assert math.isinf(perplexity(math.inf))


# --- peers: nltk.lm -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def words():
    from engine.language.corpus import load_corpus
    play = load_corpus().play("Macbeth")
    train = WordTokenizer.from_text(play.text).tokens(play.text[:play.split_at])[:15_000]
    held_out = WordTokenizer.from_text(play.text).tokens(play.text[play.split_at:])[:1_500]
    return train, held_out


@pytest.mark.parametrize("n, gamma", [(1, 1.0), (2, 1.0), (2, 0.1), (3, 0.01), (3, 1.0)])
def test_add_k_agrees_with_nltk(words, n, gamma):
    lm = pytest.importorskip("nltk.lm")
    from nltk.util import everygrams
    train, held_out = words
    reference = lm.Laplace(n) if gamma == 1.0 else lm.Lidstone(gamma, n)
    reference.fit([list(everygrams(train, max_len=n))], vocabulary_text=train)

    vocab = sorted(set(train))
    index = {w: i for i, w in enumerate(vocab)}
    unknown = len(vocab)  # nltk's "<UNK>": one more vocabulary entry, never seen in training
    ours = NGramModel(n, "add-k", k=gamma).fit([index[w] for w in train], vocab_size=len(reference.vocab))
    assert ours.vocab_size == len(vocab) + 1
    held_ids = [index.get(w, unknown) for w in held_out]

    # the same positions: every token after the first, with up to n-1 tokens of context
    test_ngrams = [tuple(held_out[max(0, t - n + 1):t + 1]) for t in range(1, len(held_out))]
    assert ours.score(held_ids).perplexity == pytest.approx(reference.perplexity(test_ngrams), rel=1e-9)
    context = held_out[10:10 + n - 1]
    for word in ("the", "Macbeth", held_out[10 + n - 1]):
        expected = reference.score(word, context)
        assert ours.distribution([index.get(w, unknown) for w in context]).probs[index.get(word, unknown)] == \
            pytest.approx(expected, rel=1e-12)


# --- properties ---------------------------------------------------------------------------------

texts = st.lists(st.integers(0, 5), min_size=6, max_size=80)


@settings(max_examples=60, deadline=None)
@given(texts, st.integers(1, 4), st.sampled_from(["none", "add-k", "kneser-ney"]),
       st.lists(st.integers(0, 6), max_size=5))
def test_distributions_sum_to_one(ids, n, smoothing, context):
    model = NGramModel(n, smoothing, k=0.5).fit(ids, vocab_size=7)
    probs = model.distribution(context).probs
    assert probs.shape == (7,)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(probs >= 0)
    if smoothing != "none":
        assert np.all(probs > 0)


@settings(max_examples=40, deadline=None)
@given(texts, texts, st.integers(1, 4), st.sampled_from(["none", "add-k", "kneser-ney"]))
def test_scoring_all_positions_matches_one_distribution_at_a_time(train, text, n, smoothing):
    model = NGramModel(n, smoothing, k=0.3).fit(train, vocab_size=6)
    fast = model.token_probabilities(text)
    slow = [model.distribution(text[max(0, t - n + 1):t]).probs[text[t]] for t in range(1, len(text))]
    assert np.allclose(fast, slow, rtol=1e-12, atol=0)


@settings(max_examples=25, deadline=None)
@given(texts, st.integers(1, 4), st.integers(0, 2**32 - 1), st.floats(0.1, 3.0))
def test_sampling_is_reproducible_by_seed(ids, n, seed, temperature):
    model = NGramModel(n, "kneser-ney").fit(ids, vocab_size=6)
    first = model.sample(30, seed=seed, temperature=temperature, prompt=ids[:2])
    assert first == model.sample(30, seed=seed, temperature=temperature, prompt=ids[:2])
    assert len(first) == 30 and all(0 <= i < 6 for i in first)


def test_temperature_zero_is_greedy_and_seeds_differ():
    model = NGramModel(3, "kneser-ney").fit(TEN, 3)
    greedy = model.sample(8, seed=1, temperature=0, prompt=[2])
    history = [2]
    for _ in range(8):
        history.append(int(np.argmax(model.distribution(history).probs)))
    assert greedy == history[1:] == model.sample(8, seed=99, temperature=0, prompt=[2])
    corpus = list(np.random.default_rng(0).integers(0, 20, 500))
    wide = NGramModel(2, "add-k").fit(corpus, 20)
    assert wide.sample(50, seed=1) != wide.sample(50, seed=2)


def test_table_stats_count_distinct_ngrams():
    rows = NGramModel(3, "none").fit(TEN, 3).table_stats()
    assert [(r.order, r.seen, r.possible) for r in rows] == [(1, 3, 3.0), (2, 5, 9.0), (3, 7, 27.0)]
    assert rows[2].fraction == pytest.approx(7 / 27)


def test_top_contexts_and_transition_table():
    model = NGramModel(3, "kneser-ney").fit(TEN, 3)
    assert model.top_contexts(2) == [((0, 1), 3), ((1, 0), 2)]
    table = transition_table(model.ngrams, top=2)
    assert table.tokens == [0, 1]                      # a (5), b (3)
    assert table.counts.tolist() == [[0, 3], [2, 0]]
    assert np.allclose(table.probs, [[0, 3 / 4], [2 / 3, 0]])


def test_distribution_top_view():
    top = NGramModel(2, "none").fit(TEN, 3).distribution([0]).top(2)
    assert top == [(1, 0.75, 3), (2, 0.25, 1)]


def test_large_vocabulary_counts_the_same_way():
    # ids beyond 16 bits are sorted as int64 columns; the counts must not change
    ids = list(np.random.default_rng(3).integers(0, 9, 400))
    small, large = count_ngrams(ids, 5, 9), count_ngrams(ids, 5, 70_000)
    for k in range(1, 6):
        assert small.counts[k].tolist() == large.counts[k].tolist()
        assert [small.gram_tokens(k, g) for g in range(5)] == [large.gram_tokens(k, g) for g in range(5)]


def test_held_out_table_on_characters():
    text = "to be or not to be, that is the question " * 20
    tok = CharTokenizer.from_text(text)
    rows = held_out_table(tok.encode(text[:600]), tok.encode(text[600:]), tok.vocab_size, orders=[1, 2, 3])
    by = {(r.n, r.smoothing): r for r in rows}
    assert len(rows) == 9
    assert by[(3, "kneser-ney")].nats < by[(2, "kneser-ney")].nats < by[(1, "kneser-ney")].nats
    assert by[(3, "none")].perplexity == pytest.approx(math.exp(by[(3, "none")].nats))


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: NGramModel(7), "from 1 to 6"),
    (lambda: NGramModel(0), "from 1 to 6"),
    (lambda: NGramModel(2, "witten-bell"), "Smoothing must be"),
    (lambda: NGramModel(2, "add-k", k=0), "k of add-k"),
    (lambda: NGramModel(6).fit([1, 2, 3]), "only 3 token"),
    (lambda: NGramModel(2).fit([1, -2, 3]), "negative"),
    (lambda: NGramModel(2).fit([1, 5], vocab_size=3), "outside the vocabulary"),
    (lambda: NGramModel(2).distribution([0]), "not been fitted"),
    (lambda: NGramModel(2).fit(TEN, 3).sample(5, seed=0, temperature=-1), "Temperature"),
    (lambda: NGramModel(2).fit(TEN, 3).sample(5, seed=0, temperature=1e6), "beyond the limit"),
    (lambda: NGramModel(2).fit(TEN, 3).sample(limits.MAX_SAMPLE_TOKENS + 1, seed=0), "Sample length"),
    (lambda: NGramModel(2).fit(TEN, 3).score([1]), "at least two tokens"),
    (lambda: NGramModel(2).fit(TEN, 3).distribution([7]), "outside the vocabulary"),
])
def test_bad_input_is_a_sentence(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_prompt_with_unseen_words_or_characters():
    words = WordTokenizer.from_text("Mary had a little lamb")
    assert prompt_ids(words, "Mary had a") == [words.encode("Mary")[0], words.encode("had")[0], words.encode("a")[0]]
    with pytest.raises(ValueError, match="never does \\('zorp'\\)"):
        prompt_ids(words, "Mary had a zorp")
    with pytest.raises(ValueError, match="never"):
        prompt_ids(CharTokenizer.from_text("abc"), "abd")


# --- loops --------------------------------------------------------------------------------------

def test_find_loop_in_words():
    text = "I said the river flows to the sea and the river flows to the sea and the river flows".split()
    loop = find_loop(text)
    assert (loop.start, loop.period) == (2, 7)
    assert loop.end == len(text)
    assert loop.repeats == pytest.approx(17 / 7)


def test_find_loop_in_ids_and_none_when_no_repeat():
    assert find_loop([5, 1, 2, 3, 1, 2, 3, 1, 2, 3, 9], min_length=6) == find_loop(list("x123123123y"), min_length=6)
    assert find_loop(list("abcdefghij")) is None
    assert find_loop([]) is None
    assert find_loop(list("aaaa"), min_length=8) is None


@pytest.mark.parametrize("smoothing", ["none", "add-k", "kneser-ney"])
@pytest.mark.parametrize("temperature", [1.0, 0.999, 0.4, 2.5])  # the chain and the tempered chain
def test_sampled_frequencies_follow_the_distribution(smoothing, temperature):
    ids = list(np.random.default_rng(5).integers(0, 6, 60)) + [0, 1, 0, 1]
    from engine.lm import apply_temperature_top_k

    model = NGramModel(3, smoothing, k=0.5).fit(ids, vocab_size=8)
    expected = apply_temperature_top_k(model.distribution([0, 1]).probs, temperature, None)
    counts = np.zeros(8)
    for seed in range(1500):
        counts[model.sample(1, seed=seed, temperature=temperature, prompt=[0, 1])[0]] += 1
    # within 4 standard errors of a binomial count
    assert np.all(np.abs(counts / 1500 - expected) <= 4 * np.sqrt(expected * (1 - expected) / 1500) + 1e-9)


def test_mixture_weights_sum_to_one_and_name_the_backoff():
    mixture = NGramModel(3, "kneser-ney").fit(TEN, 3).mixture([0, 1])
    assert [c.order for c in mixture.components] == [3, 2, 1, 0]
    assert sum(c.weight for c in mixture.components) == pytest.approx(1.0)
    assert all(c.probs.sum() == pytest.approx(1.0) for c in mixture.components if c.order)


def test_held_out_needs_two_tokens():
    with pytest.raises(ValueError, match="held-out part"):
        held_out_table(TEN, [1], 3, orders=[1, 2])


def reshaped_cases():
    """A text with a vocabulary big enough to take TemperedChain's sparse path, and every context kind."""
    rng = np.random.default_rng(11)
    ids = list(rng.zipf(1.3, 4000) % 700) + [3, 5, 3, 5, 3, 5]
    contexts = [(), (3,), (3, 5), (5, 3, 5), (699, 698, 697), tuple(ids[100:103])]
    return ids, contexts


@pytest.mark.parametrize("small", [False, True], ids=["sparse levels", "dense levels"])
@pytest.mark.parametrize("smoothing", ["none", "add-k", "kneser-ney"])
def test_tempered_chain_is_the_dense_reshaping(smoothing, small, monkeypatch):
    from engine.lm import apply_temperature_top_k
    from engine.language.ngram import TemperedChain

    if small:
        monkeypatch.setattr(TemperedChain, "SMALL_VOCABULARY", 10_000)
    ids, contexts = reshaped_cases()
    for n in (1, 2, 4):
        model = NGramModel(n, smoothing, k=0.3).fit(ids, vocab_size=720)
        for temperature in (0.05, 0.7, 3.0, 90.0):
            chain = TemperedChain(model, temperature)
            for context in contexts:
                context = context[len(context) - (n - 1):] if n > 1 else ()
                want = apply_temperature_top_k(model.distribution(context).probs, temperature, None)
                got = chain.probabilities(model.ngrams.context_ids(context))
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("smoothing", ["none", "add-k", "kneser-ney"])
def test_greedy_and_top_k_tables_are_the_dense_reshaping(smoothing):
    from engine.lm import apply_temperature_top_k
    from engine.language.ngram import ReshapedSampler

    ids, contexts = reshaped_cases()
    for n in (1, 3):
        model = NGramModel(n, smoothing, k=0.3).fit(ids, vocab_size=720)
        for temperature, top_k in ((0.0, None), (0.8, 1), (1.0, 7), (2.0, 40), (0.5, 719)):
            sampler = ReshapedSampler(model, temperature, top_k)
            for context in contexts:
                context = context[len(context) - (n - 1):] if n > 1 else ()
                want = apply_temperature_top_k(model.distribution(context).probs, temperature, top_k)
                got = sampler.probabilities(sampler.table(model.mixture(context)))
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_tempered_draws_follow_the_distribution_on_a_large_vocabulary():
    from engine.lm import apply_temperature_top_k

    ids, _ = reshaped_cases()
    model = NGramModel(3, "kneser-ney").fit(ids, vocab_size=720)
    expected = apply_temperature_top_k(model.distribution([3, 5]).probs, 0.6, None)
    draws = 3000
    counts = np.bincount([model.sample(1, seed=seed, temperature=0.6, prompt=[3, 5])[0] for seed in range(draws)],
                         minlength=720)
    # tokens expected fewer than 5 times share one bin; each bin within 4 standard errors of a binomial count
    rare = expected * draws < 5
    observed = np.append(counts[~rare], counts[rare].sum()) / draws
    chance = np.append(expected[~rare], expected[rare].sum())
    assert np.all(np.abs(observed - chance) <= 4 * np.sqrt(chance * (1 - chance) / draws) + 1e-9)


def test_a_cold_kneser_ney_sample_of_the_plays_words_never_fails_on_rounding():
    """Words, Kneser-Ney, n = 6, tau = 0.2: where a context's own tokens hold almost all of the level below's
    mass, 1 - exp(d) rounded to 0 and its log raised 'math domain error' (seeds 7, 20, 25 and 39 of 0-39)."""
    from engine import prepare

    tokenizer, _, _ = prepare.corpus_tokens("words")
    model = NGramModel.from_counts(prepare.corpus_counts("words"), 6, "kneser-ney", tokenizer=tokenizer)
    for seed in (7, 20, 25, 39):
        ids = model.sample(60, seed=seed, temperature=0.2)
        assert len(ids) >= 60


def test_a_sample_without_a_prompt_starts_after_a_line_break():
    """With no context the first draw follows the plain counts, where ',' is the plays' commonest token: samples
    began with a comma. The start is a line break (a typed prompt as before; none where the text has no line
    break)."""
    from engine.language.ngram import LINE_START, sample_context
    from engine.language.tokenizers import CharTokenizer, WordTokenizer

    words = WordTokenizer.from_text("To be, or not to be,\nthat is the question.\nTo sleep")
    assert sample_context(words, "") == words.encode(LINE_START) != []
    assert sample_context(words, "to be") == words.encode("to be")
    assert sample_context(WordTokenizer.from_text("no line break here"), "") == []
    assert sample_context(CharTokenizer.from_text("abc"), "") == []
    with pytest.raises(ValueError, match="never does"):
        sample_context(words, "zorp")


def test_the_loop_sentence_blames_the_short_context_and_says_what_the_temperature_adds():
    from engine.language.ngram import Loop, loop_sentence

    loop = Loop(start=0, end=100, period=12)
    greedy = loop_sentence(loop, 3, 0.0)
    assert greedy.startswith("a loop of 12 tokens repeated 8.3 times. The model sees only its last 2 tokens: once they")
    assert "cannot see that it has written this before" in greedy and "at τ = 0 it always takes the likeliest" in greedy
    assert "gets even more of the probability" in loop_sentence(loop, 3, 0.2)
    assert "τ" not in loop_sentence(loop, 3, 1.0)


def test_the_loop_sentence_gives_each_count_its_own_noun():
    """A loop of 1 token and its last 1 token, a loop of 3 tokens and its last 3 tokens: each count picks its noun's
    form (in Arabic: the dual for 2, a plural for 5, the accusative singular for 11), for tokens and for the Gradio
    tab's characters."""
    from engine import i18n
    from engine.language.ngram import Loop, loop_sentence

    one = loop_sentence(Loop(start=0, end=10, period=1), 2, 1.0)
    assert one.startswith("a loop of 1 token repeated 10.0 times. The model sees only its last 1 token: once it comes "
                          "round again the model is back where it was")
    three = loop_sentence(Loop(start=0, end=12, period=3), 4, 1.0)
    assert three.startswith("a loop of 3 tokens repeated 4.0 times. The model sees only its last 3 tokens: once they "
                            "come round again")
    assert loop_sentence(Loop(start=0, end=12, period=3), 4, 1.0, characters=True).startswith(
        "a loop of 3 characters repeated 4.0 times. The model sees only its last 3 characters:")
    assert loop_sentence(Loop(start=0, end=10, period=1), 2, 1.0, characters=True).startswith(
        "a loop of 1 character repeated 10.0 times. The model sees only its last 1 character:")
    assert "The model sees no token before it at all" in loop_sentence(Loop(start=0, end=10, period=1), 1, 1.0)
    with i18n.use("ar"):
        said = {k: loop_sentence(Loop(start=0, end=40 * k, period=k), k + 1, 1.0) for k in (2, 5, 11)}
    assert said[2].startswith("حلقة من رمزين تكررت") and "إلا آخر رمزين:" in said[2]
    assert said[5].startswith("حلقة من 5 رموز تكررت") and "إلا آخر 5 رموز:" in said[5]
    assert said[11].startswith("حلقة من 11 رمزًا تكررت") and "إلا آخر 11 رمزًا:" in said[11]


def test_a_prompt_with_one_or_three_unseen_words_says_token_or_tokens():
    words = WordTokenizer.from_text("Mary had a little lamb")
    with pytest.raises(ValueError) as one:
        prompt_ids(words, "Mary had a zorp")
    assert str(one.value).startswith("The prompt uses 1 token the corpus never does ('zorp'); an n-gram model has no "
                                     "counts for it.")
    with pytest.raises(ValueError) as three:
        prompt_ids(words, "zorp blip flub")
    assert str(three.value).startswith("The prompt uses 3 tokens the corpus never does ('zorp', 'blip', 'flub'); an "
                                       "n-gram model has no counts for them.")


def test_the_opening_example_loops_on_words_and_a_longer_context_does_not():
    """The N-gram page's opening (LOOP_EXAMPLE_*): a loop of words within 100 tokens, none at n = 6."""
    from engine.language.ngram import LOOP_EXAMPLE_N, LOOP_EXAMPLE_TEMPERATURE, NGramModel, find_loop, sample_context
    from engine import prepare

    tokenizer, _, _ = prepare.corpus_tokens("words")
    counts = prepare.corpus_counts("words")
    start = sample_context(tokenizer, "")
    ids = NGramModel.from_counts(counts, LOOP_EXAMPLE_N, "kneser-ney", 1.0, tokenizer).sample(
        100, seed=0, temperature=LOOP_EXAMPLE_TEMPERATURE, prompt=start)
    loop = find_loop(ids, min_length=8)
    cycle = [tokenizer.decode([i]) for i in ids[loop.start:loop.start + loop.period]]
    assert loop.period >= 4 and sum(piece.strip().isalpha() for piece in cycle) >= 4, cycle
    assert tokenizer.decode(ids[:1]) != ","
    longer = NGramModel.from_counts(counts, 6, "kneser-ney", 1.0, tokenizer)
    assert find_loop(longer.sample(100, seed=0, temperature=LOOP_EXAMPLE_TEMPERATURE, prompt=start), min_length=8) \
        is None
