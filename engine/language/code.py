"""'Show the code' of the Tokens page and the N-gram sampler: programs that redo the page's numbers with the engine,
and what they print (engine.shown_code.Program), worked out with the same calls on the objects the page holds: the
plays' tokens and counts as prepared once (engine.machinery.prepare, which the programs call and the page's loaders
read), a play's as the page counts them."""
from __future__ import annotations

from engine.language.corpus import ALL_PLAYS, OWN_TEXT
from engine.language.ngram import NGramModel, find_loop, prompt_ids, sample_context
from engine.shown_code import Printout, Program

TOP_PRINTED = 10   # next tokens the Tokens program prints


def tokens_code(level: str, n: int, smoothing: str, prompt: str, text: str, *, model: NGramModel, tokenizer,
                gpt2) -> Program:
    """P(next token | prompt) from the plays' n-gram at a token level, and GPT-2's tokens of (the start of) the
    text. `model`, `tokenizer`, `gpt2`: the page's, built from the same prepared tokens and counts."""
    shown_text = text[:80]
    source = (
        "from engine.language.ngram import NGramModel, prompt_ids\n"
        "from engine.language.tokenizers import gpt2_tokenizer\n"
        "from engine.machinery import prepare\n\n"
        f"tokenizer, train_ids, validation_ids = prepare.corpus_tokens({level!r})   # the 38 plays, prepared once\n"
        f"model = NGramModel.from_counts(prepare.corpus_counts({level!r}), {n}, {smoothing!r}, tokenizer=tokenizer)\n"
        f"context = prompt_ids(tokenizer, {prompt!r})\n"
        f"for token_id, p, count in model.distribution(context).top({TOP_PRINTED}):\n"
        "    print(repr(tokenizer.decode([token_id])), round(p, 4), count)\n"
        "\n"
        f"print(gpt2_tokenizer().tokens({shown_text!r}))\n")

    def printout() -> str:
        out = Printout()
        context = prompt_ids(tokenizer, prompt)
        for token_id, p, count in model.distribution(context).top(TOP_PRINTED):
            out.print(repr(tokenizer.decode([token_id])), round(p, 4), count)
        out.print(gpt2.tokens(shown_text))
        return out.text

    return Program(source, printout)


def ngram_code(source: str, level: str, n: int, smoothing: str, k: float, *, length: int, seed: int,
               temperature: float, prompt: str, min_loop: int, model: NGramModel, tokenizer,
               validation_ids) -> Program:
    """A sample of the n-gram (loops found as the page finds them), the table's sizes and the held-out score.
    `model`, `tokenizer`, `validation_ids`: the page's, counted from the same split as the program counts."""
    if source == ALL_PLAYS:
        setup = ("from engine.language.ngram import NGramModel, find_loop, sample_context\n"
                 "from engine.machinery import prepare\n\n"
                 f"tokenizer, train_ids, validation_ids = prepare.corpus_tokens({level!r})   # the 38 plays\n"
                 f"counts = prepare.corpus_counts({level!r})   # every k-gram, k = 1 to 6, counted once\n")
    else:
        setup = ("from engine.language.corpus import source_split\n"
                 "from engine.language.ngram import NGramModel, count_ngrams, find_loop, sample_context\n"
                 "from engine.language.tokenizers import tokenizer_for\n\n"
                 f"train, validation = source_split({source!r})   # the last 10% of the play held out\n"
                 f"tokenizer = tokenizer_for({level!r}, train, validation)\n"
                 "train_ids, validation_ids = tokenizer.encode(train), tokenizer.encode(validation)\n"
                 "counts = count_ngrams(train_ids, 6, tokenizer.vocab_size)\n")
    program = setup + (
        f"model = NGramModel.from_counts(counts, {n}, {smoothing!r}, {k:g}, tokenizer)\n"
        f"ids = model.sample({length}, seed={seed}, temperature={temperature:g},\n"
        f"                   prompt=sample_context(tokenizer, {prompt!r}))   # no prompt: after a line break\n"
        "print(tokenizer.decode(ids))\n"
        f"print(find_loop(ids, min_length={min_loop}))\n"
        "print([(row.order, row.seen, row.possible) for row in model.table_stats()])\n"
        "score = model.score(validation_ids)\n"
        "print(round(score.nats, 4), round(score.bits, 4), round(score.perplexity, 2))\n")
    if source == OWN_TEXT:
        return Program(program.replace(f"source_split({source!r})", "source_split('Your own text', your_text)"),
                       why="It reads your own text, which only your copy of the program has: it prints there.")

    def printout() -> str:
        out = Printout()
        ids = model.sample(length, seed=seed, temperature=temperature, prompt=sample_context(tokenizer, prompt))
        out.print(tokenizer.decode(ids))
        out.print(find_loop(ids, min_length=min_loop))
        out.print([(row.order, row.seen, row.possible) for row in model.table_stats()])
        score = model.score(validation_ids)
        out.print(round(score.nats, 4), round(score.bits, 4), round(score.perplexity, 2))
        return out.text

    return Program(program, printout)
