"""Numbers a student can recompute from a page come out as printed: each test reads the page's own text (its
formulas, tables and sentences), parses the figures and recomputes what they should give (issue 26)."""
from __future__ import annotations

import math
import re

import pyarrow as pa
import pytest

from tests.pages.conftest import no_exception, run_file, texts, unfold

NUMBER = r"-?\d[\d,]*\.?\d*"


def bmatrices(latex: str) -> list[list[float]]:
    """Every bmatrix row vector in a LaTeX string, as numbers."""
    return [[float(x) for x in body.split("&")]
            for body in re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", latex)]


def latex(at) -> list[str]:
    return [str(x.value) for x in at.get("latex")]


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def same(value: float, printed: str) -> bool:
    """value, rounded as the printed figure is, prints as it."""
    return f"{value:.{decimals(printed)}f}".replace("-0.", "0.") == printed.replace("-0.", "0.") or \
        f"{value:.{decimals(printed)}f}" == printed


# --- Embeddings ----------------------------------------------------------------------------------------------

def test_embeddings_the_rounded_terms_add_up_to_the_printed_sum():
    """main printed [0.34 0.03 -0.20 0.04] for terms that add to [0.34 0.02 -0.19 0.04]."""
    at = run_file("views/embeddings.py", timeout=300)
    no_exception(at)
    arithmetic = " ".join(x for x in latex(at) if "bmatrix" in x)
    b, a, c, total = bmatrices(arithmetic)[:4]
    assert [round(bb - aa + cc, 2) + 0.0 for bb, aa, cc in zip(b, a, c)] == [round(t, 2) + 0.0 for t in total]
    assert "rounded to 2 decimals" in texts(at)


def test_embeddings_each_analogy_row_adds_up_and_3cosmul_divides_out():
    at = run_file("views/embeddings.py", timeout=300)
    frame = at.table[0].value
    b, c, a, combined = frame.columns[2:6]
    assert combined.startswith("cos(w,") and "−" in combined
    for _, row in frame.iterrows():
        assert same(float(row[b]) - float(row[a]) + float(row[c]), str(row[combined])), row.to_dict()
    at.radio(key="embeddings.method").set_value("3cosmul").run()
    found = [x for x in latex(at) if r"\frac{" in x and r"\times" in x and "=" in x][0]
    numbers = re.findall(NUMBER, found.split(":", 1)[1])
    b_, c_, a_, score = numbers[-4:]
    assert same(float(b_) * float(c_) / (float(a_) + 1e-6), score), found


# --- Generate ------------------------------------------------------------------------------------------------

def test_generate_the_margin_is_the_difference_of_the_two_printed_figures():
    """main: 'beats by 0.174 bits' next to 1.968 and 1.795."""
    at = run_file("views/generate.py", timeout=300)
    no_exception(at)
    words = texts(at)
    best = re.search(r"Best on this text: \*\*(.+?)\*\*, (\d\.\d{3}) bits per character", words)
    gram = re.search(r"the \*\*(\d+)-gram\*\* is best \((\d\.\d{3})\)|up to the \*\*(\d+)-gram\*\*", words)
    margin = re.search(r"beats the best n-gram by \*\*(\d\.\d{3}) bits\*\* \((\d\.\d{3}) nats\)", words)
    assert best and gram and margin, words
    assert best.group(1) == "shipped transformer"
    assert same(float(gram.group(2)) - float(best.group(2)), margin.group(1))
    assert same(float(margin.group(1)) * math.log(2), margin.group(2))


# --- Position ------------------------------------------------------------------------------------------------

def test_position_one_difference_is_written_one_way():
    """main wrote the same rounding error as 0 on one bar, 5.6e-17 on another and 5.55e-17 in the table."""
    at = run_file("views/position.py", timeout=300)
    no_exception(at)
    table = [t.value for t in at.table if "largest change" in t.value.columns][0]
    in_table = list(table["largest change"])
    chart = [c.proto for c in at.get("vega_lite_chart") if '"difference"' in c.proto.spec][0]
    rows = pa.ipc.open_stream(chart.data.data).read_all().to_pylist()   # Streamlit sends a chart's rows as Arrow
    on_chart = [row["text"] for row in rows]    # the same words in the same order (a repeated word numbered)
    assert '"format": ".3g"' in chart.spec    # the tooltip too
    assert in_table == on_chart
    assert any(v != "0" for v in in_table), "the default shows rounding-sized differences"


# --- N-gram --------------------------------------------------------------------------------------------------

def test_ngram_bits_are_the_printed_nats_over_the_printed_ln_2_and_ppl_is_2_to_the_h():
    at = run_file("views/ngram.py", timeout=300)
    no_exception(at)
    line = [x for x in latex(at) if r"\mathrm{PPL} = 2^H =" in x and "nats" in x][0]
    h, nats, ln2, ppl = re.search(r"H = (\S+)\\ \\text\{bits\} = \\frac\{(\S+)\\ \\text\{nats\}\}\{(\S+)\},.*= "
                                  r"([\d,.]+)", line).groups()
    assert abs(float(ln2) - math.log(2)) < 1e-3
    assert same(float(nats) / float(ln2), h), line
    assert same(2 ** float(h), ppl.replace(",", "")), line


# --- Inside the model ----------------------------------------------------------------------------------------

@pytest.mark.usefixtures("smollm2_installed")
def test_inside_ln_of_the_printed_probabilities_gives_the_printed_change():
    """main: ln 0.303 - ln 0.802 printed -0.975; the shown numbers give -0.973. The knock-out scan's probabilities
    are printed once the exact scan runs (its button); before, the page shows attribution's estimate."""
    at = unfold(run_file("views/inside_the_model.py", timeout=300))   # the scan of every head is folded
    no_exception(at)
    at.button(key="inside.exact_button").click().run()
    at.run()
    no_exception(at)
    line = [x for x in latex(at) if r"\Delta_{" in x and r"\ln 0" in x][0]
    without, with_, change = re.search(r"= \\ln (\S+) - \\ln (\S+) = (\S+)", line).groups()
    assert same(math.log(float(without)) - math.log(float(with_)), change), line
    frame = [t.value for t in at.table if "P without it" in t.value.columns][0]
    for _, row in frame.iterrows():
        assert same(math.log(float(row["P without it"])) - math.log(float(row["P with it"])),
                    str(row["change in ln P"])), row.to_dict()
    # the copying probe: each loss in nats over ln 2 gives its bits as printed
    words = texts(at)
    pairs = re.findall(r"(\d+\.\d+) bits(?: per token)? \((\d+\.\d+) nats\)", words)
    assert len(pairs) >= 3
    for bits, nats in pairs:
        assert same(float(nats) / math.log(2), bits), (bits, nats)
    ratio = re.search(r"costs (\d+\.\d+) bits \(.*?\), (\d+\.\d) times as much", words)
    second = re.search(r"The second time the model copies: (\d+\.\d+) bits", words)
    assert same(float(ratio.group(1)) / float(second.group(1)), ratio.group(2))
    copying = [x for x in latex(at) if "second copy, mean" in x][0]
    bits, nats = re.search(r"= (\S+)\\ \\text\{bits\} = (\S+)\\ \\text\{nats\}", copying).groups()
    assert same(float(nats) / math.log(2), bits)
    assert not re.search(r"-0\.0+\b(?!\d)", words + " ".join(str(t.value.to_dict()) for t in at.table))
    # activation patching: the share worked from the printed logit differences
    patching = [x for x in latex(at) if r"\text{restored}(" in x and "=" in x and r"\frac{" in x][-1]
    ld_patched, ld_corrupt, ld_clean, _, share = re.search(
        r"\\frac\{(\S+) - \((\S+)\)\}\{(\S+) - \((\S+)\)\} = (\S+)", patching).groups()
    assert same((float(ld_patched) - float(ld_corrupt)) / (float(ld_clean) - float(ld_corrupt)), share), patching
    # no chart cell prints "-0.00" (main: 35 cells of the patching heatmap)
    cells = [value for chart in at.get("vega_lite_chart") if chart.proto.data.data
             for row in pa.ipc.open_stream(chart.proto.data.data).read_all().to_pylist() for value in row.values()]
    assert cells and not [v for v in cells if isinstance(v, str) and re.fullmatch(r"-0\.0+", v)]
