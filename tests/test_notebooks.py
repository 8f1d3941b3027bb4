"""notebooks/: each part of the chapter as a jupytext notebook, converted and executed from a fresh kernel
(nbclient), printing the numbers its pages show."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ui.path import PATH

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel", reason="nbclient needs a Python kernel (ipykernel, requirements-test.txt)")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# what each notebook must print: the numbers its pages show
EXPECTED = {
    "language_modelling": ["' lamb': 0.152", "['<|endoftext|>', 'Mary', ' had', ' a', ' little']",
                           "a loop of 12 tokens repeated 8.3 times: 'To be a\\nman,\\nAnd, in the\\n'",
                           "n = 6: None"],
    "embeddings": ["400000 words of 50 numbers", "France : Paris :: Italy : rome"],
    "attention": ["weights of crane: [0.298 0.203 0.206 0.293]", "context of crane: [0.464 0.476 0.286]",
                  "1 head of width d: 2,359,296 parameters", "h heads of width d each: 28,311,552 parameters"],
    "transformer": ["none: largest change 2.22e-16", "sinusoidal: largest change 1.5"],
    "beyond_words": ["tokens: 196 patches of 768 numbers", "rows sum to one: True"],
}


def notebook_name(part: str) -> str:
    """The notebook of a part of the chapter (a group of ui/path.py): 'The transformer' -> 'transformer'."""
    from ui.code import notebook_of_part

    return notebook_of_part(part)


def test_every_part_of_the_chapter_has_a_notebook():
    assert sorted(notebook_name(part) for part in PATH) == sorted(EXPECTED)
    assert sorted(path.stem for path in NOTEBOOKS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_notebook_runs_from_a_fresh_kernel_and_prints_the_pages_numbers(name, monkeypatch):
    # The notebooks import the installed engine; the README's test command does not install the project, so the
    # kernel finds this checkout's engine on PYTHONPATH (tests/test_wheel.py checks an installed wheel).
    paths = [str(NOTEBOOKS.parent), os.environ.get("PYTHONPATH")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, paths)))
    notebook = jupytext.read(NOTEBOOKS / f"{name}.py")
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    printed = "".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for output in cell.get("outputs", []) if output.get("output_type") == "stream")
    for expected in EXPECTED[name]:
        assert expected in printed, (expected, printed[-2000:])
