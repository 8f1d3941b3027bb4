"""Every sentence, default and address a page gives is written once: no string literal of 30 characters or more
(docstrings and the constant parts of f-strings count) stands in two files of the front ends (views/, gradio_tabs/,
ui/). What two front ends both say lives in the page's spec (engine/chapter/), read by both."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRONT_ENDS = ("views", "gradio_tabs", "ui")
LONG = 30    # characters: shorter literals are keys, labels and units, which may well recur


def long_literals(source: str) -> set[str]:
    """The distinct string literals of LONG characters or more in one file's source."""
    return {node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= LONG}


def repeated(files: dict[str, str]) -> dict[str, list[str]]:
    """Each long literal found in two or more of `files` (name -> source), with the files it is in."""
    where: dict[str, list[str]] = defaultdict(list)
    for name, source in sorted(files.items()):
        for literal in long_literals(source):
            where[literal].append(name)
    return {literal: names for literal, names in where.items() if len(names) > 1}


def test_the_scan_finds_a_sentence_written_in_two_front_ends():
    sentence = "Attention weights: each row sums to one."
    found = repeated({"views/a.py": f"st.caption({sentence!r})",
                      "gradio_tabs/a.py": f'def f():\n    """{sentence}"""',
                      "ui/b.py": "x = 'short'"})
    assert found == {sentence: ["gradio_tabs/a.py", "views/a.py"]}
    assert repeated({"views/a.py": f"f'{sentence} {{n}}'", "ui/a.py": f"f'{sentence} {{m}}'"})   # inside f-strings


def test_no_long_literal_is_written_in_two_files_of_the_front_ends():
    files = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
             for folder in FRONT_ENDS for path in sorted((ROOT / folder).rglob("*.py"))}
    assert len(files) > 40
    found = repeated(files)
    assert not found, "written twice; give it one home in the page's spec (engine/chapter/):\n" + "\n".join(
        f"  {literal[:80]!r} in {', '.join(names)}" for literal, names in sorted(found.items()))
