"""The reference for bench.browser: a trivial three-widget Streamlit page (what any Streamlit app
costs a browser round trip on this machine, with nothing of ours in it)."""
import streamlit as st

st.title("Trivial page")
on = st.toggle("A switch")
n = st.slider("A number", 0, 10, 3)
word = st.selectbox("A word", ["crane", "lake", "heron"])
st.write(f"switch {on}, number {n}, word {word}")
