"""Page anatomy shared by every concept page: header, engine calls, reading, next idea."""
from __future__ import annotations

from typing import Callable, TypeVar

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

T = TypeVar("T")


def header(title: str, question: str) -> None:
    """Title and the one question the page answers."""
    st.title(title)
    st.markdown(f"##### {question}")


def run_engine(fn: Callable[..., T], *args, where=None, **kwargs) -> T | None:
    """Call an engine function; a ValueError becomes a sentence on the page, not a traceback.

    `where` is the container to write the error into (defaults to the current spot),
    so the message lands next to the input that caused it.
    """
    try:
        return fn(*args, **kwargs)
    except ValueError as error:
        (where or st).error(str(error), icon=":material/error:")
        return None


def further_reading(references: list[tuple[str, str]]) -> None:
    """The chapter's references for this idea, as links."""
    st.subheader("Further reading")
    st.markdown("\n".join(f"- [{label}]({url})" for label, url in references))


def next_idea(page_file: str, label: str) -> None:
    """A link to the next page along the chapter."""
    st.divider()
    try:
        st.page_link(page_file, label=f"Next: {label}", icon=":material/arrow_forward:")
    except StreamlitPageNotFoundError:
        # The page runs on its own (AppTest.from_file) or the next page is not registered yet.
        st.markdown(f":material/arrow_forward: Next: {label}")
