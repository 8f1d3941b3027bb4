"""What one page hands another within a session, each declared once: a typed slot over one session key.

A page's own values live in its PageState (ui.url_state), under keys prefixed by the page. What crosses pages is
declared here instead, so the page that writes it and the pages that read it name the same slot and know what it
holds: `LIVE_MODEL.put(lm)` on one page, `LIVE_MODEL.get()` (None until then) on another. A class that moves a
student to a page opens it afresh and forgets the page's own values, never these.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

import streamlit as st

from engine.i18n import N_

if TYPE_CHECKING:
    from engine.transformer.language_model import TransformerLanguageModel

T = TypeVar("T")


class SessionSlot(Generic[T]):
    """One value a session hands between pages: its session key and, in words, what it holds."""

    def __init__(self, key: str, holds: str) -> None:
        self.key, self.holds = key, holds

    def get(self) -> T | None:
        """The value the session holds, None where no page has put one yet."""
        return st.session_state.get(self.key)

    def put(self, value: T) -> None:
        st.session_state[self.key] = value


LIVE_MODEL: SessionSlot[TransformerLanguageModel] = SessionSlot(
    "live_model", "the Block builder's latest finished run: Generate samples from it, Inside the model reads it")
BLOCK_RUNS: SessionSlot[list[dict]] = SessionSlot(
    "block_runs", "the Block builder's finished runs, at most limits.MAX_SAVED_RUNS (label, curves, configuration, "
                  "held-out rung): that page compares them, Generate puts their rungs on its ladder")

# Said where a page offers the live model before there is one: a session is one browser tab, so is the model.
LIVE_MODEL_NOTE = N_("Train a model on the Block builder page in this browser tab and it joins here as 'your live "
                   "model'. It lives in the tab that trained it: another tab, or a reload, starts without it.")
