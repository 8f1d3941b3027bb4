"""engine.transformer.config: sizes, parameter counts and the data flow, without torch."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_counting_gpt3_never_imports_torch():
    probe = ("import sys\n"
             "from engine.transformer.config import PRESETS, count_parameters, dataflow\n"
             "config = PRESETS['GPT-3 175B']\n"
             "print(count_parameters(config).total, len(dataflow(config)))\n"
             "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    total, stages = map(int, result.stdout.split())
    assert total == 174_604_259_328 and stages > 5


def test_the_model_module_builds_from_the_same_config():
    from engine.transformer.model import TransformerLM
    from engine.transformer.config import PRESETS, count_parameters

    config = PRESETS["tiny (the chapter's block)"]
    assert TransformerLM(config).n_parameters() == count_parameters(config).total


def evaluate(latex: str, d: int, d_ff: int) -> int:
    """A formula of block_formula as arithmetic: d_{ff} -> f, '2d' -> 2*d, '\\,' and '\\cdot' -> *."""
    import re

    text = latex.replace("d_{ff}", "f").replace(r"\,", "*").replace(r"\cdot", "*").replace("^2", "**2")
    text = re.sub(r"(\d)([df])", r"\1*\2", text)
    return eval(text, {}, {"d": d, "f": d_ff})  # noqa: S307 - our own formula text


def test_the_block_formula_gives_the_count_beside_it_for_every_switch():
    from dataclasses import replace

    from engine.transformer.config import PRESETS, block_formula, count_parameters

    for base in PRESETS.values():
        for bias in (True, False):
            for norm in ("post", "pre", "none"):
                config = replace(base, bias=bias, layer_norm=norm)
                terms = block_formula(config)
                assert [evaluate(latex, config.d_model, config.d_ff) for _, latex, _ in terms] == [n for *_, n in terms]
                assert sum(n for *_, n in terms) == count_parameters(config).per_block
