"""Block builder: one link, three readers. The Streamlit page, the Gradio tab (gradio_tabs.block_builder.from_link)
and the class questions all build their model from engine.chapter.block (`settings`, `config`), so they count the
same parameters and say the same sentence about them."""
from __future__ import annotations

import pytest

from engine.chapter.block import config, settings, shares
from engine.chapter.questions import questions_for
from engine.transformer.config import count_parameters
from tests.pages.conftest import run_file

pytest.importorskip("gradio")

VIEW = "views/block_builder.py"
LINKS = [
    {},                                                                        # the chapter's tiny block
    {"bb_preset": "GPT-2 small"},                                              # a preset's sizes, from its name
    {"bb_preset": "custom", "bb_d_model": "64", "bb_n_heads": "4", "bb_d_ff": "256", "bb_n_layers": "3",
     "bb_bias": "0", "bb_layer_norm": "pre"},
]


@pytest.mark.parametrize("link", LINKS)
def test_the_page_the_tab_and_the_class_read_one_link_alike(link):
    from gradio_tabs.block_builder import from_link

    built = config(link)
    count = count_parameters(built)
    at = run_file(VIEW, link, timeout=240)                                     # the Streamlit page's
    assert not at.exception, [e.value for e in at.exception]
    assert f"{count.total:,} parameters" in [s.value for s in at.subheader]
    assert shares(built) in [m.value for m in at.markdown]

    parts, _, _, _, summary = from_link(settings(link))                        # the Gradio tab's
    assert summary.startswith(f"**{count.total:,} parameters.** {shares(built)}")
    assert dict(zip(parts["part"], parts["parameters"])) == count.parts()

    per_block, largest = questions_for("block", link)                          # the class's
    assert per_block.options[per_block.answer] == f"{count.per_block:,}"
    assert f"d_model = {built.d_model}, d_ff = {built.d_ff} and {built.n_heads} heads" in per_block.prompt
    shown = {name: n for name, n in count.parts().items() if n > 0}
    assert largest.options[largest.answer] == max(list(shown)[:6], key=shown.get)


def test_a_link_naming_a_preset_opens_with_its_sizes_unless_it_names_a_size_too():
    from engine.transformer.config import PRESETS

    assert config({"bb_preset": "GPT-2 small"}) == PRESETS["GPT-2 small"]
    assert config({"bb_preset": "GPT-2 small", "bb_n_layers": "2"}).n_layers == 2
    assert config({"bb_preset": "GPT-2 small", "bb_n_layers": "seven"}).n_layers == PRESETS["GPT-2 small"].n_layers


def test_both_front_ends_count_a_waiting_runs_place_from_one():
    """The page said 'number 0 in line' for a run that had left the line; both front ends now say the engine's."""
    from engine.chapter.block import waiting

    assert "you are number 2 in line" in waiting(2) and "number 0" not in waiting(0)
    assert waiting(0) == "Your turn: the run is starting."
