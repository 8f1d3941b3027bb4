"""Inside the model: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.inside_the_model's
`*_from_link`) and the class questions (engine.chapter.inside) read the link's values through one spec and compute with
the same engine calls, so the logit lens says the same sentence and ranks, and the knock-out starts from the same P.
Short prompts: SmolLM2 is slow on a small machine."""
from __future__ import annotations

import re

import pytest

from engine.chapter.inside import EFFECT_GROUP, HEAD_OPTIONS, PAGE, parse_heads
from engine.interpret import readings
from tests.pages.conftest import no_exception, texts, unfold, run_file

pytest.importorskip("gradio")
pytestmark = pytest.mark.usefixtures("smollm2_installed")

VIEW = "views/inside_the_model.py"
LINKS = [
    {},                                                                        # Mary had a little / the names prompt
    {"text": readings.EIFFEL, "target": " Paris", "ko_text": readings.MARY, "ko_target": " lamb", "source": "1"},
    {"text": "The capital of France is", "target": " Rome", "ko_text": readings.MARY, "ko_target": " lamb",
     "mode": "mean", "source": "2"},                                           # a target the model does not pick
]


def intact_p(sentence: str) -> float:
    """The intact P a sentence prints first ("from 0.802 to", "P(**' lamb'**) = 0.1523")."""
    return float(re.search(r"(?:from |\) = )(\d+\.\d+)", sentence).group(1))


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from engine.chapter.questions import questions_for
    from engine.classroom.questions import EngineSources
    from gradio_tabs.inside_the_model import effects_from_link, lens_from_link

    values = PAGE.values(link)
    sources = EngineSources()
    lens = sources.pretrained_logit_lens(values["model"], values["text"], values["target"], readings.LENS_TOP_K)
    reading = readings.read_lens(lens, values["target"])

    at = unfold(run_file(VIEW, link, timeout=300))                            # the page, its folded parts open
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    words = texts(at)
    for sentence in reading.sentences:                                         # the page's lens reading
        assert sentence in words

    rows, _, summary = lens_from_link(values)                                  # the Gradio tab's
    assert reading.sentences[0] in summary
    assert rows["rank of target"].tolist() == reading.ranks.tolist()
    assert rows["P(target)"].tolist() == [round(float(p), 4) for p in reading.probabilities]

    heads_q, lens_q = questions_for("inside", link, sources)                   # the class's
    where = "never" if reading.first_top_row is None else reading.layers[reading.first_top_row]
    assert f"First at the top: {where}." in lens_q.explanation
    # the knock-out: the class's best head is the page's estimated top head, with the change the page prints
    estimate = sources.pretrained_head_attribution(values["model"], values["ko_text"], values["ko_target"],
                                                   values["mode"])
    layer, head, change = estimate.ranking(1)[0]
    if not heads_q.options[heads_q.answer].startswith("Two"):
        assert heads_q.options[heads_q.answer] == readings.head_label(layer, head)
        assert f"knocking out {readings.head_label(layer, head)} changes ln P by {change:+.3f}" in heads_q.explanation
    assert f"\\hat\\Delta_{{{layer},{head}}}" in words
    # both front ends start the knock-out from the same intact P of the target, on the link's prompt and mode
    knocked = next(m.value for m in at.markdown if m.value.startswith("Knocking out ") and " takes P(" in m.value)
    assert f"({values['mode']} ablation)" in knocked
    _, _, effects_says = effects_from_link(values)
    assert f"({values['mode']} ablation" in effects_says
    assert intact_p(knocked) == pytest.approx(intact_p(effects_says), abs=6e-4)


def test_the_heads_a_link_may_name_are_the_pages_choices():
    """The multiselect's options and the link's parser are one list: a group or a head of SmolLM2, nothing else."""
    at = run_file(VIEW, {"heads": "L17H4,all induction heads"}, timeout=300)
    no_exception(at)
    shown = readings.largest_effect_label(readings.EXAMPLE_GROUP_SIZE, estimated=True)   # until the exact scan
    assert at.multiselect(key="inside.heads").options == [shown if o == EFFECT_GROUP else o for o in HEAD_OPTIONS]
    assert at.multiselect(key="inside.heads").value == ["L17H4", "all induction heads"]
    assert parse_heads("L17H4, L17H4") == ["L17H4"]
    with pytest.raises(ValueError):
        parse_heads("L99H0")
    assert PAGE.values({"heads": "L99H0"})["heads"] == PAGE.defaults()["heads"]
