"""A page to take home: a PDF handout of what a page shows (its question, its charts, the numbers beside their
formulas, tables, the code, the challenges) with the QR code of its exact link, in A4 or Letter.

`handout_pdf(Handout(...), paper)` is a pure function from a typed description of the page to PDF bytes; the
page records the description while it draws (ui/handout.py). Written with fpdf2 (pure Python: no browser, no
pango or cairo), text in the DejaVu fonts shipped in engine/charts/data/fonts (Greek and maths included), charts as the
same Vega-Lite specs drawn to PNG by vl-convert (engine.charts.export), lines told apart by dashes as well as
colour so that a black-and-white print still reads. LaTeX cannot be typeset here: formulas print as plain
Unicode lines (engine.charts.plain_formula). A handout past HANDOUT_MAX_CHARTS or HANDOUT_MAX_PAGES raises
ValueError with a sentence.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Callable, Union

from engine import i18n, numbers
from engine.numbers import is_number
from engine.limits import HANDOUT_CODE_LINES, HANDOUT_MAX_CHARTS, HANDOUT_MAX_PAGES, HANDOUT_TABLE_ROWS
from engine.charts.plain_formula import plain
from engine.i18n import N_, _, ngettext

FONTS = Path(files("engine.charts") / "data" / "fonts")   # DejaVu, cut to the characters the pages print
PAPERS = ("A4", "Letter")
MARGIN = 12.0            # mm on every side
CHART_SCALE = 0.8        # a chart's printed size against the page's (96 px per inch): 13 px text prints at 7.8 pt
COLUMN_PX = 340          # the plot width of a chart that fits its column on the page: two side by side fit the paper
PRINT_PNG_SIDE = 2_400   # px: a chart across the page (186 mm) still prints at over 300 dpi
# Scripts DejaVu has not got, from fonts installed as Python packages (pinned in requirements.txt and pyproject.toml;
# nothing is downloaded): Chinese and Korean from Noto Sans CJK (one collection: the Simplified Chinese face, or the
# Korean one for a Korean reader, each covering the other's characters), Arabic from Noto Sans Arabic, shaped and
# ordered right to left by HarfBuzz (fpdf2's text shaping, uharfbuzz). fpdf2 embeds only the glyphs a handout uses.
CJK = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
ARABIC = re.compile(r"[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")
CJK_FACE = {"ko": 1}       # the collection's faces: 1 Korean, 2 Simplified Chinese (the default)
ROW_SHRINK = 0.85        # charts side by side may print this much smaller to share a row
PX_MM = 25.4 / 96        # one CSS pixel in mm
GAP = 4.0                # mm between charts side by side
QR_MM = 30.0             # the QR code's side, quiet zone included
SHRINK_TO_FIT = 0.8      # a chart may print this much smaller to end a page rather than start the next (7.8 -> 6.2 pt)
TALL_SHARE = 0.45        # of a page's height: a taller chart prints smaller, down to SHRINK_TO_FIT of its size
BESIDE_MIN_MM = 60.0     # the narrowest column beside a chart that takes the tables and formulas following it
INK, GREY, PALE = (0, 0, 0), (80, 80, 80), (238, 238, 238)   # text, captions (dark enough for a photocopy), code


@dataclass(frozen=True, eq=False)
class Chart:
    spec: dict               # the Vega-Lite spec the page drew
    summary: str = ""        # its one-sentence summary (engine.charts.text), printed under it


@dataclass(frozen=True)
class Formula:
    formula: str             # LaTeX, as the page shows it (ui.formula.formula_with_numbers)
    numbers: str             # the same formula with this view's numbers
    caption: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]   # cells as the page prints them


@dataclass(frozen=True)
class Code:
    source: str
    language: str = "Python"
    others: tuple[str, ...] = ()        # the other languages the page offers


@dataclass(frozen=True)
class Challenge:
    prompt: str
    done: bool = False
    hint: str = ""


@dataclass(frozen=True)
class Text:
    text: str                # a sentence the view prints about its result (Markdown emphasis is dropped)
    heading: bool = False    # a part's heading ("Image patches"), printed bold


Block = Union[Chart, Formula, Table, Code, Challenge, Text]


def _beside(block) -> bool:
    """Whether the block may print in the column beside a narrow chart: tables, formulas and sentences, no heading."""
    return isinstance(block, (Table, Formula)) or (isinstance(block, Text) and not block.heading)


@dataclass(frozen=True, eq=False)
class Handout:
    title: str
    question: str
    link: str                # the page's address with its settings: the QR code opens exactly this view
    blocks: tuple[Block, ...] = ()
    link_note: str = ""      # above the link; "" for the usual sentence (LINK_NOTE) in the reader's language


LINK_NOTE = N_("Open this view again, with these settings: scan the code, or type the link below.")


def script_fonts() -> dict[str, tuple[str, int]]:
    """The fonts for the scripts DejaVu has not got, by family: (file, face in its collection)."""
    import fontpkg_noto_sans_arabic
    import noto_cjk_sans_otc

    cjk = str(noto_cjk_sans_otc.FONT_PATH)
    arabic = next(fontpkg_noto_sans_arabic.ROOT.glob("files/NotoSansArabic*.ttf"))
    return {"cjk": (cjk, CJK_FACE.get(i18n.current().code, 2)), "arabic": (str(arabic), 0)}


def _words(handout: Handout) -> str:
    """Every text the handout prints with its fonts (a chart's own words are in its picture)."""
    parts = [handout.title, handout.question, handout.link_note]
    for block in handout.blocks:
        parts.append(block.summary if isinstance(block, Chart) else repr(block))
    return " ".join(parts)


def print_spec(spec: dict) -> dict:
    """The spec for paper: every line whose colour tells series apart also gets a dash pattern (and its points a
    shape) by the same field: grey lines of one shade are told apart by their dashes, and the legend's shapes say
    which is which. The spec itself is not changed."""
    def dashed(view: dict) -> dict:
        if not isinstance(view, dict):
            return view
        out = dict(view)
        if "layer" in out:
            out["layer"] = [dashed(layer) for layer in out["layer"]]
        mark = out.get("mark")
        kind = mark.get("type") if isinstance(mark, dict) else mark
        encoding = out.get("encoding") or {}
        colour = encoding.get("color")
        if kind == "line" and isinstance(colour, dict) and colour.get("field") and "strokeDash" not in encoding:
            dash = {"field": colour["field"], "type": colour.get("type", "nominal"), "legend": colour.get("legend")}
            if "sort" in colour:
                dash["sort"] = colour["sort"]
            domain = (colour.get("scale") or {}).get("domain")
            if domain:
                dash["scale"] = {"domain": domain}
            out["encoding"] = encoding | {"strokeDash": dash}
            if isinstance(mark, dict) and mark.get("point"):   # points get a shape per series: the legend shows it
                out["encoding"]["shape"] = dict(dash)
        return out
    out = dashed(spec)
    fits = isinstance(out.get("autosize"), dict) and str(out["autosize"].get("type", "")).startswith("fit")
    if out.get("width") == "container" or (fits and isinstance(out.get("width"), (int, float))):
        out = out | {"width": COLUMN_PX}   # it fills its column on the page: on paper, half the width
    return out


def chart_png(spec: dict) -> tuple[bytes, float, float]:
    """A chart as the handout prints it: the page's spec, dashed for grey print, drawn to PNG on white (at most
    PRINT_PNG_SIDE pixels a side), with its size in CSS pixels."""
    from engine.charts import export

    return export.png_drawing(print_spec(spec), max_side=PRINT_PNG_SIDE)


def handout_pdf(handout: Handout, paper: str = "A4", *,
                draw_chart: Callable[[dict], tuple[bytes, float, float]] = chart_png) -> bytes:
    """The handout as PDF bytes on `paper` ("A4" or "Letter"). `draw_chart` turns a spec into PNG bytes and the
    chart's width and height in CSS pixels (chart_png)."""
    if paper not in PAPERS:
        raise ValueError(_("A handout is printed on A4 or Letter paper, not {paper}.", paper=repr(paper)))
    charts = sum(isinstance(block, Chart) for block in handout.blocks)
    if charts > HANDOUT_MAX_CHARTS:
        raise ValueError(_("This page shows {n} charts, more than the {most} a handout can hold: fold away a few "
                           "(close their boxes) and make the handout again.", n=charts, most=HANDOUT_MAX_CHARTS))
    return _Layout(handout, paper, draw_chart).build()


class _Layout:
    """fpdf2 drawing the blocks top to bottom, charts side by side where they fit."""

    def __init__(self, handout: Handout, paper: str, draw_chart: Callable[[dict], tuple[bytes, float, float]]) -> None:
        from fpdf import FPDF

        self.handout, self.draw_chart = handout, draw_chart
        title = handout.title

        class Page(FPDF):
            def footer(page) -> None:
                page.set_y(-MARGIN + 3)
                page.set_font("sans", size=7)
                page.set_text_color(*GREY)
                page.cell(0, 4, "Transformer Playground · " + _("{title} · page {n} of {total}", title=title,
                                                                     n=page.page_no(), total="{nb}"), align="C")

        pdf = Page(format=paper, unit="mm")
        pdf.set_margins(MARGIN, MARGIN, MARGIN)
        pdf.set_auto_page_break(True, margin=MARGIN + 2)
        pdf.add_font("sans", "", str(FONTS / "DejaVuSans.ttf"))
        pdf.add_font("sans", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
        pdf.add_font("mono", "", str(FONTS / "DejaVuSansMono.ttf"))
        language = i18n.current().code
        words = _words(handout) + " " + _(LINK_NOTE)
        fallbacks = []
        for family, (file, face) in script_fonts().items():
            needed = {"cjk": CJK.search(words) is not None or language in ("zh-Hans", "ko"),
                      "arabic": ARABIC.search(words) is not None or language == "ar"}[family]
            if needed:
                pdf.add_font(family, "", file, collection_font_number=face)
                fallbacks.append(family)
        if fallbacks:
            pdf.set_fallback_fonts(fallbacks, exact_match=False)
        if "arabic" in fallbacks:
            pdf.set_text_shaping(True)    # Arabic's letters joined, and right to left where the text is
        pdf.set_lang(language)
        pdf.set_title(_("{title}: handout", title=handout.title))
        pdf.set_creator("Transformer Playground")
        self.pdf = pdf
        self.align = "R" if i18n.current().direction == "rtl" else "L"   # sentences; code, tables, formulas left
        self.width = pdf.w - 2 * MARGIN
        self.drawn: dict[int, tuple[bytes, float, float] | ValueError] = {}   # id(chart) -> drawn, or why not

    def build(self) -> bytes:
        self.pdf.add_page()
        self.head()
        blocks = list(self.handout.blocks)
        index, last_kind = 0, None
        while index < len(blocks):
            block = blocks[index]
            kind = type(block)
            if kind is Chart and not self.drawable(block):
                index += 1
            elif kind is Chart:
                row = [block]
                while index + len(row) < len(blocks) and isinstance(blocks[index + len(row)], Chart) \
                        and self.drawable_beside(row, blocks[index + len(row)]):
                    row.append(blocks[index + len(row)])
                right, bottom = self.charts(row)
                index = self.beside(blocks, index + len(row), right, bottom)
            else:
                if kind is Challenge and last_kind is not Challenge:
                    self.keep_together(blocks[index:])
                    self.heading(_("Try this"))
                {Formula: self.formula, Table: self.table, Code: self.code, Challenge: self.challenge,
                 Text: self.text}[kind](block)
                index += 1
            last_kind = kind
            self.check_pages()
        return bytes(self.pdf.output())

    def keep_together(self, following: list) -> None:
        """'Try this' and its challenges (the run of them at the head of `following`) on one page: a list that would
        run over the foot of this page starts the next one."""
        pdf = self.pdf
        height = 7.0   # the heading
        for block in following:
            if not isinstance(block, Challenge):
                break
            pdf.set_font("sans", "", 8.5)
            done = "  " + _("(done on this view)") if block.done else ""
            height += pdf.multi_cell(0, 4, f"☐  {unmarked(block.prompt)}{done}", dry_run=True, output="HEIGHT") + 1
            if block.hint and not block.done:
                pdf.set_font("sans", "", 7)
                height += pdf.multi_cell(self.width - 5, 3.2, _("Hint: {hint}", hint=unmarked(block.hint)),
                                         dry_run=True, output="HEIGHT")
        if pdf.get_y() + height > pdf.page_break_trigger and height < (pdf.page_break_trigger - pdf.t_margin) / 2:
            pdf.add_page()

    def drawable(self, chart: Chart) -> bool:
        """Whether the chart could be drawn; one that cannot (too large) leaves its sentence in its place."""
        try:
            self.sized(chart)
            return True
        except ValueError as error:
            self.pdf.set_font("sans", "", 7.5)
            self.pdf.set_text_color(*GREY)
            self.pdf.multi_cell(0, 3.5, _("{summary} Not printed: {error}", summary=self.summary(chart), error=error),
                                align="L", new_x="LMARGIN", new_y="NEXT")
            self.pdf.ln(2)
            return False

    def check_pages(self) -> None:
        if self.pdf.page_no() > HANDOUT_MAX_PAGES:
            raise ValueError(_("This handout would run past {most} pages: fold away a few boxes on the page (code, "
                               "charts, tables) and make it again.", most=HANDOUT_MAX_PAGES))

    # --- the head: title, question, link and its QR code ---------------------------------------------------
    def head(self) -> None:
        pdf, top = self.pdf, self.pdf.get_y()
        text_width = self.width - QR_MM - 4
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "B", 16)
        pdf.multi_cell(text_width, 7, self.handout.title, align=self.align, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("sans", "", 10.5)
        pdf.multi_cell(text_width, 5, self.handout.question, align=self.align, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1.5)
        pdf.set_text_color(*GREY)
        pdf.set_font("sans", "", 7)
        pdf.multi_cell(text_width, 3.2, self.handout.link_note or _(LINK_NOTE), align=self.align, new_x="LMARGIN",
                       new_y="NEXT")
        pdf.set_font("mono", "", 6.5)
        pdf.multi_cell(text_width, 3, self.handout.link or _("(no link: the page was not opened in a browser)"),
                       align="L", wrapmode="CHAR", new_x="LMARGIN", new_y="NEXT")
        drawn = self.qr(pdf.w - MARGIN - QR_MM, top)
        pdf.set_y(max(pdf.get_y(), top + (QR_MM if drawn else 0)) + 2)
        pdf.set_draw_color(*GREY)
        pdf.line(MARGIN, pdf.get_y(), pdf.w - MARGIN, pdf.get_y())
        pdf.ln(3)

    def qr(self, x: float, y: float) -> bool:
        """The link's QR code as black squares (crisp at any printer's resolution). False where there is no link
        or it is too long for a code."""
        import segno

        if not self.handout.link:
            return False
        try:
            code = segno.make(self.handout.link, error="m")
        except segno.DataOverflowError:
            return False
        rows = [list(row) for row in code.matrix_iter(scale=1, border=4)]
        module = QR_MM / len(rows)
        self.pdf.set_fill_color(*INK)
        for r, row in enumerate(rows):
            c = 0
            while c < len(row):
                if row[c]:
                    start = c
                    while c < len(row) and row[c]:
                        c += 1
                    # a hair wider than the run, so no white seam shows between neighbouring squares
                    self.pdf.rect(x + start * module, y + r * module, (c - start) * module + 0.02, module + 0.02,
                                  style="F")
                else:
                    c += 1
        return True

    # --- the blocks ----------------------------------------------------------------------------------------
    def heading(self, text: str) -> None:
        pdf = self.pdf
        if pdf.get_y() + 14 > pdf.page_break_trigger:
            pdf.add_page()
        pdf.ln(1)
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "B", 10.5)
        pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")

    def chart_size(self, chart: Chart) -> tuple[bytes, float, float]:
        png, width, height = self.draw_chart(chart.spec)
        width_mm, height_mm = width * PX_MM * CHART_SCALE, height * PX_MM * CHART_SCALE
        if width_mm > self.width:
            width_mm, height_mm = self.width, height_mm * self.width / width_mm
        return png, width_mm, height_mm

    def summary(self, chart: Chart) -> str:
        """The chart's sentence for paper: no pointer to the page's Data table, which paper has not got."""
        return _short(unmarked(chart.summary.replace("; the numbers are in the table under Data", "")))

    def drawable_beside(self, row: list[Chart], chart: Chart) -> bool:
        try:
            self.sized(chart)
        except ValueError:
            return False   # drawn (as its sentence) on its own
        return self.fits_beside(row + [chart])

    def fits_beside(self, row: list[Chart]) -> bool:
        widths = [self.sized(chart)[1] for chart in row]
        return sum(widths) * ROW_SHRINK + GAP * (len(row) - 1) <= self.width

    def sized(self, chart: Chart) -> tuple[bytes, float, float]:
        """The chart drawn once (or its ValueError, raised again): (PNG, width mm, height mm)."""
        if id(chart) not in self.drawn:
            try:
                self.drawn[id(chart)] = self.chart_size(chart)
            except ValueError as error:
                self.drawn[id(chart)] = error
        found = self.drawn[id(chart)]
        if isinstance(found, ValueError):
            raise found
        return found

    def beside(self, blocks: list, index: int, left: float, bottom: float) -> int:
        """The tables and formulas that follow a chart, printed in the column to its right (from the chart's top) while
        they start beside it and fit on its page: a tall narrow heatmap no longer leaves half a page white. Returns the
        index of the first block not printed there; the next block starts under both."""
        pdf = self.pdf
        column = pdf.w - MARGIN - left
        if column < BESIDE_MIN_MM or index >= len(blocks) or not _beside(blocks[index]) \
                or pdf.page_no() != self.row_page:   # the chart's sentence ran onto the next page: nothing beside it
            return index
        top = self.row_top
        full = self.width
        pdf.set_left_margin(left)
        pdf.set_xy(left, top)
        self.width = column
        try:
            while index < len(blocks) and _beside(blocks[index]) and pdf.get_y() < bottom:
                block = blocks[index]
                if isinstance(block, Table) and self.table_width(block) > column:
                    break   # its columns would be squeezed: it prints across the page, under the chart
                draw = {Table: self.table, Formula: self.formula, Text: self.text}[type(block)]
                with pdf.offset_rendering() as trial:
                    draw(block)
                if trial.page_break_triggered:
                    break
                draw(block)
                index += 1
        finally:
            pdf.set_left_margin(MARGIN)
            self.width = full
        pdf.set_xy(MARGIN, max(pdf.get_y(), bottom))
        return index

    def charts(self, row: list[Chart]) -> tuple[float, float]:
        """A row of charts side by side, their sentences under them; returns where the row's drawings end on the
        right (mm from the paper's left edge) and the row's bottom."""
        pdf = self.pdf
        drawn = [self.sized(chart) for chart in row]
        shrink = min(1.0, (self.width - GAP * (len(row) - 1)) / sum(width for _, width, _ in drawn))
        drawn = [(png, width * shrink, height * shrink) for png, width, height in drawn]
        pdf.set_font("sans", "", 6.5)
        captions = [pdf.multi_cell(width, 2.8, self.summary(chart), dry_run=True, output="HEIGHT")
                    if chart.summary else 0.0 for chart, (_, width, _) in zip(row, drawn)]
        room = pdf.page_break_trigger - MARGIN - 20
        tall = max(TALL_SHARE * room, SHRINK_TO_FIT * max(height for _, _, height in drawn))   # a tall heatmap, smaller
        scale = min(1.0, room / max(height + caption for (_, _, height), caption in zip(drawn, captions)),
                    tall / max(height for _, _, height in drawn))
        total = max(height * scale + caption for (_, _, height), caption in zip(drawn, captions))
        left = pdf.page_break_trigger - pdf.get_y() - 1   # the sentence sits 0.5 mm under its chart
        fitted = min((left - caption) / height for (_, _, height), caption in zip(drawn, captions))
        if total > left and fitted * shrink >= SHRINK_TO_FIT * scale:   # a little smaller, not half a page white
            scale = fitted
            total = max(height * scale + caption for (_, _, height), caption in zip(drawn, captions))
        if pdf.get_y() + total > pdf.page_break_trigger:
            pdf.add_page()
        top, x = pdf.get_y(), MARGIN
        for chart, (png, width, height), caption in zip(row, drawn, captions):
            pdf.image(io.BytesIO(png), x=x, y=top, w=width * scale, h=height * scale)
            if chart.summary:
                pdf.set_xy(x, top + height * scale + 0.5)
                pdf.set_text_color(*GREY)
                pdf.multi_cell(width, 2.8, self.summary(chart), align="L")
            x += width * scale + GAP
        self.row_top, self.row_page = top, pdf.page_no()
        pdf.set_xy(MARGIN, top + total + 3)
        return x, top + total + 3

    def formula(self, block: Formula) -> None:
        pdf = self.pdf
        formula, numbers = plain(block.formula), plain(block.numbers)
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "B", 8.5)
        pdf.multi_cell(0, 4, "\n".join(formula), align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("sans", "", 8.5)
        pdf.set_x(pdf.l_margin + 5)
        pdf.multi_cell(self.width - 5, 4, "\n".join(numbers), align="L", new_x="LMARGIN", new_y="NEXT")
        if block.caption:
            pdf.set_x(pdf.l_margin + 5)
            pdf.set_font("sans", "", 7)
            pdf.set_text_color(*GREY)
            pdf.multi_cell(self.width - 5, 3.2, unmarked(block.caption), align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1.5)

    def column_widths(self, block: Table) -> list[float]:
        """Each column's width in mm: its widest cell (the printed rows and the heading) at the table's font."""
        rows = block.rows[:HANDOUT_TABLE_ROWS]
        self.pdf.set_font("sans", "", 7.5)
        cells = [[column] + [row[c] for row in rows if c < len(row)] for c, column in enumerate(block.columns)]
        return [max(self.pdf.get_string_width(str(cell)) for cell in column) + 3 for column in cells]

    def table_width(self, block: Table) -> float:
        return sum(self.column_widths(block))

    def table(self, block: Table) -> None:
        pdf = self.pdf
        rows = list(block.rows[:HANDOUT_TABLE_ROWS])
        left = len(block.rows) - len(rows)
        numeric = [all(is_number(row[c]) for row in rows if c < len(row)) for c in range(len(block.columns))]
        widths = self.column_widths(block)
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "", 7.5)
        width = min(sum(widths), self.width)
        if pdf.get_y() + 4 * min(len(rows) + 1, 6) > pdf.page_break_trigger:
            pdf.add_page()
        with pdf.table(width=width, col_widths=widths, align="LEFT", line_height=3.6, padding=0.6,
                       text_align=["RIGHT" if n else "LEFT" for n in numeric], first_row_as_headings=True,
                       headings_style=_bold(), borders_layout="HORIZONTAL_LINES") as table:
            table.row([str(column) for column in block.columns])
            for cells in rows:
                table.row([str(cell) for cell in cells] + [""] * (len(block.columns) - len(cells)))
        if left:
            pdf.set_font("sans", "", 7)
            pdf.set_text_color(*GREY)
            pdf.cell(0, 3.5, ngettext("... and {n} more row (on the page).", "... and {n} more rows (on the page).",
                                      left, n=numbers.grouped(left)), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)

    def code(self, block: Code) -> None:
        pdf = self.pdf
        lines = block.source.rstrip("\n").split("\n")
        shown = lines[:HANDOUT_CODE_LINES]
        more = f"\n# ... {len(lines) - len(shown)} more lines on the page" if len(lines) > len(shown) else ""
        pdf.set_font("mono", "", 6.8)
        height = pdf.multi_cell(0, 3.1, "\n".join(shown) + more, align="L", wrapmode="CHAR", padding=1.2,
                                dry_run=True, output="HEIGHT")
        room = pdf.page_break_trigger - pdf.t_margin
        if pdf.get_y() + 7 + height > pdf.page_break_trigger and height < room / 2:
            pdf.add_page()   # a short box of code stays whole, on the next page
        self.heading(_("The code ({language}) (the page also shows it in {others})", language=block.language,
                       others=", ".join(block.others)) if block.others else
                     _("The code ({language})", language=block.language))
        pdf.set_font("mono", "", 6.8)
        pdf.set_text_color(*INK)
        pdf.set_fill_color(*PALE)
        pdf.multi_cell(0, 3.1, "\n".join(shown) + more, align="L", fill=True, wrapmode="CHAR", padding=1.2,
                       new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)

    def text(self, block: Text) -> None:
        if block.heading:
            self.heading(unmarked(block.text))
            return
        pdf = self.pdf
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "", 8.5)
        pdf.multi_cell(0, 4, unmarked(block.text), align=self.align, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1.5)

    def challenge(self, block: Challenge) -> None:
        pdf = self.pdf
        pdf.set_text_color(*INK)
        pdf.set_font("sans", "", 8.5)
        mark = "☑" if block.done else "☐"
        done = "  " + _("(done on this view)") if block.done else ""
        pdf.multi_cell(0, 4, f"{mark}  {unmarked(block.prompt)}{done}", align=self.align, new_x="LMARGIN", new_y="NEXT")
        if block.hint and not block.done:
            pdf.set_x(MARGIN + 5)
            pdf.set_font("sans", "", 7)
            pdf.set_text_color(*GREY)
            pdf.multi_cell(self.width - 5, 3.2, _("Hint: {hint}", hint=unmarked(block.hint)), align=self.align,
                           new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)


def unmarked(text: str) -> str:
    """A line of the page's Markdown as plain text: no emphasis marks, no code ticks, no icons."""
    text = re.sub(r":material/[a-z_]+:\s*", "", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def _bold():
    from fpdf.fonts import FontFace

    return FontFace(emphasis="BOLD")


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


