"""Streamlit's own floor for bench.browser --floor: what a page with nothing of ours costs a browser
when a section (a fragment) redraws a page's smallest possible result.

The link says what the page holds (each flag 0 or 1; `static` a number of blocks):
    ?chart=1      one 4 x 4 Vega-Lite heatmap, redrawn on every change
    ?image=1      the same heatmap as an SVG image drawn here (no Vega in the browser)
    ?formulas=1   two formulas whose numbers change
    ?table=1      a three-row table whose numbers change
    ?static=10    ten unchanging blocks above the section (a subheader, two paragraphs, a formula each:
                  40 elements, about what one of our pages holds outside its typical section)
No flag: a section of one line, as on the trivial page. The switch is labelled as the trivial page's,
so bench.browser changes it the same way.

A page's anatomy instead (bench/anatomy.py; bench.browser writes the link from what one of our pages sent):
    ?keep=heading:3,markdown:20&same=latex:4&changed=vega_lite_chart:1&whole=0&widget=sidebar.slider
draws that many elements of each kind: `keep` outside the section, `same` in it as they were, `changed` in
it with content that follows the switch (in the sidebar for `sidebar.` kinds). The title stands for one
kept heading, the switch for the page's changed widget (`widget`, a kind); with whole=0 the switch reruns
only the sections, as our pages' `ui.page.only` does, else the whole page. A kind this page cannot draw
is drawn as a paragraph (`STAND_INS` says which).
"""
import html
import sys
from collections import Counter
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # `streamlit run bench/floor_page.py`
from bench.anatomy import SIDEBAR, parse_counts  # noqa: E402

STATIC_BLOCKS_MAX = 40


def heatmap_values(on: bool) -> list[dict]:
    """A 4 x 4 grid of weights that differs with the switch."""
    return [{"query": q, "key": k, "weight": round(((q + 1) * (k + 2) * (3 if on else 5)) % 7 / 7, 3)}
            for q in range(4) for k in range(4)]


def heatmap_svg(on: bool) -> str:
    """The same grid as a plain SVG picture (grey levels, the weight in each cell)."""
    cells = []
    for row in heatmap_values(on):
        x, y, w = 20 + 40 * row["key"], 20 + 40 * row["query"], row["weight"]
        shade = int(255 - 200 * w)
        cells.append(f"<rect x='{x}' y='{y}' width='40' height='40' fill='rgb({shade},{shade},255)'/>"
                     f"<text x='{x + 20}' y='{y + 25}' font-size='13' text-anchor='middle'>{w:.2f}</text>")
    picture = f"<svg xmlns='http://www.w3.org/2000/svg' width='200' height='200'>{''.join(cells)}</svg>"
    return f"<img alt='A 4 by 4 heatmap of weights' src='data:image/svg+xml;utf8,{html.escape(picture)}'>"


def flag(name: str) -> int:
    try:
        return max(0, min(int(st.query_params.get(name, "0")), STATIC_BLOCKS_MAX))
    except ValueError:
        return 0


def value(on: bool, i: int) -> float:
    """A number for element i that follows the switch (the same number for a `same` element: on=False)."""
    return round(((i + 2) * (3 if on else 5)) % 11 / 11, 3)


def draw_element(kind: str, i: int, on: bool, key: str) -> None:
    """One element of a kind, numbered i, its numbers following `on`."""
    v = value(on, i)
    if kind == "heading":
        st.subheader(f"Part {i}: weights near {v}")
    elif kind == "latex":
        st.latex(rf"\alpha_{{{i}}} = [{v}, 0.3, {round(1 - v, 3)}]")
    elif kind == "vega_lite_chart":
        values = [dict(row, weight=round((row["weight"] + v) % 1, 3)) for row in heatmap_values(on)]
        st.vega_lite_chart({"data": {"values": values}, "mark": "rect",
                            "encoding": {"x": {"field": "key", "type": "ordinal"},
                                         "y": {"field": "query", "type": "ordinal"},
                                         "color": {"field": "weight", "type": "quantitative"}}}, width="content")
    elif kind == "html":
        cells = "".join(f"<td>{round((v + k / 10) % 1, 2)}</td>" for k in range(4))
        st.html(f"<table><tr><th>row {i}</th>{cells}</tr><tr><th>sum</th><td colspan='4'>1.0</td></tr></table>")
    elif kind == "table":
        st.table({"key": ["a", "b", "c"], "weight": [v, 0.3, round(0.7 - v, 3)]})
    elif kind == "dataframe":
        st.dataframe({"key": ["a", "b", "c"], "weight": [v, 0.3, round(0.7 - v, 3)]})
    elif kind == "code":
        st.code(f"weights = softmax(scores)  # row {i}: {v}")
    elif kind == "alert":
        st.info(f"Row {i} sums to one ({v} + {round(1 - v, 3)}).")
    elif kind == "metric":
        st.metric(f"Weight {i}", v)
    elif kind == "imgs":
        import numpy as np

        st.image((255 * ((v + np.add.outer(np.arange(8), np.arange(8)) / 8) % 1)).astype(np.uint8), width=64)
    elif kind == "progress":
        st.progress(v)
    elif kind == "empty":
        st.empty()
    elif kind == "page_link":
        st.page_link("https://arxiv.org/abs/1706.03762", label=f"Attention is all you need ({i})")
    elif kind in WIDGETS:
        WIDGETS[kind](f"{kind.capitalize()} {i} ({v})", key)
    else:   # markdown, and every kind with no drawer here (STAND_INS)
        st.markdown(f"Paragraph {i}: attention weights come from a softmax over scores; each **row** sums "
                    f"to one, here {v} and {round(1 - v, 3)}.")


WIDGETS = {
    "slider": lambda label, key: st.slider(label, 0, 10, 3, key=key),
    "selectbox": lambda label, key: st.selectbox(label, ["crane", "lake"], key=key),
    "radio": lambda label, key: st.radio(label, ["crane", "lake"], key=key, horizontal=True),
    "checkbox": lambda label, key: st.toggle(label, key=key),
    "button": lambda label, key: st.button(label, key=key),
    "text_input": lambda label, key: st.text_input(label, "the crane by the lake", key=key),
    "text_area": lambda label, key: st.text_area(label, "the crane by the lake", key=key),
    "number_input": lambda label, key: st.number_input(label, value=3, key=key),
    "multiselect": lambda label, key: st.multiselect(label, ["crane", "lake"], ["crane"], key=key),
}
ELEMENTS = {"heading", "latex", "vega_lite_chart", "html", "table", "dataframe", "code", "imgs", "alert", "metric",
            "progress", "empty", "page_link", "markdown", *WIDGETS}
BLOCKS = {"flex_container", "column", "expandable"}


def stand_in(kind: str) -> str:
    """The kind this page draws for a kind: itself, or a paragraph / an empty container where it has no drawer."""
    bare = kind.removeprefix(SIDEBAR)
    if bare in ELEMENTS or bare in BLOCKS:
        return kind
    from bench.anatomy import BLOCKS as ALL_BLOCKS

    return kind.replace(bare, "flex_container" if bare in ALL_BLOCKS else "markdown")


def draw(counts: Counter, on: bool, region: str, first: int) -> None:
    """Every element and block of `counts` (kinds without the sidebar prefix), in the current container:
    columns in as many rows as there are flex containers (a row of columns is one), formulas placed in the
    columns round robin (a formula beside its numbers), expanders closed and empty (our pages draw a folded
    box's contents only when it is open), other containers empty."""
    columns: list = []
    rows = min(max(counts["flex_container"], 1), counts["column"])   # each row of columns is a flex container
    for row in range(rows):
        columns += st.columns(counts["column"] // rows + (row < counts["column"] % rows))
    for _ in range(counts["flex_container"] - rows):
        st.container()
    for box in range(counts["expandable"]):
        st.expander(f"Folded box {box + 1}")
    i = first   # numbers go on across regions: two charts alike would be one element to Streamlit
    for kind in sorted(set(counts) - BLOCKS):
        for _ in range(counts[kind]):
            i += 1
            if kind == "latex" and columns:
                with columns[i % len(columns)]:
                    draw_element(kind, i, on, f"floor.{region}.{kind}.{i}")
            else:
                draw_element(kind, i, on, f"floor.{region}.{kind}.{i}")


def split(counts: Counter) -> tuple[Counter, Counter]:
    """(main area, sidebar) counts, each by bare kind, every kind replaced by its stand-in."""
    main, side = Counter(), Counter()
    for kind, n in counts.items():
        kind = stand_in(kind)
        (side if kind.startswith(SIDEBAR) else main)[kind.removeprefix(SIDEBAR)] += n
    return main, side


SECTIONS = ("floor.main", "floor.sidebar")


def rerun_sections() -> None:
    """The switch's on_change with whole=0: rerun only the sections that exist, as ui.page.only does."""
    st.rerun([key for key, counts in zip(SECTIONS, st.session_state["floor.redrawn"]) if counts])


def anatomy_page() -> None:
    """The page for an anatomy link (see the module's docstring)."""
    keep, same, changed = (parse_counts(st.query_params.get(name, "")) for name in ("keep", "same", "changed"))
    whole = st.query_params.get("whole", "0") == "1"
    widget = st.query_params.get("widget", "checkbox")
    keep["heading"] -= 1                                   # the title
    next((c for c in (keep, same, changed) if c[widget] > 0), keep)[widget] -= 1   # the switch
    if not whole:   # each section is a container of its own (drawn again as it was, as a rule)
        for where, region in zip(("", SIDEBAR), split(same + changed)):
            if region:
                (same if same[where + "flex_container"] > 0 else changed)[where + "flex_container"] -= 1
    keep, same, changed = (+counts for counts in (keep, same, changed))   # drops what fell to zero or below
    in_sidebar = widget.startswith(SIDEBAR)
    st.title("Streamlit's floor")
    (st.sidebar if in_sidebar else st).toggle(CHANGES_LABEL, key="floor.switch",
                                             on_change=None if whole else rerun_sections)
    kept_main, kept_side = split(keep)
    same_main, same_side = split(same)
    changed_main, changed_side = split(changed)
    st.session_state["floor.redrawn"] = (same_main + changed_main, same_side + changed_side)
    draw(kept_main, False, "keep", 2000)
    with st.sidebar:
        draw(kept_side, False, "keep.sidebar", 3000)

    def section(same_part: Counter, changed_part: Counter, region: str) -> None:
        first = 0 if region == "main" else 5000
        draw(same_part, False, region + ".same", first)
        draw(changed_part, st.session_state["floor.switch"], region + ".changed", first + 1000)

    if whole:
        section(same_main, changed_main, "main")
        with st.sidebar:
            section(same_side, changed_side, "sidebar")
        return
    if same_main + changed_main:
        st.fragment(key=SECTIONS[0])(section)(same_main, changed_main, "main")
    if same_side + changed_side:
        with st.sidebar:
            st.fragment(key=SECTIONS[1])(section)(same_side, changed_side, "sidebar")


CHANGES_LABEL = "A switch"


if any(name in st.query_params for name in ("keep", "same", "changed")):
    anatomy_page()
    st.stop()

st.title("Streamlit's floor")
for block in range(flag("static")):
    st.subheader(f"Part {block + 1}")
    st.markdown(f"Paragraph {block + 1}: attention weights come from a softmax over scores; each **row** sums to one.")
    st.markdown(f"Another paragraph with *emphasis* and a [link](https://arxiv.org/abs/1706.03762), part {block + 1}.")
    st.latex(r"\alpha_{ij} = \frac{\exp(s_{ij})}{\sum_k \exp(s_{ik})}")


@st.fragment
def section() -> None:
    on = st.toggle("A switch")
    if flag("chart"):
        st.vega_lite_chart({"data": {"values": heatmap_values(on)}, "mark": "rect",
                            "encoding": {"x": {"field": "key", "type": "ordinal"},
                                         "y": {"field": "query", "type": "ordinal"},
                                         "color": {"field": "weight", "type": "quantitative"}}}, width="content")
    if flag("image"):
        st.html(heatmap_svg(on))
    if flag("formulas"):
        st.latex(rf"\alpha = [{0.1 if on else 0.2}, 0.3, {0.6 if on else 0.5}]")
        st.latex(rf"c = [{0.4 if on else 0.5}, 0.3, 0.6]")
    if flag("table"):
        st.table({"key": ["a", "b", "c"], "weight": [0.1 if on else 0.2, 0.3, 0.6 if on else 0.5]})
    if not any(flag(name) for name in ("chart", "image", "formulas", "table")):
        st.write(f"switch {on}")


section()
