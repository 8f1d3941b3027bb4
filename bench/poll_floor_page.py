"""Streamlit's own floor for bench.class_poll: a page whose only work is a timed fragment, at the class's
polling period, with nothing of ours in it.

    ?draw=0   the fragment draws nothing (the cheapest poll Streamlit can do)
    ?draw=1   the fragment draws one line of text (the least a poll that shows something costs)
"""
import streamlit as st

from engine.limits import CLASS_POLL_S

DRAW = st.query_params.get("draw", "0") == "1"


@st.fragment(run_every=CLASS_POLL_S)
def poll() -> None:
    if DRAW:
        st.markdown("Class ABCD2345: joined. The teacher's questions appear in this box.")


st.title("Polling floor")
poll()
