"""The engine as a library: a wheel built from the repository, installed into a fresh venv, used from an empty folder.

`pip wheel` builds from a copy of the project's files (the repository's own build/ folder is never touched or
read); the new venv sees the packages of the environment running the tests (a `.pth` file naming its
site-packages folders, whether that is a venv or the machine's Python: torch, numpy and the data packages), after
its own, and the wheel goes in with `--no-deps` and no index, so nothing is fetched. Python then starts in an
empty temporary folder with no PYTHONPATH: what it imports is the installed engine, reading its data through
importlib.resources and the installed data packages, never the repository.
"""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("pyproject.toml", "README.md", "engine")


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **options)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's python, an empty folder to run it in, its environment)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in PROJECT_FILES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(ROOT / name, source / name)
    run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "--no-index",
         "-q", "-w", str(base / "wheels")], cwd=base)
    wheel, = (base / "wheels").glob("transformer_playground-*.whl")
    venv = base / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    # the repository itself never (the engine must come from the wheel); a venv inside it (.venv, as the README's
    # command makes) does
    ours = [p for p in site.getsitepackages() if Path(p).is_dir() and Path(p).resolve() != ROOT]
    (Path(purelib) / "tests-environment.pth").write_text("\n".join(ours) + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
         str(wheel)])
    empty = base / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # the session's PLAYGROUND_CACHE stays
    return python, empty, env


def in_venv(installed, code: str) -> dict:
    python, empty, env = installed
    result = run([str(python), "-c", textwrap.dedent(code)], cwd=empty, env=env)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_installed_engine_gives_the_worked_example(installed):
    python, empty, _ = installed
    found = in_venv(installed, """
        import json, sys
        import importlib.metadata as metadata
        import engine
        from engine.attention.mechanism import CHAPTER_X, attention
        from engine.embeddings.hand_vectors import sentence_vectors
        from engine.transformer.shipped_model import SHIPPED_CHECKPOINT, shipped_available

        result = attention(CHAPTER_X, CHAPTER_X, CHAPTER_X)
        print(json.dumps({"file": engine.__file__, "path": sys.path,
                          "weights": result.weights[0].round(3).tolist(),
                          "context": result.context[0].round(3).tolist(),
                          "crane": sentence_vectors("the crane by the lake")[1][1].tolist(),
                          "shipped": shipped_available(), "checkpoint": str(SHIPPED_CHECKPOINT),
                          "requires": metadata.requires("transformer-playground")}))
    """)
    venv = python.parent.parent
    assert Path(found["file"]).is_relative_to(venv), found["file"]
    assert str(ROOT) not in found["path"]
    assert found["weights"] == [0.298, 0.203, 0.206, 0.293]
    assert found["context"] == [0.464, 0.476, 0.286]
    assert any(found["crane"])                               # package data: the hand-made vectors
    assert found["shipped"] and Path(found["checkpoint"]).is_relative_to(venv)   # and the shipped model
    assert 'torch==2.13.0; extra == "model"' in found["requires"]
    # the prepare step's console script is installed beside the venv's python
    assert (python.parent / ("playground-prepare.exe" if os.name == "nt" else "playground-prepare")).exists()


def test_the_installed_engine_runs_smollm2(installed, smollm2_installed):
    found = in_venv(installed, """
        import json
        import engine.pretrained.smollm2 as smollm2

        top = smollm2.next_token_distribution("Mary had a little", k=3)
        print(json.dumps({"model": str(smollm2.model_path()),
                          "top": smollm2.load().tokenizer.decode(top.token_ids[:1])}))
    """)
    assert found["top"] == " lamb"
    assert not Path(found["model"]).is_relative_to(ROOT)      # SmolLM2's file from its installed package
