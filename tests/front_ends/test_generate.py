"""Generate: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.generate.from_link, ladder_tab)
and the class questions all sample through engine.chapter.generate (`samples`, `ladder`), so they show the same
draws and numbers and say the same sentences. Short lengths keep it quick."""
from __future__ import annotations

import pytest

from engine.chapter.generate import PAGE, ladder, ladder_reading, samples, variety
from engine.chapter.questions import questions_for
from engine.language.corpus import ALL_PLAYS
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/generate.py"
LINKS = [
    {"gen_length": "12"},                                                     # the page's models at tau 0.8
    {"gen_length": "20", "gen_temperature": "0", "gen_models": "4-gram,2-gram", "gen_seed": "3"},
    {"gen_length": "15", "gen_temperature": "1.5", "gen_top_k": "5", "gen_models": "5-gram,shipped transformer",
     "gen_prompt": "JULIET:\nO Romeo"},
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link, sources):
    from gradio_tabs.generate import from_link, ladder_tab

    values = PAGE.values(link)
    shown = samples(values, sources.generation)                                # the engine's, from the link
    tokenizer = sources.tokenized(ALL_PLAYS, "characters", None)[0]
    decode = tokenizer.decode
    prompt = shown.settings.prompt
    rungs = sources.fixed_ladder()
    reading = ladder_reading(ladder(rungs, tokenizer.vocab_size))

    at = run_file(VIEW, link, timeout=300)                                     # the Streamlit page's
    assert not at.exception, [e.value for e in at.exception]
    drawn = [c.value.rstrip("\n") for c in at.code if c.value.startswith(prompt)]    # st.code drops a last line break
    assert drawn == [(prompt + g.text).rstrip("\n") for g in shown.generations.values()]
    assert any(c.value.startswith(shown.likeliest(1, decode)) for c in at.caption)
    assert reading in [m.value for m in at.markdown]

    sample_table, following, _, summary, _ = from_link(values)                 # the Gradio tab's
    assert list(sample_table["sample"]) == [prompt + g.text for g in shown.generations.values()]
    assert shown.likeliest(1, decode) in summary
    tops = shown.top(1, decode)
    assert list(following["P"]) == [round(p, 4) for top in tops.values() for _, p, _ in top]
    assert list(following["q (sampled from)"]) == [round(q, 4) for top in tops.values() for _, _, q in top]
    assert ladder_tab()[2] == reading

    varied, ranked = questions_for("generate", link, sources)                  # the class's
    first, tau = shown.settings.models[0], shown.settings.temperature
    assert f"The {first} writes {shown.settings.length} characters" in varied.prompt
    own = variety(next(iter(shown.generations.values())).text)                 # the sample the page shows
    assert f"\u03c4 = {tau:g}: {own}" in varied.explanation
    named = {r.model[:60]: r for r in rungs}                                   # the ladder's rungs, as options
    offered = [named[option] for option in ranked.options if option in named]
    assert len(offered) >= 2 and all(f"{r.model}: {r.bits_per_char:.3f}" in ranked.explanation for r in offered)
    assert ranked.options[ranked.answer] == min(offered, key=lambda r: r.bits_per_char).model[:60]


def test_the_pages_limits_hold_in_the_engine_whatever_a_front_end_allowed(sources):
    """The models side by side, the temperature and top-k are the page's limits (engine.limits), refused by the
    engine itself: a Gradio call, a link or a class question cannot go past them."""
    from engine import limits

    base = PAGE.defaults() | {"gen_length": 5}
    for too_much, says in (({"gen_models": "2-gram,3-gram,4-gram,5-gram,shipped transformer"}, "1 to 4 models"),
                           ({"gen_temperature": limits.GENERATE_MAX_TEMPERATURE + 0.5}, "temperature goes from 0"),
                           ({"gen_top_k": limits.GENERATE_MAX_TOP_K + 1}, "top-k goes from 0"),
                           ({"gen_length": limits.MAX_GENERATE_TOKENS + 1}, "between 1 and"),
                           ({"gen_prompt": "x" * (limits.MAX_PROMPT_CHARS + 1)}, "the limit is")):
        with pytest.raises(ValueError, match=says):
            samples(base | too_much, sources.generation)
    assert PAGE.read({"gen_models": "2-gram,3-gram,4-gram,5-gram,shipped transformer"})[1]   # the link falls back
    assert PAGE.read({"gen_temperature": "2.5"})[1] and PAGE.read({"gen_top_k": "76"})[1]
    assert PAGE.values({"gen_models": "4-gram, 2-gram"})["gen_models"] == "4-gram,2-gram"
