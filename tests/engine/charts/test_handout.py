"""A page's handout as PDF (engine/charts/handout.py): the worked example's numbers in its text, its QR code read back
from the drawn page, the pages it takes on A4 and Letter, its limits; formulas as plain lines
(engine/charts/plain_formula.py). The text is read with pypdf, the pages drawn with pypdfium2 and the code read with
zxing-cpp: all from PyPI, no poppler or Chromium needed."""
from __future__ import annotations

import io

import pytest

from engine import limits
from engine.charts import handout
from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, self_attention
from engine.charts.heatmaps import heatmap_spec
from engine.charts.lines import lines_by
from engine.charts.plain_formula import plain

LINK = "http://localhost:8501/attention?x=crane%3A+0.8%2C+0.1%2C+0.4&scaled=0"


def pdf_text(pdf: bytes) -> str:
    """Every page's text, whitespace collapsed to single spaces."""
    from pypdf import PdfReader

    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def page_count(pdf: bytes) -> int:
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


def qr_links(pdf: bytes, page: int = 0) -> list[str]:
    """The QR codes a phone's camera reads on the drawn page (150 dpi, greyscale, as a photocopy)."""
    import pypdfium2
    import zxingcpp

    image = pypdfium2.PdfDocument(pdf)[page].render(scale=150 / 72, grayscale=True).to_pil()
    return [code.text for code in zxingcpp.read_barcodes(image)]


def worked_example() -> handout.Handout:
    result = self_attention(CHAPTER_X)
    crane = result.weights[0]
    return handout.Handout(
        "Attention calculator", "How does one token decide how much every other token matters?", LINK, (
            handout.Chart(heatmap_spec(result.weights, CHAPTER_TOKENS, CHAPTER_TOKENS, title="alpha"), "Heatmap"),
            handout.Formula(r"\alpha_{ij} = \frac{\exp(s_{ij})}{\sum_{k=1}^{T} \exp(s_{ik})}",
                            r"\alpha_{\text{crane},\cdot} = \begin{bmatrix}" + " & ".join(f"{w:.3f}" for w in crane)
                            + r"\end{bmatrix}"),
            handout.Formula(r"c_i = \sum_{j=1}^{T} \alpha_{ij}\, x_j",
                            r"\begin{aligned} c_{\text{crane}} &= 0.298\,x_{\text{crane}} + \dots \\ &= \begin{bmatrix}"
                            + " & ".join(f"{c:.3f}" for c in result.context[0]) + r"\end{bmatrix}\end{aligned}"),
            handout.Table(("key", "weight"), tuple((t, f"{w:.3f}") for t, w in zip(CHAPTER_TOKENS, crane))),
            handout.Code("import numpy as np\nprint('crane')\n", "Python", ("R",)),
            handout.Challenge("Make *crane* look at `by`.", False, "Type `by: 1.6, 0.2, 0.8`."),
        ))


@pytest.fixture(scope="module")
def worked_pdfs() -> dict[str, bytes]:
    return {paper: handout.handout_pdf(worked_example(), paper) for paper in handout.PAPERS}


def test_plain_formulas_keep_the_worked_examples_numbers():
    assert plain(r"\alpha_{\text{crane},\cdot} = \begin{bmatrix}0.298 & 0.203 & 0.206 & 0.293\end{bmatrix}") == \
        ["α_(crane,·) = [0.298 0.203 0.206 0.293]"]
    aligned = r"\begin{aligned} c &= 0.298\,x \\ &= \begin{bmatrix}0.464 & 0.476 & 0.286\end{bmatrix}\end{aligned}"
    assert plain(aligned) == ["c = 0.298 x", "= [0.464 0.476 0.286]"]
    assert plain(r"\alpha_{ij} = \frac{\exp(\tilde s_{ij})}{\sum_{k=1}^{T} \exp(\tilde s_{ik})}") == \
        ["α_ij = (exp(s̃_ij))/(Σ_(k=1..T) exp(s̃_ik))"]   # the sum's ^T is its upper limit, not a transpose
    assert plain(r"Q K^\top,\ x^{2},\ \frac{s}{\sqrt{d_k}},\ W_Q = \begin{bmatrix}1 & 0 \\ 0 & 1\end{bmatrix}") == \
        ["Q Kᵀ, x², s/√d_k, W_Q = [1 0; 0 1]"]
    assert plain(r"\text{us\$ a\_b} \mapsto \lVert v \rVert") == ["us$ a_b mapsto ‖ v ‖"]   # never a backslash


def test_the_worked_example_handout_prints_its_numbers_and_a_qr_code_of_the_link(worked_pdfs):
    for paper, pdf in worked_pdfs.items():
        text = pdf_text(pdf)
        assert "0.298 0.203 0.206 0.293" in text and "0.464 0.476 0.286" in text, paper
        assert "α_ij" in text and "How does one token decide" in text and LINK in text.replace(" ", "")
        assert "Make crane look at by." in text and "*" not in text.split("Try this")[1]   # Markdown marks gone
        assert page_count(pdf) == 1
        assert qr_links(pdf) == [LINK], paper


def test_a4_and_letter_are_their_paper_sizes(worked_pdfs):
    from pypdf import PdfReader

    sizes = {paper: tuple(round(float(v) / 72 * 25.4) for v in PdfReader(io.BytesIO(pdf)).pages[0].mediabox[2:])
             for paper, pdf in worked_pdfs.items()}
    assert sizes == {"A4": (210, 297), "Letter": (216, 279)}


def test_lines_get_dashes_for_a_grey_print():
    spec = lines_by([1, 2, 3], {"a": [1, 2, 3], "b": [3, 2, 1]}, x_title="x", y_title="y", title="t")
    printed = handout.print_spec(spec)
    layer = printed["layer"][0] if "layer" in printed else printed
    assert layer["encoding"]["strokeDash"]["field"] == layer["encoding"]["color"]["field"]
    assert layer["encoding"]["shape"]["field"] == layer["encoding"]["color"]["field"]   # lines_by draws points
    assert "strokeDash" not in (spec["layer"][0] if "layer" in spec else spec)["encoding"]   # the page's spec kept


def test_a_handout_past_its_limits_is_a_sentence():
    spec = heatmap_spec(self_attention(CHAPTER_X).weights, CHAPTER_TOKENS, CHAPTER_TOKENS)
    many = handout.Handout("T", "Q", LINK, tuple(handout.Chart(spec) for _ in range(limits.HANDOUT_MAX_CHARTS + 1)))
    with pytest.raises(ValueError, match="more than the 16 a handout can hold"):
        handout.handout_pdf(many, draw_chart=lambda spec: pytest.fail("drew a chart before counting them"))
    code = "\n".join(f"line {i}" for i in range(limits.HANDOUT_CODE_LINES))
    long = handout.Handout("T", "Q", LINK, tuple(handout.Code(code) for _ in range(40)))
    with pytest.raises(ValueError, match=f"past {limits.HANDOUT_MAX_PAGES} pages"):
        handout.handout_pdf(long)
    with pytest.raises(ValueError, match="A4 or Letter"):
        handout.handout_pdf(worked_example(), "A3")


def test_a_link_too_long_for_a_qr_code_is_still_printed():
    link = "http://localhost:8501/attention?x=" + "9" * 8_000
    pdf = handout.handout_pdf(handout.Handout("T", "Q", link, ()))
    assert qr_links(pdf) == [] and "9" * 50 in pdf_text(pdf).replace(" ", "")


def test_a_chart_too_large_to_draw_leaves_its_sentence_and_the_rest_prints():
    from engine.limits import EXPORT_MAX_ROWS

    huge = {"title": "huge", "mark": "bar", "encoding": {"x": {"field": "i", "type": "ordinal"}},
            "data": {"values": [{"i": i} for i in range(EXPORT_MAX_ROWS + 1)]}}
    example = worked_example()
    pdf = handout.handout_pdf(handout.Handout(example.title, example.question, LINK,
                                              (handout.Chart(huge, "A bar chart."),) + example.blocks))
    text = pdf_text(pdf)
    assert "Not printed: This chart draws 50,001 values" in text and "0.298 0.203 0.206 0.293" in text


def test_a_tokens_visible_space_prints():
    """Token labels show a space as '␣' (engine.charts.style): the shipped fonts carry it, so paper shows it too."""
    table = handout.Table(("token", "P"), (("\u2423Mary", "0.802"), ("\u2423the", "0.038")))
    pdf = handout.handout_pdf(handout.Handout("Inside the model", "What does a head do?", LINK, (table,)), "A4")
    assert "\u2423Mary 0.802" in pdf_text(pdf)


def text_positions(pdf: bytes) -> dict[str, tuple[int, float, float]]:
    """Each text run's (page, x, y) in points from the page's lower left corner."""
    from pypdf import PdfReader

    found = {}
    for number, page in enumerate(PdfReader(io.BytesIO(pdf)).pages):
        def visit(text, cm, tm, font, size, number=number):
            if text.strip():
                found.setdefault(text.strip(), (number, tm[4] * cm[0] + cm[4], tm[5] * cm[3] + cm[5]))
        page.extract_text(visitor_text=visit)
    return found


def test_a_tall_narrow_charts_table_and_formula_print_beside_it_and_code_stays_whole():
    """The Inside page's layout: a heatmap of 30 layers x 9 heads, then its table and formula. They print in the column
    to the chart's right, on its page (they used to start under it and leave half a page white); the code after them
    starts under the chart, in one piece."""
    import numpy as np

    effects = np.random.default_rng(0).normal(0, 0.1, (30, 9))
    chart = handout.Chart(heatmap_spec(effects, [f"layer {i}" for i in range(30)], [f"H{h}" for h in range(9)],
                                       title="Estimated, knocked out alone"), "Heatmap: change in ln P.")
    table = handout.Table(("head", "estimated change"), tuple((f"L{i}H{i % 9}", f"{-0.3 + i / 100:.3f}")
                                                              for i in range(10)))
    formula = handout.Formula(r"\Delta_{l,j} = -0.281", r"\Delta_{1,5} = -0.281")
    code = handout.Code("\n".join(f"print({i})  # line {i}" for i in range(12)))
    pdf = handout.handout_pdf(handout.Handout("Inside the model", "What does a head do?", LINK,
                                              (chart, table, formula, code)), "A4")
    where = text_positions(pdf)
    chart_right = where["Heatmap: change in ln P."][1]
    assert where["L0H0"][0] == 0 and where["L0H0"][1] > chart_right + 100      # beside the chart, on its page
    assert where["L0H0"][2] > where["Heatmap: change in ln P."][2]              # above the chart's sentence
    under = (where["print(0)  # line 0"][0], -where["print(0)  # line 0"][2])
    assert under > (where["Heatmap: change in ln P."][0], -where["Heatmap: change in ln P."][2])   # code: after it
    assert where["print(0)  # line 0"][0] == where["print(11)  # line 11"][0]     # and not split


def test_typewriter_text_prints_as_its_characters():
    """The n-gram page writes its tokens in \\texttt: paper shows the tokens, not the command's name."""
    assert plain(r"P(\texttt{↵} \mid \texttt{:}) = 0.8260") == ["P(↵ | :) = 0.8260"]
