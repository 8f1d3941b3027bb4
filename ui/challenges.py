"""'Try this': small challenges the page checks automatically against the current result.

A challenge carries what its hint tells a student to do in a form a machine can follow: `solution`, a link
query of its page (`{"k": "3"}`) that opens the page with the hint applied. The hint must say those values
(tests/pages/test_challenges.py opens every page with every challenge's solution and sees it done, and sees
none done on the page's first view).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from engine.charts import handout as paper_handout
from engine.i18n import _
from ui import recording

SHOWN = "_challenges_shown"   # session key: {prompt: (done, solution, hint)} of every challenge drawn (tests read it)


@dataclass(frozen=True)
class Challenge:
    prompt: str
    done: bool
    hint: str = ""
    solution: dict[str, str] | None = field(default=None, compare=False)  # a link query that completes it


def try_this(challenges: list[Challenge]) -> None:
    """List the challenges with a tick for each one the current state already meets."""
    st.subheader(_("Try this"))
    st.session_state.setdefault(SHOWN, {}).update({c.prompt: (bool(c.done), c.solution, c.hint) for c in challenges})
    for challenge in challenges:
        recording.add(paper_handout.Challenge(challenge.prompt, bool(challenge.done), challenge.hint))
        icon = ":material/check_circle:" if challenge.done else ":material/radio_button_unchecked:"
        st.markdown(f"{icon} " + (_("{prompt} **Done.**", prompt=challenge.prompt) if challenge.done
                                   else challenge.prompt))
        if challenge.hint and not challenge.done:
            st.caption(_("Hint: {hint}", hint=challenge.hint))
