"""One cached loader per heavy object, shared read-only by every session of the process."""
from __future__ import annotations

import streamlit as st


@st.cache_resource(show_spinner="Loading 400,000 GloVe word vectors ...")
def glove():
    """GloVe 6B 50-d (engine.embeddings.load_glove), one read-only copy for every session."""
    from engine.embeddings import load_glove

    return load_glove()
