"""The room's screen, read by every part that draws: whether this session is in projector mode (the sidebar's
switch, first set from `?present=1`), its type size, and the QR code that takes a link to a phone. It imports
nothing of ui, so a chart, a matrix and the class panel can all stand on it (ui/shell.py draws the switch).
"""
from __future__ import annotations

import functools

import streamlit as st

from ui.url_state import PRESENT_PARAM

PROJECTOR_KEY = "app.projector"   # session: projector mode on (ui.shell's switch); ui.charts and ui.matrix read it
PROJECTOR_ROOT_PX = 20            # projector mode's root type (Streamlit's is 16 px): ui.matrix sizes its boxes by it


def projector_on() -> bool:
    """Projector mode for this session: the switch, first set from ?present=1 when a link carries it."""
    if PROJECTOR_KEY not in st.session_state:
        st.session_state[PROJECTOR_KEY] = st.query_params.get(PRESENT_PARAM) == "1"
    return bool(st.session_state[PROJECTOR_KEY])


@functools.lru_cache(maxsize=256)
def qr_svg(link: str) -> str:
    """An SVG data URL of the link's QR code (segno, offline; error correction M survives a smudge)."""
    import segno

    return segno.make(link, error="m").svg_data_uri(scale=4, border=2)
