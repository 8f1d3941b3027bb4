"""The shell: the page link (what the sidebar's QR code carries), what a phone does with formulas and links, and the
width report's rerun (ui.screen)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from ui import shell

ROOT = Path(__file__).resolve().parents[1]


class _Params(dict):
    def to_dict(self) -> dict:
        return dict(self)


def test_the_page_link_keeps_the_settings_and_the_class_but_never_a_teacher_key(monkeypatch):
    fake = SimpleNamespace(context=SimpleNamespace(url="http://room:8501/attention?old=1"),
                           query_params=_Params(x="crane", causal="1", **{"class": "ABCD2345", "teach": "s3cr3t-id-1"}))
    monkeypatch.setattr(shell, "st", fake)
    link = shell.page_link()
    assert link.startswith("http://room:8501/attention?")
    assert "x=crane" in link and "causal=1" in link and "class=ABCD2345" in link
    assert "teach" not in link and "s3cr3t" not in link


def test_an_aligned_formula_is_drawn_line_by_line_on_a_phone():
    """On a phone each line of an aligned block is its own formula, which may then break after = or + (ui/shell.py's
    style): the calculator's steps were shrunk to 7-8 px to fit a 390 px screen as one unbreakable block."""
    from ui.formula import aligned_lines

    steps = (r"\begin{aligned} s_{\text{crane},\text{by}} &= 0.800\cdot0.000 + 0.100\cdot1.000 = 0.100"
             r"\\ s_{\text{crane},\cdot} &= \begin{bmatrix}0.810 & 0.100 \\ 0.2 & 0.3\end{bmatrix} \end{aligned}")
    assert aligned_lines(steps) == [r"s_{\text{crane},\text{by}} = 0.800\cdot0.000 + 0.100\cdot1.000 = 0.100",
                                    r"s_{\text{crane},\cdot} = \begin{bmatrix}0.810 & 0.100 \\ 0.2 & 0.3\end{bmatrix}"]
    assert aligned_lines(r"c = \{a \& b\}") == [r"c = \{a \& b\}"]


def test_a_phone_lets_formulas_break_and_the_home_pages_descriptions_wrap():
    from ui.shell import STYLE

    phone = STYLE[STYLE.index("@media (max-width: 640px)"):]
    assert ".katex-display > .katex" in phone and "white-space: normal" in phone
    assert "[data-testid='stMain'] [data-testid='stPageLink'] p" in STYLE


def test_the_run_a_width_report_asks_for_sends_the_pages_values_again():
    """ui.screen: the browser's width report can come while it still draws the page's first run; the rerun it asks
    for came back with the calculator's X empty and its sliders at their minimum. That run sets every value of the
    page's state again, so the browser is told them (set_value); an ordinary rerun does not."""
    from streamlit.testing.v1 import AppTest

    from ui.screen import RESEND_KEY

    at = AppTest.from_file(str(ROOT / "views" / "attention_calculator.py"), default_timeout=120).run()
    assert at.text_area(key="attention.x").proto.set_value
    at.run()
    assert not at.text_area(key="attention.x").proto.set_value
    at.session_state[RESEND_KEY] = True
    at.run()
    assert at.text_area(key="attention.x").proto.set_value and "crane" in at.text_area(key="attention.x").value
    assert RESEND_KEY not in at.session_state and not at.exception
