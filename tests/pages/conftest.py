"""AppTest helpers: run a page file on its own, collect what it showed."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def run_file(file: str, query: dict[str, str] | None = None, timeout: float = 60) -> AppTest:
    """A page file (relative to the repository, or absolute) run once, as a link with `query` opens it."""
    at = AppTest.from_file(str(ROOT / file), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


@pytest.fixture
def run_page():
    """run_page("views/x.py", query={"k": "3"}) -> a finished AppTest."""
    return run_file


def texts(at: AppTest) -> str:
    """Every markdown, caption and LaTeX string the page showed, joined."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.get("latex")]
    return "\n".join(str(p) for p in parts)


def whole_page(at: AppTest) -> AppTest:
    """The whole page again after an interaction that reran only its section (ui.page.section): AppTest
    then holds only that section's elements, where a browser keeps the rest of the page as it was. A
    plain rerun changes nothing and shows every element. Read the section's own numbers before it."""
    return at.run()


def shown(at: AppTest) -> AppTest:
    """What the browser shows after an interaction: the same AppTest, or the whole page again (whole_page)
    where the interaction reran only a section. A section's exception is kept, never rerun away."""
    return at if at.exception or at.title else at.run()


def unfold(at: AppTest) -> AppTest:
    """The page again with every folded box it drew open (ui.page.folded: "Show the code", "Every
    matrix", ...), as a student who opened them sees it. They stay open on later runs."""
    from ui.page import FOLDED

    for key in [key for key in at.session_state.keys() if key.startswith(FOLDED)]:
        at.session_state[key] = True
    return at.run()


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]




def chart_rows(chart, view: dict | None = None):
    """The rows a chart's view draws, as Streamlit sent them (an Arrow table): the top-level data by default, or a
    nested view's (a layer's) given its spec. ui.charts.show sends a nested view's rows as a named dataset, and then
    the top-level rows too (ui.charts.hoisted); a chart with no nested rows sends its top-level rows unnamed."""
    import json

    import pyarrow as pa

    data = (view if view is not None else json.loads(chart.spec)).get("data") or {}
    if "name" in data:
        named = {dataset.name: dataset.data.data for dataset in chart.datasets}
        return pa.ipc.open_stream(named[data["name"]]).read_all()
    if view is not None:
        return pa.table({key: [row[key] for row in data["values"]] for key in data["values"][0]})
    return pa.ipc.open_stream(chart.data.data).read_all()
