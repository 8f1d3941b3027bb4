"""What surrounds every page (app.py draws it): the navigation, projector mode, the page's QR
code, and the styles and small script that keep the app readable and reachable by keyboard.

- Navigation: Streamlit's own sidebar navigation is a list whose markup fails WCAG's list rules
  (axe-core: `list`, `listitem`), so app.py hides it and draws the same groups with
  `st.page_link`s here.
- Projector mode (`?present=1`, or the sidebar switch): larger type everywhere, charts grown to fill the main
  column with their text and numbers at 24 px (ui.screen, engine.charts.fitting), the settings' help icons hidden:
  for a washed-out screen at the back of a hall.
- The QR code of the current page's link, its settings included, drawn offline with `segno`,
  so students open exactly the teacher's example on their phones; under it, the page's handout as a PDF
  (ui/handout.py), with the same link as its QR code.
- Contrast: captions in a grey of 7:1 on white, not Streamlit's 3.9:1.
- Fit: on a phone a formula wider than the screen breaks over lines after a relation or an operator (ui.formula
  draws an aligned block's lines one by one there); one still wider than its column (a long row vector) is drawn
  smaller, down to FORMULA_MIN_SCALE, before it would scroll; the page links' titles (the sidebar's, the
  home page's descriptions) wrap rather than being cut.
- Keyboard: a box that scrolls sideways (a wide chart, formula or table on a phone) gets
  `tabindex="0"`, a role and a label, so arrow keys can reach what is outside the box.
"""
from __future__ import annotations

import html
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from engine.i18n import N_, _
from ui import handout, language
from ui.page import QR_SECTION, folded
from ui.projector import PROJECTOR_KEY, PROJECTOR_ROOT_PX, projector_on, qr_svg
from ui.url_state import PRESENT_PARAM, TEACH_PARAM

CAPTION_GREY = "#595959"          # 7.0:1 on white (WCAG AA asks 4.5:1 for body text)

STYLE = f"""<style>
/* On a phone, a chart, formula or table wider than the screen scrolls inside its own box instead of
   pushing the whole page sideways (heatmaps keep their cell size so the numbers stay readable). */
[data-testid='stVegaLiteChart'], [data-testid='stMarkdownContainer'] .katex-display
  {{ overflow-x: auto; overflow-y: hidden; max-width: 100%; }}
[data-testid='stMarkdownContainer'] table {{ display: block; overflow-x: auto; max-width: 100%; }}
[data-testid='stCaptionContainer'] {{ opacity: 1; color: {CAPTION_GREY}; }}  /* Streamlit: grey at 60% */
[data-testid='stCaptionContainer'] p {{ color: {CAPTION_GREY}; }}
.st-key-nav {{ gap: 0.15rem; }}
/* a group's name keeps a line of its own (Streamlit pulls a last paragraph up by 1rem, onto the first link), and
   a page's title wraps onto a second line rather than being cut with "..." */
.st-key-nav [data-testid='stMarkdown'] [data-testid='stMarkdownContainer'],
.st-key-nav [data-testid='stCaptionContainer'] {{ margin-bottom: 0; }}
.st-key-nav [data-testid='stMarkdown'] p {{ margin: 0.6rem 0 0 0; font-weight: 600; }}
.st-key-nav [data-testid='stCaptionContainer'] p {{ margin: 0.3rem 0 0 0; line-height: 1.3; }}
.st-key-nav [data-testid='stPageLink'] p, .st-key-nav [data-testid='stPageLink'] a > span,
[data-testid='stMain'] [data-testid='stPageLink'] p, [data-testid='stMain'] [data-testid='stPageLink'] a > span
  {{ white-space: normal; overflow: visible; text-overflow: clip; }}   /* the home page's descriptions too */
[data-testid='stMain'] [data-testid='stPageLink'] p {{ line-height: 1.45; }}
.st-key-nav [data-testid='stPageLink'] p {{ line-height: 1.35; margin: 0.15rem 0; }}
/* short tables (ui.tables): a column of numbers (marked by the script below) aligned right in even digits */
[data-testid='stTable'] td.num, [data-testid='stTable'] th.num
  {{ text-align: right !important; font-variant-numeric: tabular-nums; }}  /* over Streamlit's inline left */
/* a number is never broken inside itself ("28,860" over two lines in a phone's narrow cell, in Arabic): its cell
   grows, and a table wider than the column scrolls sideways in its own box, never the page */
[data-testid='stTable'] td.num, [data-testid='stTable'] td.num *, details.chart-data td.num
  {{ white-space: nowrap; }}   /* st.table's cell is nowrap, its Markdown paragraph not */
details.chart-data table {{ display: block; overflow-x: auto; max-width: 100%; }}
/* a phone: a table's cells closer, so more of its columns fit before it scrolls sideways; a formula wider than the
   screen breaks after a relation or an operator (=, +), as TeX breaks inline formulas, instead of being shrunk */
@media (max-width: 640px) {{
  [data-testid='stTable'] th, [data-testid='stTable'] td {{ font-size: 0.8rem; padding: 0.25rem 0.35rem; }}
  .katex-display > .katex, .katex-display > .katex > .katex-html {{ white-space: normal; }}
  .katex-display .katex-html > .base {{ margin: 0.15em 0; }}
}}
*:focus-visible {{ outline: 3px solid #e08214; outline-offset: 2px; }}
.st-key-app_screen {{ display: none; }}   /* ui.screen's reporter: a script, nothing to see */
/* under every chart: its numbers as a table, folded (ui.charts.chart_text) */
details.chart-data {{ font-size: 0.8rem; color: {CAPTION_GREY}; margin-top: -0.6rem; }}
details.chart-data table {{ font-size: 0.8rem; }}   /* every row in view (MAX_DATA_ROWS at most), as before */
p.chart-summary {{ position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }}
</style>"""

PROJECTOR_STYLE = f"""<style>
html {{ font-size: {PROJECTOR_ROOT_PX}px; }}
[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li {{ font-size: 1.15rem; }}
.katex {{ font-size: 1.35em; }}
/* the settings' help icons (in their labels only: a button with help= is wrapped in the same tooltip element,
   and hiding that hid the button) */
[data-testid='stWidgetLabel'] [data-testid='stTooltipIcon'] {{ display: none; }}
.st-key-nav p, .st-key-nav span {{ font-size: 16px; }}
/* a wider sidebar for the larger type: two columns of settings keep whole words ("vocabulary V") */
[data-testid='stSidebar'] {{ min-width: 22rem; }}
/* a slider's value and ends at the larger type, on one short line: above the track, not over it */
[data-testid='stSliderThumbValue'] p, [data-testid='stSliderTickBar'] p {{ font-size: 1rem; line-height: 1.2; }}
</style>"""

# Runs in the page itself (st.html with JavaScript): a MutationObserver, installed once per tab, that
# labels every chart with its summary and makes every sideways-scrolling box focusable and named.
FORMULA_MIN_SCALE = 0.45   # a formula wider than its column shrinks to fit, to at most this much smaller (then scrolls)
SCROLL_BOXES_SCRIPT = r"""<script>
(() => {
  const FORMULA_MIN_SCALE = %(scale)s;
  const WORDS = %(words)s;
  const doc = window.document;
  window.__playgroundWords = WORDS;   // the language can change while the observer stays
  if (window.__playgroundBoxes) return;
  window.__playgroundBoxes = true;
  const selector = "[data-testid='stVegaLiteChart'], .katex-display, [data-testid='stMarkdownContainer'] table, "
    + "[data-testid='stTable'] > div, details.chart-data table";   // st.table's own box (ui.tables); a Data table
  const name = (box) => {
    if (box.matches("[data-testid='stVegaLiteChart']")) {
      const svg = box.querySelector("svg[aria-label], canvas[aria-label]");
      const WORDS = window.__playgroundWords;
      return (svg ? WORDS.chartNamed.replace("{summary}", svg.getAttribute("aria-label")) : WORDS.chart);
    }
    return box.matches(".katex-display") ? window.__playgroundWords.formula : window.__playgroundWords.table;
  };
  const label = () => {   // each chart's drawing gets the summary ui.charts writes under it as its label
    doc.querySelectorAll("[data-testid='stVegaLiteChart']").forEach((chart) => {
      const drawing = chart.querySelector("svg, canvas");
      const holder = chart.closest("[data-testid='stElementContainer']");
      const next = holder && holder.nextElementSibling;
      const summary = next && next.querySelector("details.chart-data > p, p.chart-summary");
      if (drawing && summary && drawing.getAttribute("aria-label") !== summary.textContent) {
        drawing.setAttribute("aria-label", summary.textContent);
        drawing.setAttribute("role", "img");
      }
    });
  };
  // a number in any of the app's languages' signs (1,234.5; 1.234,5; Arabic's minus after a direction mark)
  const number = /^(\u200e?[-\u2212]?[\d.,\u00a0\u202f]*\d(e[-+]?\d+)?|nan|-?inf)$/i;
  const align = () => {   // a table's columns whose every cell is a number (as ui.tables prints them): class num
    doc.querySelectorAll("[data-testid='stTable'] table, details.chart-data table").forEach((table) => {
      const rows = [...table.querySelectorAll("tbody tr")];
      const heads = table.querySelectorAll("thead th");
      const columns = rows.length ? rows[0].children.length : 0;
      for (let c = 0; c < columns; c++) {
        const cells = rows.map((row) => row.children[c]).filter(Boolean);
        const texts = cells.map((cell) => cell.textContent.trim());
        const numbers = texts.some((t) => t !== "") && texts.every((t) => t === "" || number.test(t));
        cells.forEach((cell) => cell.classList.toggle("num", numbers));
        if (heads[c]) heads[c].classList.toggle("num", numbers);
      }
    });
  };
  const fit = () => {   // a formula wider than its column is drawn smaller, down to FORMULA_MIN_SCALE, not cut
    doc.querySelectorAll(".katex-display").forEach((box) => {
      const formula = box.querySelector(":scope > .katex");
      if (!formula || !box.clientWidth) return;
      formula.style.fontSize = "";
      const natural = box.scrollWidth;
      if (natural > box.clientWidth + 3) {   // KaTeX's own box runs about 2 px past its content at any width
        const scale = Math.max(FORMULA_MIN_SCALE, (box.clientWidth - 4) / natural);
        formula.style.fontSize = (parseFloat(getComputedStyle(formula).fontSize) * scale) + "px";
      }
    });
  };
  const mark = () => {
    label();
    align();
    fit();
    doc.querySelectorAll(selector).forEach((box) => {
      const scrolls = box.scrollWidth > box.clientWidth;   // as axe counts a box that scrolls: by one pixel too
      if (scrolls && box.getAttribute("tabindex") !== "0") {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", name(box));
      } else if (!scrolls && box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  };
  let queued = false;
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; mark(); }); } };
  new MutationObserver(later).observe(doc.body, {childList: true, subtree: true});
  window.addEventListener("resize", later);
  mark();
})();
</script>"""


def _script_words() -> dict:
    """The script's words (a scrolling box's name for a screen reader), in the session's language."""
    import json

    words = {"chart": _("Chart (scrolls sideways)"), "chartNamed": _("Chart: {summary} (scrolls sideways)"),
             "formula": _("Formula (scrolls sideways)"), "table": _("Table (scrolls sideways)")}
    return {"scale": FORMULA_MIN_SCALE, "words": json.dumps(words, ensure_ascii=False)}


def styles() -> None:
    """The app's styles (projector ones too when it is on) and the scroll-box script."""
    st.html(STYLE + (PROJECTOR_STYLE if projector_on() else ""))
    st.html(SCROLL_BOXES_SCRIPT % _script_words(), unsafe_allow_javascript=True)
    language.document()   # the page's lang and dir (right to left in Arabic)


BEYOND_THE_CHAPTER = N_("Beyond the chapter:")   # over the pages whose Idea.beyond is set


def navigation(home: st.Page, pages: dict[str, list[st.Page]]) -> None:
    """The path of pages in the sidebar as links, grouped as the chapter tells it; the pages that go beyond
    the chapter (ui.path.Idea.beyond) under a line that says so."""
    from ui.path import ideas

    beyond = {idea.url for idea in ideas() if idea.beyond}
    with st.sidebar.container(key="nav"):
        st.page_link(home, label=home.title, icon=home.icon)
        for group, links in pages.items():
            st.markdown(_(group))
            for index, page in enumerate(links):
                if page.url_path in beyond and not (index and links[index - 1].url_path in beyond):
                    st.caption(_(BEYOND_THE_CHAPTER))
                st.page_link(page, label=page.title, icon=page.icon)


def projector_switch() -> None:
    """The sidebar switch; while it is on, ?present=1 stays in the link a teacher copies."""
    st.sidebar.toggle(_("Projector mode"), key=PROJECTOR_KEY,
                      help=_("For a room: larger type, charts filling the page with their numbers at 24 px, "
                             "settings' help icons hidden. A link with ?present=1 opens in this mode."))
    if st.session_state.get(PROJECTOR_KEY):
        if st.query_params.get(PRESENT_PARAM) != "1":
            st.query_params[PRESENT_PARAM] = "1"
    elif PRESENT_PARAM in st.query_params:
        del st.query_params[PRESENT_PARAM]


def page_link() -> str | None:
    """This page's address as the browser shows it, with its current settings (None outside a browser)."""
    try:
        url = st.context.url
    except Exception:   # no session (a bare script)
        return None
    if not url:
        return None
    parts = urlsplit(url)
    # a teacher link's key is the teacher's alone (it is dropped from the link at once; never in a QR code either)
    shared = {name: value for name, value in st.query_params.to_dict().items() if name != TEACH_PARAM}
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(shared), ""))


def qr_code() -> None:
    """The current page's QR code, at the foot of the sidebar. A section of its own (ui.page.QR_SECTION):
    a widget that reruns only its part of the page (ui.page.only) reruns this too, since the link changed."""
    with st.sidebar:
        _qr_section()


@st.fragment(key=QR_SECTION)
def _qr_section() -> None:
    link = page_link()
    if link is None:
        return
    box = folded(_("Open this page on a phone"), "app.qr", icon=":material/qr_code_2:")
    if box.open:
        with box:
            alt = html.escape(_("QR code of this page with its settings: {link}", link=link), quote=True)
            st.html(f"<img src='{qr_svg(link)}' alt='{alt}' "
                    f"style='width: 100%; max-width: 220px; image-rendering: pixelated'>")
            st.caption(_("Scan to open exactly this view: {link}", link=link))
    handout.control(link)   # here, after the page: it reruns with every section, so its record is current
