"""The layers, checked by import-linter's contracts in pyproject.toml (`lint-imports`, run by .ci/run beside ruff):
the engine imports no streamlit, gradio, ui or views; ui imports no views; gradio_tabs import no streamlit; inside the
engine, the machinery the parts stand on (cache, file locks, machine slots) imports no part, and no part imports the
prepare command or the training jobs built on the parts.

Each contract is shown to bite: a copy of the repository's Python files (into tmp_path, the repository untouched)
with one forbidden import planted, inside a function as the engine's lazy imports are, makes lint-imports fail and
name that contract.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("engine", "ui", "views", "gradio_tabs")
LINT_IMPORTS = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))

pytestmark = pytest.mark.skipif(not Path(LINT_IMPORTS).exists(),
                                reason="import-linter is not installed (requirements-test.txt pins it)")


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([LINT_IMPORTS, "--no-cache", "--no-logo"], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(folder)})


def test_the_repository_keeps_its_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert f"{contracts} kept, 0 broken" in result.stdout


@pytest.mark.parametrize("file, planted, contract", [
    ("engine/numbers.py", "import streamlit", "engine imports no streamlit, gradio, ui or views"),
    ("engine/attention/readings.py", "from ui import tables", "engine imports no streamlit, gradio, ui or views"),
    ("ui/tables.py", "import views.tokens", "ui imports no views"),
    # indirect: ui.page imports streamlit, so a tab that imports it reaches streamlit
    ("gradio_tabs/common.py", "from ui import page", "gradio_tabs import no streamlit"),
    ("engine/machinery/cache.py", "from engine.language import corpus",
     "cache, file locks and machine slots import no part of the engine"),
    # a cycle: training_jobs runs transformer.training, so the loop may not start a job
    ("engine/transformer/training.py", "from engine.machinery.training_jobs import live_job",
     "the chapter's parts import neither the prepare command nor the training jobs"),
    # the pages stand on the class store, never the other way
    ("engine/classroom/store.py", "from engine.chapter import pages",
     "no part of the engine imports the chapter's page specs"),
])
def test_a_planted_forbidden_import_breaks_its_contract(tmp_path, file, planted, contract):
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, tmp_path / layer, ignore=lambda folder, names: [
            n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir() or n == "__pycache__"])
    assert lint_imports(tmp_path).returncode == 0          # the copy keeps its layers, as the repository does
    target = tmp_path / file
    target.write_text(target.read_text() + f"\n\ndef _planted():\n    {planted}\n")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{contract} BROKEN" in result.stdout        # (streamlit in the engine breaks gradio_tabs' too)
