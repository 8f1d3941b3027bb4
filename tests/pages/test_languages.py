"""The app in its languages, in AppTest: the worked example's numbers in Spanish and Chinese (chart locale, formula,
code panel), the language picker, two sessions in two languages, and the shell and home page under the pseudo
language with no English left unmarked. (the class's part of the sidebar and every page's title
and one-liner among them)."""
from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

from engine import i18n
from tests.i18n_probe import BRACKETED, unmarked
from tests.pages.conftest import ROOT, chart_rows, no_exception, texts, unfold

CALCULATOR = "views/attention_calculator.py"
WEIGHTS = ("0.298", "0.203", "0.206", "0.293")


def _run(file: str, lang: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / file), default_timeout=120)
    at.query_params["lang"] = lang
    for name, value in query.items():
        at.query_params[name] = value
    return at.run()


def _specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def _code(at: AppTest) -> str:
    return "\n".join(block.value for block in unfold(at).code)


def test_the_worked_example_in_spanish_writes_0_298_with_a_comma_and_the_code_keeps_pythons():
    at = _run(CALCULATOR, "es")
    no_exception(at)
    charts = _specs(at)
    assert charts and all(spec["config"]["locale"]["number"] == {"decimal": ",", "thousands": ".", "grouping": [3],
                                                                  "currency": ["", ""]} for spec in charts)
    assert " & ".join(w.replace(".", "{,}") for w in WEIGHTS) in texts(at)       # the formula: 0{,}298 & 0{,}203 ...
    with i18n.use("es"):
        title = i18n._("α: each row sums to 1")              # the heatmap's title, as the Spanish page writes it
    heatmap = next(chart.proto for chart in at.get("vega_lite_chart") if json.dumps(title)[1:-1] in chart.proto.spec)
    cells = chart_rows(heatmap).to_pylist()
    assert {row["text"] for row in cells if row["row"] == "crane"} >= {w.replace(".", ",") for w in WEIGHTS}
    data_tables = "\n".join(element.proto.body for element in at.get("html"))
    assert "0,298" in data_tables                                                  # the Data table under it
    with i18n.use("es"):                     # AppTest formats the page's options in this thread on the next run
        code = _code(at)
    assert all(w in code for w in WEIGHTS) and "0,298" not in code                 # the code panel: Python's


def test_the_worked_example_in_chinese_writes_0_298_with_a_point():
    at = _run(CALCULATOR, "zh-Hans")
    no_exception(at)
    assert all("locale" not in (spec.get("config") or {}) for spec in _specs(at))
    assert " & ".join(WEIGHTS) in texts(at)
    assert "0,298" not in texts(at)


def test_the_calculators_sentences_in_spanish_print_every_weight_with_a_comma():
    at = _run(CALCULATOR, "es")
    prose = "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])
    assert "0,298" in prose and not re.search(r"\b0\.\d{3}\b", prose)


# --- the shell ------------------------------------------------------------------------------------------------------

def _sidebar_and_home(at: AppTest) -> list[str]:
    found = [link.proto.label for link in at.get("page_link")]
    found += [widget.label for widget in at.sidebar.get("toggle")] + [w.help for w in at.sidebar.get("toggle")]
    found += [widget.label for widget in at.sidebar.get("selectbox")]
    found += [m.value for m in at.sidebar.markdown] + [c.value for c in at.sidebar.caption]
    return [text for text in found if text]


def test_the_shell_and_home_page_leave_no_english_unmarked_in_the_pseudo_language():
    at = _run("app.py", i18n.PSEUDO.code)
    no_exception(at)
    left = unmarked(at) + [text for text in _sidebar_and_home(at) if text not in unmarked(at)
                           and re.search(r"[A-Za-z]{3,}", BRACKETED.sub(" ", re.sub(r":material/[a-z_]+:", " ", text)))]
    allowed = ({"Transformer Playground"} | {language.name for language in i18n.LANGUAGES.values()}   # names
               | {"K7QM2XPA"})                        # the class code box's placeholder: a code, in no language
    still = []
    for text in left:
        rest = re.sub(r":material/[a-z_]+:", " ", text)
        for words in sorted(allowed, key=len, reverse=True):
            rest = rest.replace(words, " ")
        if re.search(r"[A-Za-z]{3,}", BRACKETED.sub(" ", rest)):
            still.append(text)
    assert still == []
    assert any(text.startswith(i18n.PSEUDO_OPEN) for text in _sidebar_and_home(at))   # the shell's own words


def test_the_picker_offers_every_language_by_its_own_name_and_a_pick_rereads_the_page_in_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["present"] = "1"
    at.run()
    picker = at.sidebar.selectbox(key="app.language_picker")
    assert picker.options == [language.name for language in i18n.LANGUAGES.values()] and picker.value == "en"
    picker.set_value("es").run()          # one ordinary rerun
    no_exception(at)
    assert at.query_params["lang"] == "es" and at.query_params["present"] == "1"   # the link keeps the rest
    assert at.sidebar.selectbox(key="app.language_picker").label == "Idioma"
    assert "Sigue el recorrido de arriba abajo" in texts(at)
    assert at.sidebar.toggle(key="app.projector").label == "Modo proyector"


def test_two_sessions_in_two_languages_each_keep_their_own():
    spanish, korean = _run("app.py", "es"), _run("app.py", "ko")
    spanish.run()
    korean.run()
    assert "Sigue el recorrido" in texts(spanish) and "Sigue el recorrido" not in texts(korean)
    assert "아무 곳에서나 시작해도 됩니다" in texts(korean) and "아무 곳에서나" not in texts(spanish)


def test_arabic_sets_the_pages_language_and_direction_and_chinese_left_to_right():
    arabic = _run("app.py", "ar")
    html = "\n".join(element.proto.body for element in arabic.get("html"))
    assert 'root.lang = "ar"' in html and 'root.dir = "rtl"' in html and "direction: rtl" in html
    chinese = _run("app.py", "zh-Hans")
    html = "\n".join(element.proto.body for element in chinese.get("html"))
    assert 'root.lang = "zh-Hans"' in html and 'root.dir = "ltr"' in html and "direction: rtl" not in html
