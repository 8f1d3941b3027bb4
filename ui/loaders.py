"""One cached loader per heavy object, shared read-only by every session of the process."""
from __future__ import annotations

import streamlit as st


@st.cache_resource(show_spinner="Loading 400,000 GloVe word vectors ...")
def glove():
    """GloVe 6B 50-d (engine.embeddings.load_glove), one read-only copy for every session."""
    from engine.embeddings import load_glove

    return load_glove()


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


# --- the transformer: the shipped small model (issue 5) -------------------------------------
@st.cache_resource(show_spinner="Loading the shipped model (PyTorch) ...")
def shipped_model():
    """The small character-level model in assets/ (engine.shipped_heads.load_shipped), shared read-only."""
    from engine.shipped_heads import load_shipped

    return load_shipped()
