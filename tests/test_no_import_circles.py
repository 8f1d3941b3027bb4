"""No import circles: no set of our modules imports one another in a loop, counting the imports made inside
functions (a lazy import hides a circle from Python's start-up, not from a reader). grimp, the graph import-linter
builds its contracts on, reads every import statement of every module; the loops are its strongly connected
components of more than one module.

The test is shown to bite: a copy of the packages with one import planted that closes a loop fails it.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (requirements-test.txt pins it)")

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "ui", "views", "gradio_tabs", "bench", "deploy")

CIRCLES = textwrap.dedent("""
    import json, sys
    import grimp

    graph = grimp.build_graph(*sys.argv[1:], include_external_packages=False, cache_dir=None)
    index, low, stack, on, found = {}, {}, [], set(), []

    def strong(start):                  # Tarjan's algorithm, iterative (a deep chain of imports)
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start); on.add(start)
        while work:
            module, following = work[-1]
            for other in following:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other); on.add(other)
                    work.append((other, iter(sorted(graph.find_modules_directly_imported_by(other)))))
                    break
                if other in on:
                    low[module] = min(low[module], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    circle = []
                    while True:
                        top = stack.pop(); on.discard(top); circle.append(top)
                        if top == module:
                            break
                    if len(circle) > 1:
                        found.append(sorted(circle))

    for module in sorted(graph.modules):
        if module not in index:
            strong(module)
    print(json.dumps(sorted(found)))
""")


def circles(folder: Path) -> list[list[str]]:
    """The import circles among the packages of `folder`, each as its sorted module names."""
    import json

    result = subprocess.run([sys.executable, "-c", CIRCLES, *PACKAGES], cwd=folder, capture_output=True, text=True,
                            timeout=300, env={"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(folder)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_no_modules_import_one_another_in_a_loop():
    found = circles(ROOT)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(circle) for circle in found)


def test_a_planted_import_that_closes_a_loop_is_found(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=lambda folder, names: [
            n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir() or n == "__pycache__"])
    tables = tmp_path / "ui" / "tables.py"   # a lazy import each way: the loop Python never trips on
    tables.write_text(tables.read_text() + "\n\ndef _planted():\n    from ui import charts\n")
    charts = tmp_path / "ui" / "charts.py"
    charts.write_text(charts.read_text() + "\n\ndef _planted():\n    from ui import tables\n")
    assert any({"ui.charts", "ui.tables"} <= set(circle) for circle in circles(tmp_path))
