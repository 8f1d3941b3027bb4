"""'Try this': small challenges the page checks automatically against the current result."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st


@dataclass(frozen=True)
class Challenge:
    prompt: str
    done: bool
    hint: str = ""


def try_this(challenges: list[Challenge]) -> None:
    """List the challenges with a tick for each one the current state already meets."""
    st.subheader("Try this")
    for challenge in challenges:
        icon = ":material/check_circle:" if challenge.done else ":material/radio_button_unchecked:"
        status = " **Done.**" if challenge.done else ""
        st.markdown(f"{icon} {challenge.prompt}{status}")
        if challenge.hint and not challenge.done:
            st.caption(f"Hint: {challenge.hint}")
