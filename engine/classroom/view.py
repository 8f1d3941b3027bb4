"""The class view: a teacher's page made once per move, for every student who follows (issue 42).

"Everyone follow me" used to rerun the teacher's whole page once per follower (36-72 ms each: 300 followers
waited 11-15 s). Now the teacher's run leaves one view of the page, made from what its handout record already
holds (the title, the question, the charts, the numbers beside their formulas, the tables, the sentences, the code,
the challenges: engine.charts.handout's blocks), and a following student's screen shows that view without running
the page. A move then costs one view, whatever the size of the room.

The view is HTML made here, on the server, once: charts drawn to SVG by vl-convert (the same Vega-Lite spec the
page drew, nothing fetched: `allowed_base_urls=[]`), each shown as an <img> of its SVG (a data URL: Streamlit's
st.html keeps only HTML, and a drawing in an image runs nothing), scaled to the width of the screen that shows it
(a phone at 390 px, a projector at 1920); every piece of text (titles, what a student or teacher typed, table
cells) is escaped, Markdown emphasis is the only markup kept, and no link, image or script of the page's text
survives. Numbers are the strings the page printed (tables as shown, formulas as engine.charts.plain_formula
writes them, as the handout does).

A view is made of parts, each tagged with the page's sections it stands in (ui.page.section keys): the store keeps
one view per class (CLASS_VIEW_MAX_BYTES), and whoever shows it leaves out the parts a class's open question veils
(`body(veiled=...)`), so the answer stays hidden until the reveal without a view per state of the question.

    view = make_view("attention?x=...", "Attention calculator", "How ...?", [((), block), (("weights",), chart)])
    store.put_view(code, key, view.to_json())        # engine.classroom.store
    ClassView.from_json(store.view(code)).body(veiled=frozenset({"weights"}))

Drawing a chart costs vl-convert 0.05-0.5 s (bench/class_view.py measures every page): drawings are kept per spec
(`SVG_CACHE`), so a move that changes one chart draws one.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterable

from engine import i18n, limits
from engine.numbers import is_number
from engine.i18n import N_, _
from engine.charts import handout as paper
from engine.charts.plain_formula import plain

SWITCH_ENV = "PLAYGROUND_CLASS_VIEW"   # "0": followers run the teacher's page themselves, as before issue 42
FORMAT = 1                 # the view's JSON layout (a store may hold a view made by an older server)
PROJECTOR_GROWTH = 1.5    # a fixed-size chart grows to this many times its size on a wide screen (13 px text: 19.5)
SVG_CACHE_SIZE = 256       # drawings kept per process (a page's charts are a few to a dozen; a lesson has ~30 moves)
VEILED_HEAD = N_("Veiled until the reveal.")      # read in the follower's language, as the view is shown
VEILED_NOTE = N_("This part of the page shows the answer to the class's question: predict first, then see it here.")
TOO_LARGE = N_("Too large for the class view: Explore from here to see it.")   # the teacher's language, as made

STYLE = """<style>
.tp-view{font-size:1rem;line-height:1.45;overflow-wrap:anywhere;color:inherit;max-width:100%}
.tp-view h2{font-size:1.55rem;line-height:1.2;margin:.1em 0 .25em}
.tp-view .tp-question{font-size:1.1rem;font-style:italic;margin:0 0 .6em}
.tp-view h3{font-size:1.15rem;margin:1em 0 .3em}
.tp-view figure{margin:.8em 0;overflow-x:auto;max-width:100%}
.tp-view figure img{display:block;height:auto;background:white}
.tp-view figcaption,.tp-view .tp-note{font-size:.85rem;opacity:.75;margin-top:.2em}
.tp-view .tp-formula{margin:.6em 0;overflow-x:auto}
.tp-view .tp-formula div{font-family:"DejaVu Sans",sans-serif;white-space:pre-wrap}
.tp-view .tp-formula .tp-numbers{padding-left:1em}
.tp-view .tp-table{overflow-x:auto;margin:.6em 0}
.tp-view table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
.tp-view th,.tp-view td{border-bottom:1px solid rgba(128,128,128,.35);padding:.15em .5em;text-align:left;
overflow-wrap:normal}
.tp-view td{white-space:nowrap}
.tp-view td.tp-n{text-align:right}
.tp-view pre{overflow-x:auto;font-size:.8rem;background:rgba(128,128,128,.12);padding:.5em;white-space:pre}
.tp-view .tp-veiled{border:1px dashed rgba(128,128,128,.6);padding:.5em;margin:.6em 0}
.tp-view ul{padding-left:1.2em}
@media (min-width:1400px){.tp-view{font-size:1.2rem}.tp-view h2{font-size:2rem}}
</style>"""


@dataclass(frozen=True)
class Part:
    sections: tuple[str, ...]   # the page's sections (outermost first) this part stands in: a question veils them
    html: str


@dataclass(frozen=True)
class ClassView:
    link: str                   # the teacher's link it shows ("attention?x=..."): "Explore from here" opens it
    title: str
    question: str
    parts: tuple[Part, ...] = ()
    charts: int = 0             # charts drawn as SVG
    made_ms: float = 0.0        # what making it cost the server
    lang: str = i18n.SOURCE     # the language it was made in (the teacher's): a follower reading another is told

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "link": self.link, "title": self.title, "question": self.question,
                           "parts": [[list(part.sections), part.html] for part in self.parts],
                           "charts": self.charts, "made_ms": round(self.made_ms, 1), "lang": self.lang},
                          ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> ClassView:
        d = json.loads(text)
        if d.get("format") != FORMAT:
            raise ValueError(_("This class view was made by another version of the app: the teacher's next move "
                               "makes a new one."))
        return ClassView(d["link"], d["title"], d["question"],
                         tuple(Part(tuple(sections), body) for sections, body in d["parts"]),
                         int(d.get("charts", 0)), float(d.get("made_ms", 0.0)),
                         d.get("lang") if i18n.language(d.get("lang")) is not None else i18n.SOURCE)

    def body(self, veiled: frozenset[str] | set[str] = frozenset()) -> str:
        """The view as one HTML fragment (its style included), leaving out the parts in a veiled section: one note
        stands in for each run of them."""
        made_in = i18n.language(self.lang) or i18n.LANGUAGES[i18n.SOURCE]
        out = [STYLE, f'<div class="tp-view" data-link="{_escape(self.link)}" lang="{made_in.code}" '
                      f'dir="{made_in.direction}">',
               f"<h2>{_escape(self.title)}</h2>"]
        if self.question:
            out.append(f'<p class="tp-question">{_inline(self.question)}</p>')
        hidden = False
        for part in self.parts:
            if veiled and any(section in veiled for section in part.sections):
                if not hidden:
                    out.append(f'<div class="tp-veiled"><strong>{_escape(_(VEILED_HEAD))}</strong> '
                               f'{_escape(_(VEILED_NOTE))}</div>')
                hidden = True
                continue
            hidden = False
            out.append(part.html)
        out.append("</div>")
        return "".join(out)

    def document(self, veiled: frozenset[str] | set[str] = frozenset(), explore: str | None = None) -> str:
        """The view as a page of its own (the class route): `explore` is the relative address of the real page."""
        reader = i18n.current()
        real = _("the real page, at the teacher's link.")
        link = (f'<p><a href="{_escape(explore)}">{_escape(_("Explore from here"))}</a>: {_escape(real)}</p>'
                if explore else "")
        return (f"<!doctype html><html lang='{reader.code}' dir='{reader.direction}'><head><meta charset='utf-8'>"
                "<meta name='viewport' content='width=device-width, initial-scale=1'>"
                f"<title>{_escape(_('{title}: the class view', title=self.title))}</title>"
                "<style>body{font-family:sans-serif;margin:0 auto;padding:12px;max-width:1400px}</style></head><body>"
                f"{self.body(veiled)}{link}</body></html>")


# --- making one ----------------------------------------------------------------------------------------------

Drawer = Callable[[dict], str]


def make_view(link: str, title: str, question: str, blocks: Iterable[tuple[tuple[str, ...], paper.Block]],
              draw: Drawer | None = None, lang: str | None = None) -> ClassView:
    """The view of a page: its title, question and blocks (each with the sections it stands in, outermost first;
    charts' specs plain, with rows, table cells as typed). `draw` turns a spec into SVG (`chart_svg`, kept per
    spec). A chart that cannot be drawn leaves its sentence; past CLASS_VIEW_MAX_CHARTS or CLASS_VIEW_MAX_BYTES the
    largest drawings give way to theirs, so every page has a view that fits the store."""
    started = time.perf_counter()
    lang = lang or i18n.current().code
    draw = draw or chart_svg
    blocks = list(blocks)
    drawings: dict[int, str] = {}            # index of a chart block -> its SVG
    charts = 0
    for index, (_sections, block) in enumerate(blocks):
        if isinstance(block, paper.Chart):
            if charts >= limits.CLASS_VIEW_MAX_CHARTS:
                continue
            try:
                drawings[index] = draw(block.spec)
            except ValueError:
                continue
            charts += 1

    def assemble() -> tuple[Part, ...]:
        parts, challenges = [], []
        for index, (sections, block) in enumerate(blocks):
            if isinstance(block, paper.Challenge):
                challenges.append((sections, block))
                continue
            if challenges:
                parts.extend(_challenges(challenges))
                challenges = []
            parts.append(Part(tuple(sections), _block_html(block, drawings.get(index))))
        parts.extend(_challenges(challenges))
        return tuple(parts)

    view = ClassView(link, title, question, assemble(), len(drawings), lang=lang)
    while len(view.to_json().encode("utf-8")) > limits.CLASS_VIEW_MAX_BYTES and drawings:
        largest = max(drawings, key=lambda index: len(drawings[index]))
        del drawings[largest]                 # its sentence stands in its place
        view = ClassView(link, title, question, assemble(), len(drawings), lang=lang)
    if len(view.to_json().encode("utf-8")) > limits.CLASS_VIEW_MAX_BYTES:   # text alone too long: the head only
        view = ClassView(link, title, question, (Part((), f'<p class="tp-note">{_escape(_(TOO_LARGE))}</p>'),), 0)
    return ClassView(view.link, view.title, view.question, view.parts, view.charts,
                     (time.perf_counter() - started) * 1000, lang)


def unavailable(link: str, title: str, why: str) -> ClassView:
    """A view that says why the page has none (its making failed, or a page without a record such as home)."""
    return ClassView(link, title or _("The teacher's page"), "", (Part((), f'<p class="tp-note">{_escape(why)}</p>'),),
                     lang=i18n.current().code)


def _block_html(block: paper.Block, drawing: str | None) -> str:
    if isinstance(block, paper.Chart):
        summary = _inline(_summary(block.summary)) if block.summary else ""
        if drawing is None:
            return f'<p class="tp-note">{summary} ({_escape(_(TOO_LARGE))})</p>'
        return f'<figure>{drawing}<figcaption>{summary}</figcaption></figure>'
    if isinstance(block, paper.Formula):
        formula = "".join(f"<div>{_escape(line)}</div>" for line in plain(block.formula))
        numbers = "".join(f'<div class="tp-numbers">{_escape(line)}</div>' for line in plain(block.numbers))
        caption = f'<div class="tp-note">{_inline(block.caption)}</div>' if block.caption else ""
        return f'<div class="tp-formula">{formula}{numbers}{caption}</div>'
    if isinstance(block, paper.Table):
        return _table(block)
    if isinstance(block, paper.Code):
        others = (" " + _("(the page also shows it in {languages})", languages=", ".join(block.others))
                  if block.others else "")
        return (f"<details><summary>{_escape(_('The code ({language})', language=block.language))}"
                f"{_escape(others)}</summary>"
                f"<pre><code>{_escape(block.source.rstrip())}</code></pre></details>")
    if isinstance(block, paper.Text):
        return f"<h3>{_inline(block.text)}</h3>" if block.heading else f"<p>{_inline(block.text)}</p>"
    return ""


def _challenges(found: list) -> list[Part]:
    if not found:
        return []
    items = "".join(f"<li>{_inline(block.prompt)}</li>" for _sections, block in found)
    return [Part(tuple(found[0][0]), f"<h3>Try this</h3><ul>{items}</ul>")]


def _table(block: paper.Table) -> str:
    rows = block.rows[:limits.CLASS_VIEW_TABLE_ROWS]
    numeric = [bool(rows) and all(is_number(row[c]) for row in rows if c < len(row))
               for c in range(len(block.columns))]
    head = "".join(f"<th>{_escape(str(column))}</th>" for column in block.columns)
    body = "".join("<tr>" + "".join(f'<td{" class=tp-n" if c < len(numeric) and numeric[c] else ""}>'
                                     f"{_escape(str(cell))}</td>" for c, cell in enumerate(row)) + "</tr>"
                   for row in rows)
    more = (f'<p class="tp-note">... and {len(block.rows) - len(rows):,} more rows on the page.</p>'
            if len(block.rows) > len(rows) else "")
    return f'<div class="tp-table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}</div>'


# --- text: escaped, emphasis kept, nothing else ------------------------------------------------------------------

def _escape(text: str) -> str:
    return html.escape(str(text), quote=True)


def _inline(text: str) -> str:
    """A line of the page's Markdown as safe HTML: every character escaped, then only bold, italics and code spans
    made again (a link, an image, raw HTML or an icon of the text prints as the text itself, or not at all)."""
    text = re.sub(r":material/[a-z_]+:\s*", "", str(text))
    out = _escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"(\*\*|__)(.+?)\1", r"<strong>\2</strong>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", out)
    return out


def _summary(text: str) -> str:
    return text.replace("; the numbers are in the table under Data", "")



# --- charts as SVG ---------------------------------------------------------------------------------------------

SVG_CACHE: OrderedDict[str, str] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def view_spec(spec: dict) -> dict:
    """The spec as the view draws it: a chart that fills its column on the page gets CLASS_VIEW_CHART_PX (the
    screen that shows it scales it to its width)."""
    fits = isinstance(spec.get("autosize"), dict) and str(spec["autosize"].get("type", "")).startswith("fit")
    if spec.get("width") == "container" or (fits and isinstance(spec.get("width"), (int, float))):
        return spec | {"width": limits.CLASS_VIEW_CHART_PX, "_tp_stretch": True}
    return spec


def chart_svg(spec: dict, *, stretch: bool | None = None) -> str:
    """The chart as an <img> of its SVG drawing (a data URL: nothing fetched, nothing in it runs, and Streamlit's
    st.html keeps it, where it strips inline SVG), sized by a style that fits the screen's width; drawn once per spec
    (kept in SVG_CACHE). `stretch`: it fills the width of any screen (up to twice its size), whatever the spec's
    width (None: as view_spec decides). ValueError (a sentence) where it cannot be drawn."""
    from engine.charts import export

    key = hashlib.sha256(json.dumps([spec, stretch], sort_keys=True, default=str).encode()).hexdigest()
    with _CACHE_LOCK:
        if key in SVG_CACHE:
            SVG_CACHE.move_to_end(key)
            return SVG_CACHE[key]
    sized = view_spec(spec)
    fills = sized.pop("_tp_stretch", False)
    stretch = fills if stretch is None else stretch
    drawing = responsive(_cleaned(export.svg(sized).decode("utf-8")), stretch, alt=_summary(export.text.summary(spec)))
    with _CACHE_LOCK:
        SVG_CACHE[key] = drawing
        while len(SVG_CACHE) > SVG_CACHE_SIZE:
            SVG_CACHE.popitem(last=False)
    return drawing


def responsive(svg: str, stretch: bool, alt: str = "") -> str:
    """The SVG as an <img> whose style fits its column: the full width, at most twice its size where it filled a
    column on the page, else PROJECTOR_GROWTH times (text a room reads on a projector); a wide fixed chart (a
    heatmap) shrinks no further than CLASS_VIEW_MIN_CHART_PX and its figure scrolls sideways on a phone."""
    match = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"', svg)
    width, height = (float(match.group(1)), float(match.group(2))) if match else (limits.CLASS_VIEW_CHART_PX, 0.0)
    widest = (2 if stretch else PROJECTOR_GROWTH) * width
    narrowest = 0 if stretch else min(width, limits.CLASS_VIEW_MIN_CHART_PX)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    ratio = f"aspect-ratio:{width:g}/{height:g};" if height else ""
    return (f'<img class="tp-chart" src="data:image/svg+xml;base64,{data}" alt="{_escape(alt)}" '
            f'style="width:100%;max-width:{widest:.0f}px;min-width:{narrowest:.0f}px;{ratio}height:auto">')


def _cleaned(svg: str) -> str:
    """Vega's SVG with nothing a browser would run or fetch: no script or foreignObject, no on* handler, no link
    but a data URL or a reference inside the drawing."""
    svg = re.sub(r"<(script|foreignObject)\b.*?</\1\s*>", "", svg, flags=re.DOTALL | re.IGNORECASE)
    svg = re.sub(r"\son[a-z]+\s*=\s*(\"[^\"]*\"|'[^']*')", "", svg, flags=re.IGNORECASE)
    svg = re.sub(r'\s(xlink:)?href\s*=\s*"(?!data:image/|#)[^"]*"', "", svg, flags=re.IGNORECASE)
    return svg


# --- made beside the teacher's run ------------------------------------------------------------------------------

class ViewMaker:
    """Makes class views on one worker thread of the server process, so the teacher's run never waits for
    vl-convert: `submit` hands over what the page recorded and the store to keep the view in; the newest job of a
    class replaces one not yet begun; a view equal to the one stored last is not stored again (a rerun that changed
    nothing moves nobody)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._jobs: OrderedDict[str, tuple] = OrderedDict()    # code -> (store, key, link, title, question, blocks,
                                                               # the teacher's language)
        self._busy = False
        self._stored: dict[str, tuple[int, str]] = {}          # code -> (store, hash) of the view stored last
        self._thread: threading.Thread | None = None
        self.failures = 0

    def submit(self, store, code: str, key: str, link: str, title: str, question: str, blocks,
               lang: str | None = None) -> None:
        """`lang`: the teacher's language (the caller's, by default), which the view's own sentences are made in."""
        with self._lock:
            self._jobs[code] = (store, key, link, title, question, blocks, lang or i18n.current().code)
            self._jobs.move_to_end(code)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="class-views", daemon=True)
                self._thread.start()
            self._lock.notify_all()

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Wait until every submitted view is stored (tests, the bench); False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while self._jobs or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._jobs:
                    return
                code, job = self._jobs.popitem(last=False)
                self._busy = True
            try:
                self.make(code, *job)
            finally:
                with self._lock:
                    self._busy = False
                    self._lock.notify_all()

    def make(self, code: str, store, key: str, link: str, title: str, question: str, blocks,
             lang: str = i18n.SOURCE) -> None:
        with i18n.use(lang):   # this worker thread speaks the teacher's language while it makes the view
            try:
                view = (make_view(link, title, question, blocks, lang=lang) if blocks is not None else
                        unavailable(link, title, question))
            except Exception:      # a view that cannot be made says so; the teacher's page is untouched
                self.failures += 1
                view = unavailable(link, title, _("This page's class view could not be made: Explore from here to "
                                                  "open the page itself."))
        text = view.to_json()
        same = hashlib.sha256(ClassView(view.link, view.title, view.question, view.parts, view.charts, lang=view.lang)
                              .to_json().encode()).hexdigest()
        if self._stored.get(code) == (id(store), same):
            return
        try:
            store.put_view(code, key, text)
        except ValueError:     # the class ended, or the store is away: the next move tries again
            self.failures += 1
            return
        self._stored[code] = (id(store), same)
