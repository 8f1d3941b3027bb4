"""ui.tables: short tables as HTML with their numbers formatted; long ones as the scrolling grid."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui.tables import MAX_HTML_ROWS


def tables_page() -> None:
    import streamlit as st

    from ui import tables

    rows = int(st.query_params.get("rows", "3"))
    tables.table({"token": ["crane", "$x^2$", "*b*"][:rows] + ["w"] * max(rows - 3, 0),
                  "weight": [0.2981, float("nan"), float("inf")][:rows] + [0.5] * max(rows - 3, 0),
                  "count": list(range(rows))}, formats={"count": "%d"}, digits=3)


def test_a_short_table_is_html_with_its_numbers_as_printed():
    at = AppTest.from_function(tables_page).run()
    assert not at.dataframe
    shown = at.table[0].value
    assert shown["weight"].tolist() == ["0.298", "nan", "inf"]
    assert shown["count"].tolist() == ["0", "1", "2"]
    assert shown["token"].tolist() == ["crane", r"\$x^2\$", r"\*b\*"]   # typed text, not Markdown or LaTeX


def test_a_long_table_keeps_the_scrolling_grid():
    at = AppTest.from_function(tables_page)
    at.query_params["rows"] = str(MAX_HTML_ROWS + 1)
    at.run()
    assert not at.table and len(at.dataframe[0].value) == MAX_HTML_ROWS + 1
