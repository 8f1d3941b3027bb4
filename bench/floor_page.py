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
"""
import html

import streamlit as st

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
