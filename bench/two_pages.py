"""A two-page Streamlit app with nothing of ours (st.navigation, two pages, one line each): what Streamlit itself
does when a page is opened by its link (tests/e2e/test_console.py: the console errors that are Streamlit's)."""
import streamlit as st


def first() -> None:
    st.write("The first page.")


def second() -> None:
    st.write("The second page.")


st.navigation([st.Page(first, title="First", default=True), st.Page(second, title="Second", url_path="second")]).run()
