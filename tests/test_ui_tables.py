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


def presets_page() -> None:
    from ui import tables

    tables.table([{"model": "GPT-2 small", "d": 768, "heads h": 12, "blocks N": 12, "vocabulary V": 50257,
                   "context T": 1024, "parameters": 124439808},
                  {"model": "GPT-3 175B", "d": 12288, "heads h": 96, "blocks N": 96, "vocabulary V": 50257,
                   "context T": 2048, "parameters": 174591598592}],
                 formats={"parameters": "localized"}, turn_on_phone=True)


def test_a_wide_table_turns_on_a_phone_so_no_column_falls_off_the_screen():
    """The Block builder's presets at 390 px: 12 columns, the parameter count past the screen's edge. On a phone the
    table turns, the models heading its columns; on a desktop (and on paper) it stays as it is."""
    from ui.screen import COLUMN_KEY

    desktop = AppTest.from_function(presets_page).run().table[0].value
    assert list(desktop.columns)[-1] == "parameters" and len(desktop) == 2
    at = AppTest.from_function(presets_page)
    at.session_state[COLUMN_KEY] = 350
    phone = at.run().table[0].value
    assert list(phone.columns) == ["model", "GPT-2 small", "GPT-3 175B"]
    assert [cell.replace("\u200b", "") for cell in phone.iloc[-1]] == ["parameters", "124,439,808", "174,591,598,592"]
    assert phone.iloc[-1].tolist()[-1] == "174,\u200b591,\u200b598,\u200b592"   # a long number may break there


def test_turned_names_repeated_heads_apart():
    from ui.tables import turned

    assert turned({"k": ["a", "a"], "v": ["1", "2"]}) == {"k": ["v"], "a": ["1"], "a (2)": ["2"]}
