"""Transformer Playground: the chapter on attention and transformers, one page per idea.

Run with `streamlit run app.py`. This file only sets the page config, lists the pages in
the chapter's order and draws the home page; every page stands on the `engine` package.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st


@dataclass(frozen=True)
class Idea:
    file: str
    url: str
    title: str
    icon: str
    one_line: str


# The chapter's path, grouped as the chapter tells it. Each page adds itself here.
PATH: dict[str, list[Idea]] = {
    "Attention": [
        Idea("pages/context_window.py", "context", "Context: window vs attention", ":material/filter_center_focus:",
             "Average a fixed window around 'crane', then let relevance choose: which one reaches 'lake'?"),
        Idea("pages/attention_calculator.py", "attention", "Attention calculator", ":material/calculate:",
             "Edit every number of X, W_Q, W_K, W_V and follow scores, softmax and context step by step."),
        Idea("pages/multi_head.py", "multi-head", "Multi-head attention", ":material/view_week:",
             "h heads of width d/h, concatenated, times W_O: shapes at every step, and what it costs."),
    ],
    "The transformer": [
        Idea("pages/position.py", "position", "Position", ":material/format_list_numbered:",
             "Shuffle the words and attention shuffles its outputs, unchanged, until a positional encoding is added."),
    ],
}


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
navigation = st.navigation(
    {"Start": [st.Page(home, title="Home", icon=":material/home:", default=True)]}
    | {group: [st.Page(i.file, title=i.title, icon=i.icon, url_path=i.url) for i in ideas]
       for group, ideas in PATH.items()}
)
navigation.run()
