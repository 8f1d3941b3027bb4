"""engine.transformer_config: sizes, parameter counts and the data flow, without torch."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_counting_gpt3_never_imports_torch():
    probe = ("import sys\n"
             "from engine.transformer_config import PRESETS, count_parameters, dataflow\n"
             "config = PRESETS['GPT-3 175B']\n"
             "print(count_parameters(config).total, len(dataflow(config)))\n"
             "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    total, stages = map(int, result.stdout.split())
    assert total == 174_604_259_328 and stages > 5


def test_the_model_module_builds_from_the_same_config():
    from engine.model import TransformerLM
    from engine.transformer_config import PRESETS, count_parameters

    config = PRESETS["tiny (the chapter's block)"]
    assert TransformerLM(config).n_parameters() == count_parameters(config).total
