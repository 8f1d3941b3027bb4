"""One cached loader per heavy object, shared read-only by every session of the process."""
from __future__ import annotations

import streamlit as st


# --- Beyond words (issue 7) -------------------------------------------------------------
BUNDLED_PICTURES = ("astronaut", "coffee", "chelsea", "camera", "rocket")


@st.cache_resource(show_spinner=False)
def bundled_picture(name: str):
    """One of scikit-image's pictures shipped inside its wheel (uint8 pixels); read-only, shared."""
    if name not in BUNDLED_PICTURES:
        raise ValueError(f"Unknown picture {name!r}; choose one of {', '.join(BUNDLED_PICTURES)}.")
    from skimage import data

    pixels = getattr(data, name)()
    pixels.setflags(write=False)
    return pixels
