"""Beyond words: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.beyond_words.from_link) and
the class question all compute from engine.chapter.beyond (`image`, `audio`, `protein`), so they show the same
numbers and say the same sentences."""
from __future__ import annotations

import pytest

from engine.chapter.beyond import PAGE, audio, image, protein
from engine.chapter.questions import questions_for
from engine.classroom.questions import EngineSources
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/beyond_words.py"
LINKS = [
    {},                                                                     # the astronaut at 224, 16-pixel patches
    {"side": "0", "patch": "32", "qrow": "3", "qcol": "9", "d": "0"},       # as it is: 512 x 512, 16 x 16 patches
    {"kind": "audio", "frame": "256", "hop": "64", "qframe": "20"},
    {"kind": "protein", "residue": "5", "d": "0", "seed": "3"},
]


def shown_for(values):
    return {"image": image, "audio": audio, "protein": protein}[values["kind"]](values)


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from gradio_tabs.beyond_words import from_link

    values = PAGE.values(link)
    shown = shown_for(values)
    T = shown.result.tokens.x.shape[0]
    at = run_file(VIEW, link, timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    said = [m.value for m in at.markdown]
    assert any(text.startswith(shown.sizes) for text in said)                 # the page's sentences
    assert any(text.startswith(f":material/functions: {shown.cost}") for text in said)
    assert f"**{T * T:,} scores**" in shown.cost

    outputs = from_link(values)                                               # the Gradio tab's
    summary = outputs[-1]
    assert summary.startswith(shown.sizes) and summary.endswith(shown.cost)
    strongest = shown.result.strongest_others(shown.query, 5)
    if values["kind"] == "image":
        assert shown.itself in said and shown.itself in summary
        partners = outputs[1]
        assert list(partners["patch"]) == [j for j, _ in strongest]
        assert list(partners["weight"]) == [round(w, 4) for _, w in strongest]
    elif values["kind"] == "audio":
        assert shown.spread in said and shown.spread in summary
        frames = outputs[2]
        assert list(frames["frame"]) == [j for j, _ in strongest]
    else:
        partners = outputs[1]
        assert list(partners["weight"]) == [round(w, 4) for _, w in strongest]
        assert at.selectbox(key="beyond.residue").value == shown.query

    question, = questions_for("beyond", link, EngineSources())               # the class's
    assert question.options[question.answer] == f"{T * T:,}"
    assert f"{T} " in question.prompt or f"({T} tokens)" in question.prompt
