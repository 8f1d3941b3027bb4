"""The Gradio tabs say what the pages say, through the same engine functions (issue 26): the presets' table a
student can recompute, one way of writing a difference, a loop blamed on what causes it. The tab functions are
called directly (tests/test_gradio_app.py drives the whole app through its API)."""
from __future__ import annotations

import pytest

pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")


def test_the_block_tabs_presets_carry_every_column_their_count_needs():
    from engine.transformer.config import COUNT_RULE, PRESETS, scale_row
    from gradio_tabs.block_builder import FIELDS, block_tab

    values = [getattr(PRESETS["baby GPT (nanoGPT on a CPU)"], field) for field in FIELDS]
    *_, scale, _, summary = block_tab(*values)
    assert COUNT_RULE in summary
    baby = scale[scale["model"] == "baby GPT (nanoGPT on a CPU)"].iloc[0].to_dict()
    assert baby == scale_row("baby GPT (nanoGPT on a CPU)", PRESETS["baby GPT (nanoGPT on a CPU)"])
    assert baby["biases"] == "off" and baby["positions"].startswith("learned") and baby["context T"] == 64


def test_the_position_tab_writes_the_largest_change_as_the_page_does():
    from engine.numbers import significant
    from engine.transformer.positional import permutation_check
    from engine.embeddings.tiny_vocabulary import embed
    from gradio_tabs.position import position_tab

    for encoding in ("none", "sinusoidal"):   # rounding only (main: 5.6e-17 here, 5.55e-17 there), a real change
        *_, verdict = position_tab("the owl saw the cat", "the cat saw the owl", encoding, 1.0, False, False, 0)
        check = permutation_check(embed("the owl saw the cat").x, [0, 4, 2, 3, 1], encoding)
        assert f"**{significant(check.max_difference)}**" in verdict


def test_the_ngram_tab_blames_a_loop_on_the_temperature_too():
    from gradio_tabs.ngram import ngram_tab

    _, _, summary = ngram_tab(2, "kneser-ney", 0.0, 0, 200, "Romeo:")
    assert "falls into a loop of" in summary and "at τ = 0" in summary
