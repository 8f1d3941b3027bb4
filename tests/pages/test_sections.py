"""ui.page.section and ui.page.only: a widget change reruns only the section it names, the link follows."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def sectioned_page() -> None:
    """A page with one section that its sidebar number reruns alone; a switch hides the section."""
    import streamlit as st

    from ui import page, url_state

    state = url_state.PageState("demo", url_state.Param("n", 1, url_state.between(0, 9)),
                                url_state.Param("hide", False, url_state.parse_bool))
    state.init()
    st.session_state["whole runs"] = st.session_state.get("whole runs", 0) + 1
    st.title("Demo")
    st.sidebar.number_input("n", 0, 9, key=state.key("n"), on_change=page.only(state, "demo.square"))
    st.sidebar.toggle("Hide the section", key=state.key("hide"))
    st.sidebar.toggle("Shout", key="demo.shout")
    st.header("LOUD" if st.session_state["demo.shout"] else "quiet")

    @page.section("demo.square")
    def square() -> None:
        st.markdown(f"n squared is {state['n'] ** 2}")

    if not state["hide"]:
        square()
    state.mirror()


def test_a_change_reruns_only_its_section_and_the_link_follows():
    at = AppTest.from_function(sectioned_page).run()
    assert [m.value for m in at.markdown] == ["n squared is 1"]
    at.sidebar.number_input(key="demo.n").set_value(3).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["n squared is 9"]     # the section, redrawn
    assert not at.title and not at.header                           # and nothing else was sent
    assert at.session_state["whole runs"] == 1                      # the page's body did not run again
    assert at.query_params["n"] == "3"                            # the link (and its QR code) follow
    at.run()                                                        # the whole page, as a browser keeps it
    assert at.title[0].value == "Demo" and [m.value for m in at.markdown] == ["n squared is 9"]


def test_a_section_the_last_run_did_not_draw_means_a_whole_run_not_a_traceback():
    at = AppTest.from_function(sectioned_page).run()
    at.sidebar.toggle(key="demo.hide").set_value(True).run()
    at.sidebar.number_input(key="demo.n").set_value(4).run()
    assert not at.exception
    assert at.title[0].value == "Demo" and not at.markdown
    assert at.query_params["n"] == "4"


def test_another_widget_changed_in_the_same_interaction_means_a_whole_run():
    """A number typed, then a switch clicked: the browser sends both at once. Only the number asks for
    its section; the switch's change must be drawn too."""
    at = AppTest.from_function(sectioned_page).run()
    at.sidebar.number_input(key="demo.n").set_value(5)
    at.sidebar.toggle(key="demo.shout").set_value(True)
    at.run()
    assert not at.exception
    assert at.header[0].value == "LOUD" and [m.value for m in at.markdown] == ["n squared is 25"]
    assert at.session_state["whole runs"] == 2
    assert at.query_params["n"] == "5"


def test_a_folded_box_draws_its_contents_only_while_open_and_stays_open():
    """ui.page.folded: the attention page's "Every matrix" and "Show the code" are labels only while closed
    (a closed box's chart, table and code were drawn on every change before); open, they hold the scores
    heatmap, the context table and the code, and stay open after the next change."""
    from tests.pages.conftest import ROOT, unfold

    at = AppTest.from_file(str(ROOT / "views" / "attention_calculator.py"), default_timeout=60).run()
    labels = [box.label for box in at.expander]
    assert {"Every matrix", "Show the code"} <= set(labels)
    # closed: the weights, their sweep over the sharpness, and the learning section's two lines
    assert not at.code and len(at.get("vega_lite_chart")) == 4
    tables_closed = len(at.table)
    unfold(at)
    assert not at.exception and at.code and "softmax" in at.code[0].value
    assert len(at.get("vega_lite_chart")) == 5 and len(at.table) == tables_closed + 1   # + scores, + context
    at.toggle(key="attention.causal").set_value(True).run()                # a sectioned change: still open
    assert not at.exception and "np.tril" in at.code[0].value
    assert len(at.get("vega_lite_chart")) == 3                             # the result section's: + scores
