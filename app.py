"""Transformer Playground: the chapter on attention and transformers, one page per idea.

Run with `streamlit run app.py`. Streamlit reads this file in two ways: it imports it to find `app`, the
`st.App` that serves our routes and middleware beside Streamlit's (ui/app_server.py), and it runs it as the
script of every rerun (`__main__`, as AppTest does too), which sets the page config, lists the pages in the
chapter's order and draws the home page. Every page stands on the `engine` package.
"""
from __future__ import annotations

import ui.server  # first, before numpy loads: BLAS threads, malloc arenas (see ui/server.py)

import streamlit as st  # noqa: E402

from pathlib import Path  # noqa: E402

from streamlit.runtime.scriptrunner_utils.exceptions import RerunException  # noqa: E402

from ui import app_server, classroom, door, language, recording, screen, shell, warmup  # noqa: E402
from ui.path import PATH  # noqa: E402
from engine.i18n import _  # noqa: E402

FAVICON = Path(__file__).resolve().parent / "assets" / "favicon.png"   # served by the app: nothing asks the web


def home() -> None:
    st.title("Transformer Playground")
    st.markdown(_(
        "Attention and the transformer, one idea per page, every number yours to change. "
        "Follow the path from top to bottom, or start anywhere."
    ))
    for group, ideas in PATH.items():
        st.subheader(_(group))
        for index, idea in enumerate(ideas):
            if idea.beyond and not (index and ideas[index - 1].beyond):
                st.caption(_(shell.BEYOND_THE_CHAPTER))
            label = (_("**{title}** (beyond the chapter): {line}", title=idea.title, line=idea.one_line) if idea.beyond
                     else _("**{title}**: {line}", title=idea.title, line=idea.one_line))
            st.page_link(idea.file, label=label, icon=idea.icon)
    st.caption(_("Runs offline: the corpus, word vectors and pretrained weights ship as Python packages."))


def main() -> None:
    """The script of every rerun: page config, navigation, the page, and what surrounds it."""
    language.choose()                      # ?lang=, else the browser's, else English (ui/language.py)
    st.set_page_config(page_title="Transformer Playground", page_icon=str(FAVICON), layout="wide")
    shell.styles()
    screen.report()                        # the browser tells the main column's width (ui/screen.py)
    pages = {group: [st.Page(i.file, title=i.title, icon=i.icon, url_path=i.url) for i in ideas]
             for group, ideas in PATH.items()}
    home_page = st.Page(home, title=_("Home"), icon=":material/home:", default=True)
    navigation = st.navigation({"Start": [home_page]} | pages, position="hidden")
    language.picker()                      # the languages by their own names; a pick keeps the page's settings
    shell.navigation(home_page, pages)     # the same groups as links (ui/shell.py says why)
    shell.projector_switch()
    warmup.prefetch("every page's first view")  # once per server, in the background (ui/warmup.py)
    for sentence in door.said_at_the_door():   # what the server refused for this tab (ui/door.py)
        st.warning(sentence, icon=":material/block:")
    try:
        classroom.above_page(navigation.url_path)   # a class's question or live view; nothing outside a class
        if classroom.page_runs():          # not for a follower: the class's box shows the teacher's page's view
            navigation.run()
        recording.finish()                   # what follows is not the page's: its handout record is complete
        classroom.sidebar()                # after the page: its link is the one a class follows
        shell.qr_code()                    # after the page: its link carries the settings it just mirrored
    except RerunException:                 # cut short by a newer run: that one says the door's sentences again
        raise
    except BaseException:
        door.said_and_shown()
        raise
    else:
        door.said_and_shown()
    finally:
        ui.server.return_freed_memory()


if __name__ == "__main__":
    main()
else:                                        # imported by `streamlit run app.py` to find its server
    app = st.App(__file__, routes=app_server.routes(), middleware=app_server.middleware(),
                 lifespan=app_server.lifespan())
