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


def next_idea(current_file: str) -> None:
    """A link to the page after this one along the chapter (ui/path.py), or back home at the end."""
    from ui.path import following

    st.divider()
    idea = following(current_file)
    if idea is None:
        st.markdown("That is the end of the path. Pick any page in the sidebar to go back.")
        return
    try:
        st.page_link(idea.file, label=f"Next: {idea.title}", icon=":material/arrow_forward:")
    except StreamlitPageNotFoundError:  # run on its own (AppTest of one page): no navigation to link into
        st.markdown(f"Next: **{idea.title}** (in the sidebar)")
