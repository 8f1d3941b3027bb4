"""A page's charts each get a folded Download box (SVG, PNG, CSV) and its "Show the code" offers the notebook
of its part of the chapter (notebooks/, ui.code.notebook_of_page)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.pages.conftest import no_exception, run_file, unfold


@pytest.mark.parametrize("file, notebook", [("views/attention_calculator.py", "notebooks/attention.py"),
                                            ("views/position.py", "notebooks/transformer.py")])
def test_show_the_code_names_the_parts_notebook_and_each_chart_downloads(file, notebook):
    at = run_file(file)
    no_exception(at)
    charts = len(at.get("vega_lite_chart"))
    boxes = [key for key in at.session_state if key.startswith("folded.download.")]
    assert charts and len(boxes) == charts
    ipynb = Path(notebook).with_suffix(".ipynb").name   # ui.code offers the part's notebook as a download
    assert not [b for b in at.get("download_button") if ipynb in b.proto.label]   # folded: nothing drawn
    at = unfold(at)
    no_exception(at)
    labels = [button.proto.label for button in at.get("download_button")]
    assert f"Download the notebook {ipynb}" in labels
    assert labels.count("SVG") == labels.count("PNG") == labels.count("CSV") == charts


def test_a_server_that_switches_downloads_off_draws_no_box(monkeypatch):
    """PLAYGROUND_DOWNLOADS=0 (a kiosk, or bench.browser --downloads measuring what the boxes cost): the same
    charts, no Download box under any of them."""
    from ui.charts import DOWNLOADS_SWITCH

    monkeypatch.setenv(DOWNLOADS_SWITCH, "0")
    at = run_file("views/attention_calculator.py")
    no_exception(at)
    assert at.get("vega_lite_chart")
    assert not [key for key in at.session_state if key.startswith("folded.download.")]
