"""Page anatomy shared by every concept page: header, engine calls, sections that rerun alone,
reading, next idea."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

import streamlit as st
from streamlit.errors import StreamlitAPIException, StreamlitPageNotFoundError

from engine import markup
from engine.chapter.spec import PageSpec
from engine.i18n import N_, _
from ui import language, recording

if TYPE_CHECKING:
    from ui.url_state import PageState

T = TypeVar("T")


def header(title: str | PageSpec, question: str | None = None) -> None:
    """Title and the one question the page answers, in the session's language: a page's spec (engine.chapter)
    gives both. A page file run alone (AppTest) chooses its language here; under app.py that was done already."""
    language.choose()
    if isinstance(title, PageSpec):
        title, question = _(title.title), question or _(title.question)
    st.title(title)
    st.markdown(f"##### {question}")
    recording.begin(title, question)


def run_engine(fn: Callable[..., T], *args, where=None, **kwargs) -> T | None:
    """Call an engine function; a ValueError becomes a sentence on the page, not a traceback.

    `where` is the container to write the error into (defaults to the current spot),
    so the message lands next to the input that caused it.
    """
    try:
        return fn(*args, **kwargs)
    except ValueError as error:
        show_error(str(error), where)
        return None


def show_error(sentence: str, where=None) -> None:
    """An engine's error sentence on the page: plain text, escaped whole (engine.markup), so nothing it quotes from
    the student's input (a `$x$`, a picture's address) is rendered as a formula, a link or a picture."""
    (where or st).error(markup.markdown(sentence), icon=":material/error:")


QR_SECTION = "app.qr"   # the sidebar's QR code (ui/shell.py): its link changes with every mirrored value
VEILED = "page.veiled"  # session: the parts of this page a class's open question veils (ui.classroom sets it)
VEIL_NOTE = N_(":material/visibility_off: **Veiled until the reveal.** This part of the page shows the answer to the "
              "class's question: predict first, then see it here.")


def veiled(key: str, note: bool = True) -> bool:
    """Whether a class's open question veils the part of this page named `key` (a section's key, or a part drawn
    outside one that gives the same answer away): then nothing of it is drawn, only a note in its place (`note`),
    until the teacher reveals the answer (ui.classroom)."""
    if key not in st.session_state.get(VEILED, ()):
        return False
    if note:
        st.container(border=True).markdown(_(VEIL_NOTE))
    return True


def section(key: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorate the part of a page that a few widgets change, so that only it reruns (`st.fragment`
    with a key that `only` names). Its body reads every value those widgets set through the page's state; what
    the last full run computed is handed to it as arguments (a rerun of the section alone calls it again with
    them). What it shows is recorded for the page's handout under its key (ui.recording), replaced each time it
    reruns. While a class's open question names it (`veiled`), it draws a note instead, until the reveal."""
    import functools

    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(body)
        def recorded(*args, **kwargs) -> None:
            with recording.section(key):
                if not veiled(key):
                    body(*args, **kwargs)
        return st.fragment(key=key)(recorded)
    return decorate


FOLDED = "folded."   # the session keys of folded expanders start so (tests open them all: tests/pages/conftest.py)


def folded(label: str, key: str, *, icon: str | None = None, expanded: bool = False):
    """An expander that tells whether it is open (`box.open`), so a page draws its contents only then:
    `box = page.folded(...)`, then `if box.open:` and `with box:`. Closed, it costs the browser nothing
    on a rerun (a closed expander's chart and tables were drawn on every change all the same); opening
    or closing it reruns its section, or the page outside one. `key` names it on its page."""
    return st.expander(label, expanded=expanded, key=FOLDED + key, icon=icon, on_change="rerun")


LINK_MOVED: list[Callable[[], None]] = []   # called when a widget's callback moved the page's link (ui.classroom's)


def when_the_link_moves(hook: Callable[[], None]) -> None:
    """Call `hook` each time a widget's callback (`only`) has mirrored a new value into the page's link: the class
    panel sends a following class there at once. Once per hook, however often it is asked."""
    if hook not in LINK_MOVED:
        LINK_MOVED.append(hook)


def only(state: PageState | None, *sections: str) -> Callable[[], None]:
    """A widget's on_change: mirror the page's state into the link, then rerun only these sections and
    the QR code, not the whole page (a browser redraws a few charts instead of every element). A whole
    run instead where the last run did not draw a section (bad input stopped it), or where the same
    interaction changed another widget too (a number typed, then a button clicked: the browser sends
    both at once, and a sections-only rerun would never draw what the click changed). The sections rerun
    in the order named: name them in page order (a later one may read what an earlier one computed)."""
    def rerun_sections() -> None:
        if state is not None:
            state.mirror()
            for hook in LINK_MOVED:     # ui.classroom: a class that follows this teacher moves now, not at a poll
                hook()
        if _widgets_changed() > 1:
            return                      # the interaction's whole run
        try:
            st.rerun([*sections, QR_SECTION])
        except StreamlitAPIException:   # not drawn last run (or no QR code: a page run on its own)
            try:
                st.rerun(list(sections))
            except StreamlitAPIException:
                return                  # the widget's usual whole run
    return rerun_sections


def _widgets_changed() -> int:
    """How many widgets the interaction being handled changed (Streamlit keeps no public count: this
    reads its session state's own comparison; 1 where that is not available)."""
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        widgets = get_session_state()._state
        return sum(1 for widget_id in widgets._new_widget_state if widgets._widget_changed(widget_id))
    except Exception:   # another Streamlit: sections as asked (tests/pages/test_sections.py notices)
        return 1


def upload_megabytes(limit_bytes: int) -> int:
    """A file_uploader's max_upload_size (whole MiB) for an engine limit in bytes: the browser refuses a file above
    it before sending it; the engine's sentence covers the sliver between the two."""
    return -(-limit_bytes // 2**20)


def further_reading(references: list[tuple[str, str]]) -> None:
    """The chapter's references for this idea, as links."""
    st.subheader(_("Further reading"))
    st.markdown("\n".join(f"- [{label}]({url})" for label, url in references))


def contents(parts: dict[str, str]) -> None:
    """A long page's table of contents: each part (anchor -> heading, set with st.subheader(..., anchor=...))
    as a link that scrolls to it."""
    st.markdown(_("**On this page:** {parts}", parts=" · ".join(f"[{heading}](#{anchor})"
                                                                  for anchor, heading in parts.items())))


def beyond_the_chapter(current_file: str) -> None:
    """A short note under the title of a page that goes beyond the chapter (ui.path.Idea.beyond)."""
    from ui.path import ideas

    idea = next((i for i in ideas() if Path(i.file).name == Path(current_file).name and i.beyond), None)
    if idea is not None:
        # a caption, not st.info: the bad-input sweep reads st.info / st.warning / st.error as a page's excuses
        st.caption(_(":material/explore: **Beyond the chapter.** {beyond}", beyond=idea.beyond))


def next_idea(current_file: str) -> None:
    """A link to the page after this one along the chapter (ui/path.py), or back home at the end."""
    from ui.path import following

    st.divider()
    idea = following(current_file)
    if idea is None:
        st.markdown(_("That is the end of the path. Pick any page in the sidebar to go back."))
        return
    try:
        st.page_link(idea.file, label=_("Next: {title}", title=idea.title), icon=":material/arrow_forward:")
    except StreamlitPageNotFoundError:  # run on its own (AppTest of one page): no navigation to link into
        st.markdown(_("Next: **{title}** (in the sidebar)", title=idea.title))
