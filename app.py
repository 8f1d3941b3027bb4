"""Transformer Playground: the chapter on attention and transformers, one page per idea.

Run with `streamlit run app.py`. This file only sets the page config, lists the pages in
the chapter's order and draws the home page; every page stands on the `engine` package.
"""
from __future__ import annotations

import ui.server  # first, before numpy loads: BLAS threads, malloc arenas (see ui/server.py)

import streamlit as st  # noqa: E402

from ui import warmup  # noqa: E402
from ui.path import PATH  # noqa: E402


def home() -> None:
    st.title("Transformer Playground")
    st.markdown(
        "Attention and the transformer, one idea per page, every number yours to change. "
        "Follow the path from top to bottom, or start anywhere."
    )
    for group, ideas in PATH.items():
        st.subheader(group)
        for idea in ideas:
            st.page_link(idea.file, label=f"**{idea.title}**: {idea.one_line}", icon=idea.icon)
    st.caption("Runs offline: the corpus, word vectors and pretrained weights ship as Python packages.")


st.set_page_config(page_title="Transformer Playground", page_icon=":material/hub:", layout="wide")
# On a phone, a chart, formula or table wider than the screen scrolls inside its own box instead of
# pushing the whole page sideways (heatmaps keep their cell size so the numbers stay readable).
st.html("<style>[data-testid='stVegaLiteChart'], [data-testid='stMarkdownContainer'] .katex-display"
        " { overflow-x: auto; overflow-y: hidden; max-width: 100%; }"
        " [data-testid='stMarkdownContainer'] table { display: block; overflow-x: auto; max-width: 100%; }</style>")
with st.sidebar:  # for every page, above the page's own settings
    # ui.charts.text_size reads the switch (not imported here: the home page does not need pyarrow)
    st.toggle("Projector: chart text at 16 px", key="app.projector",
              help="For a room: axis labels, titles and the numbers in the cells grow from 13 to 16 px.")
navigation = st.navigation(
    {"Start": [st.Page(home, title="Home", icon=":material/home:", default=True)]}
    | {group: [st.Page(i.file, title=i.title, icon=i.icon, url_path=i.url) for i in ideas]
       for group, ideas in PATH.items()}
)
warmup.prefetch("every page's first view")  # once per server, in the background (ui/warmup.py)
try:
    navigation.run()
finally:
    ui.server.return_freed_memory()
