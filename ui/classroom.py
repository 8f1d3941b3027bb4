"""Class mode in the app: predict, vote and reveal with the whole room (app.py draws it around every page).

- Who is who: the browser. The app's signed, HttpOnly cookie (ui.app_server) gives every browser an id; a student
  is their browser (every tab, a reload, another server process: one student, the same answers) and a teacher is
  the browser that started the class, so a reload, another page or another process is still the teacher (the
  session finds the class again: `_find_my_class`). No link carries an identity; another device becomes a teacher
  only with a teacher link, shown in the teacher's own panel and never while projecting or in a QR code. Without
  the cookie (AppTest, a browser that refuses cookies) the id lasts one session.
- The teacher starts a class in the sidebar ("Class"): a code, its join link and QR code for the projector.
- Students join by the link (`?class=CODE`, what the QR code opens) or by typing the code.
- Above the page: the student's question (answer, "answer received", the reveal), or the teacher's live
  view (joined, answered, the histogram), each a fragment, and only in a class: a page outside a class asks nothing.
  A student's is told (ui.class_events: a listener parked on the class's events route; when the class's version
  moves it draws the open question, takes the answer, draws the reveal and shows a follower's view itself, with no
  rerun (ui.class_live), and reruns the fragment for the rest: the class's end, a page's own veils; where the
  route cannot be reached, the fragment polls on a timer and draws it all with Streamlit's widgets); the teacher's
  live view polls with `st.fragment(run_every=...)` (one session). A student's poll reads the class's version (one
  small read) and the whole state only when the version moved (the teacher acted); its section redraws what it drew.
- "Everyone follow me": the teacher's page link (path and query) goes to the store on each change: at the start
  of the teacher's run, before the page draws (the values its PageState will hold), and again once the page
  mirrored them (only if they differ); a settings change in a section of the page goes from its callback. A
  student who turned "Follow the teacher" on is moved to it at their next poll, and opens it as a first visit
  would (the link's values win over what the student had on that page). A move counts as done only when the
  student's next run is on the link's page: a move that got lost (a rerun the browser asked for at the same
  moment, carrying the old page) is made again at the next poll.
- A lesson (engine.chapter.lesson): scenes, each a page link and its question, stepped with next and
  previous.

The store (engine.classroom.store) enforces every rule; its ValueError sentences are shown with st.error.
"""
from __future__ import annotations

import functools
import html
import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import streamlit as st

from engine import i18n, limits, markup, numbers
from engine.classroom import identity, live
from engine.classroom.chart import answers_chart
from engine.classroom.events import status_of
from engine.classroom.store import ClassState, Question, SharedVersions, summary_csv
from engine.classroom.stores import open_store
from engine.i18n import _, ngettext, pgettext
from ui import app_server, class_events, class_live, page, recording, url_state
from ui.page import show_error
from ui.projector import projector_on, qr_svg
from ui.url_state import CLASS_PARAM, LANG_PARAM, PRESENT_PARAM, TEACH_PARAM

md = markup.markdown   # a question, its options and explanation are plain text (a teacher may type them)


def isolated(text: str) -> str:
    """An option or a token set inside a sentence of a right-to-left language, isolated (U+2068 ... U+2069) so that
    its own direction ("3: lake") does not reorder the sentence around it; as it is elsewhere."""
    return f"\u2068{text}\u2069" if i18n.current().direction == "rtl" else text

SESSION_BROWSER = "class.session_browser"   # an id for this session alone, where the browser sent no cookie
LOOKED_UP = "class.looked_up"      # this session asked the store once which class its browser teaches
JOINED = "class.joined"            # the code this session joined as a student
TEACHER = "class.teacher"          # (code, credential) of the class this browser teaches: never in a link
TOUCHED = "class.touched"          # when the teacher's screen last told the store it is there (time.monotonic)
TEACHER_LINK = "class.teacher_link"   # (code, link) the teacher made for another device: shown to them alone
FOLLOW = "class.follow"            # the student's switch: go where the teacher goes
SEEN = "class.seen"                # the teacher's link version this student last followed (and arrived at)
MOVING = "class.moving"            # (link version, url path) of the move under way: done once a run is there
LEAD = "class.lead"                # the teacher's switch: everyone follow me
PUBLISHED = "class.published"      # the link the teacher last published
PAGE = "class.page"                # this run's page url path (the fragments run without the navigation)
ERROR = "class.error"              # a store's sentence from a callback, shown once
ASKABLE = "class.askable"          # {link: [Question]} the page's questions built for the teacher
SUMMARY = "class.summary"          # the ended class's summary (list of QuestionSummary)
MY_VOTE = "class.my_vote"          # {(code, question, round): option}: this student's answers
SHOW_JOIN = "class.show_join"      # the teacher's switch: the join code big above the page
COUNTS = "class.counts"            # {(code, question, round): counts} read after the reveal (they no longer change)
TOLD = "class.told"                # the listener's trigger ran: the version moved (ui.class_events)
FALLBACK = "class.fallback"        # the listener cannot reach the events route: the fragment polls on its timer
SWITCH = "class.switch"            # the fallback began or ended: a whole run sets the fragment's timer
EXPLORE_ASKED = "class.explore_asked"   # the listener's Explore from here was pressed: the fragment's rerun opens it
OPEN_ASKED = "class.open_asked"    # the listener's "Open the page as it was asked" (a reveal) was pressed: likewise
VIEW = "class.view"                # (code, version, ClassState) the student's page last read: a poll that finds the
                                   # same version reuses it (one small read instead of the whole state)
HIDDEN_PARAMS = (PRESENT_PARAM, CLASS_PARAM, TEACH_PARAM, LANG_PARAM)   # not part of the link a class follows: each
                                   # student keeps their own language (a question reads in it: Question.read)
BEFORE_PAGE = "class.before_page"  # set while the teacher's live view draws above a page that has not run yet
STATE_OF: dict[str, str] = {}      # url path -> the PageState its page declares (learnt from runs of this process)


@st.cache_resource(show_spinner=False)
def class_store():
    """One store per server process (SQLite in the data folder, or Redis: engine.classroom.stores.open_store)."""
    return open_store()


@st.cache_resource(show_spinner=False)
def shared_versions() -> SharedVersions:
    """The class versions this process's student polls read, one store read per class per CLASS_VERSION_SHARE_S."""
    return SharedVersions(class_store())


def _call(method: str, *args, where=None, **kwargs):
    """A store call; its ValueError becomes the sentence on the page (st.error), never a traceback."""
    try:
        return getattr(class_store(), method)(*args, **kwargs)
    except ValueError as error:
        show_error(str(error), where)
        return None


def _remember_error(method: str, *args, **kwargs):
    """A store call from a callback: its sentence is kept and shown on the run that follows."""
    try:
        return getattr(class_store(), method)(*args, **kwargs)
    except ValueError as error:
        st.session_state[ERROR] = str(error)
        return None


def _show_error() -> None:
    message = st.session_state.pop(ERROR, None)
    if message:
        show_error(message)


def browser() -> str:
    """This browser's id: the app's signed cookie, else an id for this session alone (AppTest, or a browser that
    refuses cookies: there a reload is a new student, and a teacher's reload loses the class)."""
    found = app_server.browser_id()
    if found is None:
        found = st.session_state.setdefault(SESSION_BROWSER, identity.new_id())
    return found


def student_id() -> str:
    """This browser as a student: every tab of it, a reload and another server process are one student."""
    return identity.student_id(browser())


def teacher_credential() -> str:
    """What this browser shows the store to act as the teacher of the classes it started (or claimed)."""
    return identity.teacher_credential(browser())


def teaching() -> tuple[str, str] | None:
    return st.session_state.get(TEACHER)


def _teach(code: str) -> None:
    """This session teaches class `code` from now on (never also a student of a class)."""
    st.session_state[TEACHER] = (code, teacher_credential())
    for name in (JOINED, SEEN, MY_VOTE, COUNTS, VIEW, SUMMARY):
        st.session_state.pop(name, None)


def _find_my_class() -> None:
    """Once per session, where the browser has its id: the open class this browser teaches, if any, so a reload,
    a new tab or another server process is still its teacher (one small store read per session)."""
    if teaching() or st.session_state.get(LOOKED_UP) or app_server.browser_id() is None:
        return
    st.session_state[LOOKED_UP] = True
    try:
        code = class_store().teacher_class(teacher_credential())
        state = class_store().state(code) if code else None
    except ValueError:                 # the store is away: a plain visitor's page, said nowhere
        return
    if state is not None and not state.ended:
        _teach(code)


def _claim_from_link() -> None:
    """A teacher link (?class=CODE&teach=KEY) opened on another device: this browser becomes a teacher of the class.
    The key leaves the address bar at once (so it is never in a QR code, a copied link or the history's next
    page); a wrong key is a sentence."""
    key = st.query_params.get(TEACH_PARAM)
    if key is None:
        return
    del st.query_params[TEACH_PARAM]
    code = st.query_params.get(CLASS_PARAM, "")
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]
    state = _call("claim", code, key, teacher_credential())
    if state is not None:
        _teach(state.code)


def page_values() -> dict[str, str]:
    """The page's link values (what its PageState mirrored), without the app's own parameters."""
    return {name: value for name, value in st.query_params.to_dict().items() if name not in HIDDEN_PARAMS}


def link_of(path: str, values: dict[str, str]) -> str:
    """A link as a class follows and compares it: 'attention?causal=1&x=...' (its values in name order, so two
    links with the same values are the same text)."""
    query = urlencode(sorted(values.items()))
    return path + (f"?{query}" if query else "")


def page_link() -> str:
    """This page as a class follows it: 'attention?causal=1&x=...'."""
    return link_of(st.session_state.get(PAGE, ""), page_values())


def early_link(url_path: str) -> str | None:
    """The link this run's page will mirror, known before it runs: the values its PageState's `init` will give
    (None where this process has not run the page yet, so its state is not known)."""
    if url_path not in STATE_OF:
        return None
    state = url_state.DECLARED.get(STATE_OF[url_path]) if STATE_OF[url_path] else None
    return link_of(url_path, state.link_values() if state is not None else {})


def join_link(code: str, teacher_key: str | None = None) -> str:
    """The app's address with ?class=CODE (the QR code's link), or a teacher link with the key as well; a relative
    one outside a browser."""
    try:
        parts = urlsplit(st.context.url or "")
    except Exception:
        parts = urlsplit("")
    query = urlencode({CLASS_PARAM: code} | ({TEACH_PARAM: teacher_key} if teacher_key else {}))
    return urlunsplit((parts.scheme, parts.netloc, "/", query, "")) or f"/?{query}"


def _page_file(url: str) -> str | None:
    from ui.path import ideas

    if url == "":
        return "app.py"
    return next((idea.file for idea in ideas() if idea.url == url), None)


def _open_afresh(url_path: str) -> None:
    """This run's page opens its link as a first visit would: every value the link does not name at its default,
    whatever this session held there before (a scene, a followed teacher). Said before the page runs; the values
    are dropped at once where this process knows the page's state, so the link published early is the page's."""
    declared = STATE_OF.get(url_path)
    state = url_state.DECLARED.get(declared) if declared else None
    if state is not None:
        state.forget()
    url_state.open_afresh()


def _arrived(link: str, url_path: str) -> bool:
    """Whether this run is on `link`: its page, with every value the link names."""
    path, _, query = link.partition("?")
    return path == url_path and all(st.query_params.get(name) == value
                                    for name, value in parse_qsl(query, keep_blank_values=True))


def go_to(link: str, code: str | None) -> None:
    """Open 'page?query' (a followed link, a question's page), keeping the class in the link."""
    path, _mark, query = link.partition("?")
    file = _page_file(path)
    if file is None:
        show_error(_("There is no page called '{path}'.", path=path))
        return
    params = dict(parse_qsl(query, keep_blank_values=True))
    if code:
        params[CLASS_PARAM] = code
    for kept in (PRESENT_PARAM, LANG_PARAM):       # projector mode and this reader's language stay, page after page
        if st.query_params.get(kept):
            params[kept] = st.query_params[kept]
    st.switch_page(file, query_params=params)


# --- joining -----------------------------------------------------------------------------------

def join(code: str) -> None:
    """Join as a student (the typed code or the link's); the store's sentence on a bad code."""
    state = _call("join", code.strip().upper(), student_id(), address=app_server.client_address())
    if state is not None:
        st.session_state[JOINED] = state.code
        st.session_state.setdefault(FOLLOW, True)
        st.query_params[CLASS_PARAM] = state.code


def _join_from_link() -> None:
    code = st.query_params.get(CLASS_PARAM)
    if code and not teaching() and st.session_state.get(JOINED) != code.strip().upper():
        join(code)
        if st.session_state.get(JOINED) is None and CLASS_PARAM in st.query_params:
            del st.query_params[CLASS_PARAM]   # a bad code is said once, not on every run


# --- what app.py calls ---------------------------------------------------------------------------

def above_page(url_path: str) -> None:
    """Before the page: join by the link, then the student's question or the teacher's live view (both poll
    the store only while in a class). The teacher's link goes out now, before the page draws; a student's move
    to the teacher's page is done once a run is on that page (then the page opens the link afresh)."""
    st.session_state[PAGE] = url_path
    url_state.start_run()
    url_state.end_afresh()
    _claim_from_link()
    _find_my_class()
    if teaching():
        _open_scene(url_path)          # a lesson's next or previous scene, before this page draws anything
    moving = st.session_state.pop(MOVING, None)
    if moving is not None and moving[1] == url_path and st.session_state.get(JOINED):
        st.session_state[SEEN] = moving[0]
        _open_afresh(url_path)         # the teacher's values, not what this student had on the page
    if teaching() and st.session_state.get(LEAD, True):
        link = early_link(url_path)
        if link is not None:
            _publish(link)
    _join_from_link()
    lesson_bar()                       # before the page: a press during a heavy page's run is not lost
    _veil(url_path)                    # the parts of the page the class's open question veils, before it draws
    _show_error()
    if st.session_state.get(SUMMARY) is not None:
        _summary()
    if teaching():
        st.session_state[BEFORE_PAGE] = True   # the link holds the last page's values until this page mirrors
        try:
            _teacher_live()
        finally:
            st.session_state.pop(BEFORE_PAGE, None)
    elif st.session_state.get(JOINED):
        # the box and its first line are drawn once by the page's run; each poll redraws only what is below it,
        # and while no question is open that is nothing (Streamlit's cheapest poll)
        with st.container(border=True, key="class_student"):
            st.markdown(_(":material/groups: **Class {code}**: joined. The teacher's questions appear in this box.",
                          code=st.session_state[JOINED]))
            _student_fragment()
        _back_to_following()


def sidebar() -> None:
    """After the page (its link mirrored): the class panel in the sidebar; the teacher's link published."""
    url_state.end_afresh()             # a page without a PageState did not take it
    declared = url_state.declared_this_run()
    STATE_OF[st.session_state.get(PAGE, "")] = declared.page if declared is not None else ""
    with st.sidebar.container(key="class_panel"):
        st.markdown(_("**Class**"))
        if teaching():
            _teacher_panel()
            publish_link()
            leave_view()
        elif st.session_state.get(JOINED):
            _student_panel()
        else:
            _start_or_join()


# --- the student -----------------------------------------------------------------------------------

def _start_or_join() -> None:
    with st.form("class_join", border=False, enter_to_submit=True):
        code = st.text_input(_("Class code"), max_chars=limits.CLASS_CODE_CHARS + 4, placeholder="K7QM2XPA",
                             help=_("The code your teacher shows; or scan the teacher's QR code."))
        if st.form_submit_button(_("Join the class"), icon=":material/group_add:") and code.strip():
            join(code)
            if st.session_state.get(JOINED):
                st.rerun()
    if st.button(_("Start a class (teacher)"), icon=":material/co_present:", key="class_start",
                 help=_("A class code, its link and QR code for the projector; this browser keeps the teacher key.")):
        made = _call("create_class", teacher_credential(), app_server.client_address())
        if made is not None:
            _teach(made[0])
            st.rerun()


def _student_panel() -> None:
    code = st.session_state[JOINED]
    st.caption(_("You are in class {code}. Nobody sees who you are: your answers carry a random number only.",
                 code=code))
    # the switch's value from this session, sent with it on every run: a browser that drew a new page may have
    # dropped the switch's state and would otherwise show (and send back) its default, off
    st.session_state[FOLLOW] = st.session_state.get(FOLLOW, True)
    st.toggle(_("Follow the teacher"), key=FOLLOW, on_change=_follow_switched,
              help=_("On: this screen shows the teacher's page as it moves (within about 2 s). Off: explore on your "
                     "own; switch it on again to come back."))
    if st.button(_("Leave the class"), icon=":material/logout:", key="class_leave"):
        for name in (JOINED, SEEN, MY_VOTE, COUNTS, VIEW):
            st.session_state.pop(name, None)
        if CLASS_PARAM in st.query_params:
            del st.query_params[CLASS_PARAM]
        st.rerun()


def _follow_switched() -> None:
    st.session_state.pop(SEEN, None)   # on again: go to where the teacher is now


def _vote(code: str, question_id: int, round_: int, key: str) -> None:
    option = st.session_state.get(key)
    if option is None:
        return
    try:
        class_store().vote(code, student_id(), question_id, round_, int(option))
    except ValueError as error:        # refused, not counted: the sentence shows on the next run
        st.session_state[ERROR] = str(error)
        return
    # counted: "answer received", whatever another callback of the same run left in ERROR (vote returns None,
    # so its result cannot tell a counted vote from a refused one)
    st.session_state.setdefault(MY_VOTE, {})[(code, question_id, round_)] = int(option)


def _my_vote(code: str, state: ClassState) -> int | None:
    """This student's answer to the current round: remembered here, read from the store once (a reload)."""
    mine = st.session_state.setdefault(MY_VOTE, {})
    slot = (code, state.question_id, state.round)
    if _draws():                       # the listener votes by the route: the store holds the answer, not this session
        try:
            return class_store().my_vote(code, student_id(), state.question_id, state.round)
        except ValueError:
            return None
    if slot not in mine:
        try:
            mine[slot] = class_store().my_vote(code, student_id(), state.question_id, state.round)
        except ValueError:
            mine[slot] = None
    return mine[slot]


def _student_fragment() -> None:
    """The student's part of the class box, a fragment. Told (ui.class_events, the default): no timer; the listener
    in it reruns it when the class's version moves. Where the events route cannot be reached, or with
    PLAYGROUND_CLASS_TRANSPORT=poll: it polls on its timer (every CLASS_FALLBACK_POLL_S, or CLASS_POLL_S)."""
    if not class_events.pushing():
        period = limits.CLASS_POLL_S
    elif st.session_state.get(FALLBACK):
        period = limits.CLASS_FALLBACK_POLL_S
        st.caption(_(":material/sync_problem: This page cannot reach the class's events, so it asks for news every "
                     "{seconds} s instead: the teacher's questions may take that long to appear.",
                     seconds=numbers.localized(f"{limits.CLASS_FALLBACK_POLL_S:g}")))
    else:
        period = None
    st.fragment(_student_live, run_every=period)()


def _told() -> None:
    st.session_state[TOLD] = True      # the listener's news: this rerun reads the class's version afresh


def _unreachable() -> None:
    st.session_state[FALLBACK] = True
    st.session_state[SWITCH] = True


def _reachable() -> None:
    st.session_state[FALLBACK] = False
    st.session_state[SWITCH] = True


def _draws() -> bool:
    """Whether this student's listener draws what only displays (the question, "locked", a follower's view): told
    by the events route (the default), not polling (PLAYGROUND_CLASS_TRANSPORT=poll) nor fallen back."""
    return class_events.pushing() and not st.session_state.get(FALLBACK)


def _explore_asked() -> None:
    st.session_state[EXPLORE_ASKED] = True    # the listener's Explore from here: this rerun opens the page


def _open_asked() -> None:
    st.session_state[OPEN_ASKED] = True       # the listener's "Open the page as it was asked": this rerun opens it


def _student_live() -> None:
    code = st.session_state.get(JOINED)
    if not code:
        return
    if st.session_state.pop(SWITCH, False):
        st.rerun(scope="app")          # the fragment's timer starts (or stops) with a whole run
    _show_error()
    state = _student_state(code, fresh=st.session_state.pop(TOLD, False))
    seen = st.session_state.get(VIEW)
    listening = class_events.pushing() and seen is not None and seen[0] == code
    if listening and (state is None or not _draws()):
        # also under a store's sentence (state None): the listener parks from the version last drawn, so the box
        # draws anew once the class moves on (an unknown or ended code stops it: the route says 404 or 410)
        class_events.listen(code, seen[1], fallback=bool(st.session_state.get(FALLBACK)),
                            on_moved=_told, on_unreachable=_unreachable, on_reachable=_reachable)
    if state is None:
        return
    if st.session_state.get(FOLLOW) and state.link is not None and st.session_state.get(SEEN) != state.link_version:
        _follow(code, state)
    if _veils(state, st.session_state.get(PAGE, "")) != st.session_state.get(page.VEILED, frozenset()):
        st.rerun()                     # a question asked or revealed: the page draws its veiled parts anew
    if st.session_state.pop(EXPLORE_ASKED, False) and follows_by_view() and state.link is not None:
        _digest, view = _class_view_now(code)
        target = view.link if view is not None else state.link
        if _page_file(target.partition("?")[0]) is not None:
            _explore(code, state, target)
    if st.session_state.pop(OPEN_ASKED, False) and state.question is not None:
        _open_as_asked(code, state.question)
    if not (listening and _draws()):
        _student_question(code, state)
        _followed_view(code, state)    # a follower: the teacher's page as its class view, under the question
        return
    # told: the listener draws the open question and a follower's view, and draws them anew when the class moves
    # without a rerun (ui.class_live); this run hands it what it draws now, the same cards its routes serve
    class_events.listen(code, seen[1], fallback=False, on_moved=_told, on_unreachable=_unreachable,
                        on_reachable=_reachable, on_explore=_explore_asked, on_open=_open_asked,
                        drawn=_drawn(code, state, seen[1]))


def _drawn(code: str, state: ClassState, version: int) -> dict:
    """What this run draws of the class (the class's end: by Streamlit, above the listener) and what it hands the
    listener to draw (the round's question card and this student's answer, its reveal card once revealed; a
    follower's view card)."""
    lang = i18n.current().code
    drawn = {"draws": True, "lang": lang, "page": st.session_state.get(PAGE, ""),
             "follows": bool(st.session_state.get(FOLLOW)),
             "known": {"question": state.question_id, "round": state.round, "status": status_of(state),
                       "link_version": state.link_version, "link": state.link}}
    if state.ended:
        _student_question(code, state)                 # the class has ended: said once, by the page
        return drawn
    if state.question is not None:
        drawn["card"] = class_live.question_of(state, lang)
        drawn["mine"] = _my_vote(code, state)
        if state.revealed:
            try:
                drawn["reveal"] = class_live.reveal_of(state, lang, functools.partial(
                    class_store().counts, code, state.question_id))
            except ValueError as error:
                show_error(str(error))
    if follows_by_view() and state.link is not None:
        found, view = _follower_view(code)
        if not found:
            return drawn
        drawn["follow_view"] = True
        drawn["view"] = class_live.view_of(state, version, lang, lambda: view)
    return drawn


def _student_state(code: str, quiet: bool = False, fresh: bool = False) -> ClassState | None:
    """The class as this student's page shows it. Most polls find nothing changed: they read the class's version
    (one small read, shared by this process's polls: SharedVersions) and reuse the state read when it last moved;
    only a new version reads the whole state. `quiet`: a refusal raises (the poll says it, not this caller).
    `fresh`: the listener said the version moved, so it is read now (not a shared read older than the news)."""
    try:
        version = shared_versions().version(code, fresh=fresh)
    except ValueError as error:
        if quiet:
            raise
        show_error(str(error))
        return None
    seen = st.session_state.get(VIEW)
    if seen is not None and seen[0] == code and seen[1] == version:
        return seen[2]
    try:
        state = shared_versions().state(code, version)      # one read per version for this process's pages
    except ValueError as error:
        if quiet:
            raise
        show_error(str(error))
        state = None
    if state is not None:
        st.session_state[VIEW] = (code, version, state)   # read after the version: at least as new
    return state


def _veils(state: ClassState | None, url_path: str) -> frozenset[str]:
    """The parts of the page at `url_path` this class veils now: those its open question names, on its page, until
    the reveal; for the teacher, only in projector mode (the teacher's own screen shows them)."""
    question = state.question if state is not None else None
    if question is None or state.revealed or state.ended or question.page != url_path:
        return frozenset()
    if teaching():
        if not projector_on():
            return frozenset()
    return frozenset(question.veils)


def _veil(url_path: str) -> None:
    """Before the page runs: which of its parts the class's open question veils in this run (ui.page.veiled reads
    it). A store that does not answer veils nothing; the class's own box says why."""
    state = None
    try:
        if teaching() and projector_on():          # the teacher's own screen veils nothing
            state = class_store().state(teaching()[0])
        elif st.session_state.get(JOINED):
            state = _student_state(st.session_state[JOINED], quiet=True)
    except ValueError:
        state = None
    st.session_state[page.VEILED] = _veils(state, url_path)


def _follow(code: str, state: ClassState) -> None:
    """Go where the teacher is (a new link version). Done when the run after the move is on that page
    (above_page); a move that got lost, the next poll makes again. Already there: nothing to do."""
    if follows_by_view():
        st.session_state[SEEN] = state.link_version     # the class view shows the teacher's page (_followed_view)
        return
    if st.session_state.get(EXPLORING):
        return                         # exploring from the view: "Back to the teacher's page" brings it back
    path = state.link.partition("?")[0]
    if state.link == page_link() or _page_file(path) is None:
        st.session_state[SEEN] = state.link_version     # here already, or a page this app does not have
        return
    st.session_state[MOVING] = (state.link_version, path)
    go_to(state.link, code)


# --- following by the class view (engine.classroom.view) ------------------------------------------------------

VIEW_LEFT = "class.view_left"           # (code, link, record changes) of the last view this teacher's run handed over
RAN_PAGE = "class.ran_page"             # whether this session's last whole run ran the page (app.py: page_runs)
EXPLORING = "class.exploring"           # the student pressed Explore from here: its own page until it comes back
EXPLORE_TO = "class.explore_to"         # (link, moves made): the page Explore from here opens, until a run is there
EXPLORE_MOVES = 3                       # a move lost this often (the browser's own rerun won) is given up


def views_on() -> bool:
    import os

    from engine.classroom.view import SWITCH_ENV

    return os.environ.get(SWITCH_ENV, "1").strip().lower() not in ("0", "off", "no")


@st.cache_resource(show_spinner=False)
def view_maker():
    """One maker of class views per server process: beside the teacher's run, never in it."""
    from engine.classroom.view import ViewMaker

    return ViewMaker()


@st.cache_resource(show_spinner=False)
def shared_views() -> dict:
    """code -> (class version, hash, ClassView or None): the view read once per version by this process's students."""
    return {}


def follows_by_view() -> bool:
    """Whether this session shows the teacher's page as its class view instead of running a page: a joined student
    who follows (not a teacher, not exploring)."""
    return (views_on() and not teaching() and bool(st.session_state.get(JOINED))
            and bool(st.session_state.get(FOLLOW, True)) and not st.session_state.get(EXPLORING))


def page_runs() -> bool:
    """Whether app.py runs the page (everyone but a follower whose class has a teacher's page to show: the class's
    box above draws its class view instead, `_followed_view`)."""
    _explore_arrival()
    runs = True
    if follows_by_view():
        try:
            state = _student_state(st.session_state[JOINED], quiet=True)
            runs = state is None or state.ended or state.link is None
        except ValueError:
            runs = True
    st.session_state[RAN_PAGE] = runs
    if not runs:                       # the link names the class alone: a page's values are the teacher's now
        for name in [name for name in st.query_params if name not in HIDDEN_PARAMS]:
            del st.query_params[name]
    return runs


def leave_view() -> None:
    """After the teacher's run (the page recorded, its link published): the page's class view goes to the view
    maker, once per change of the page (a new link, or a run that drew it anew); made and stored beside this run."""
    if not teaching() or not views_on() or not st.session_state.get(LEAD, True):
        return
    from ui.handout import for_paper

    code, key = teaching()
    link = page_link()
    kept = recording.record()
    mark = (code, link, kept.changes if kept is not None else 0)
    if st.session_state.get(VIEW_LEFT) == mark:
        return
    st.session_state[VIEW_LEFT] = mark
    if kept is None or not kept.title:
        title = "Transformer Playground" if not link.partition("?")[0] else ""
        view_maker().submit(class_store(), code, key, link, title,
                            _("The teacher is on a page with no class view: Explore from here to open it."), None)
        return
    blocks = [(sections, for_paper(block)) for sections, block in kept.tagged()]
    view_maker().submit(class_store(), code, key, link, kept.title, kept.question, blocks)


def _class_view_now(code: str):
    """(hash, ClassView or None) of the class's view at its current version: read once per version per process."""
    import hashlib

    from engine.classroom.view import ClassView

    version = shared_versions().version(code)
    kept = shared_views()
    found = kept.get(code)
    if found is not None and found[0] == version:
        return found[1], found[2]
    text = class_store().view(code)
    view = None
    if text is not None:
        try:
            view = ClassView.from_json(text)
        except (ValueError, KeyError, TypeError):
            view = None
    digest = hashlib.sha256(text.encode()).hexdigest() if text else ""
    if len(kept) >= limits.CLASS_MAX_OPEN_PER_SERVER:
        kept.clear()
    kept[code] = (version, digest, view)
    return digest, view


def _fragment_run() -> bool:
    """Whether this run is a fragment's alone (a poll), not a whole run of the app."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx is not None and bool(ctx.fragment_ids_this_run)


def _follower_view(code: str) -> tuple[bool, object]:
    """(True, the class view a follower's box draws now: None before the teacher's first page is made), or (False,
    None) with the store's sentence shown. A fragment's run after a whole run that drew a page under this box reruns
    the app instead: the next run draws none."""
    if st.session_state.get(RAN_PAGE) and _fragment_run():
        st.rerun()
    try:
        return True, _class_view_now(code)[1]
    except ValueError as error:
        show_error(str(error))
        return False, None


def _view_veils(state: ClassState, view) -> frozenset[str]:
    return _veils(state, view.link.partition("?")[0]) if view is not None else frozenset()


def _followed_view(code: str, state: ClassState) -> None:
    """A follower's class view, drawn by the class's fragment in place of the page (app.py runs no page then:
    `page_runs`): each poll draws it again, which costs the server little (a view read once per version per process;
    Streamlit sends an element of 10 kB or more that the browser already holds as a reference to it), and a move
    costs each follower one run of this fragment, not a run of the page. Explore from here opens the real page at
    the view's link (one ordinary run, as following did before)."""
    if not follows_by_view() or state.ended:
        return
    if state.link is None:
        return                         # no teacher's page yet: app.py runs the student's own
    found, view = _follower_view(code)
    if not found:
        return
    with st.container(key="class_view"):
        if view is None:
            st.info(_("The teacher's page is on its way: it shows here in a moment."), icon=":material/hourglass_top:")
        else:
            if view.link != state.link:
                st.caption(_(":material/hourglass_top: The teacher has moved on: the new page shows here in a moment."))
            if view.lang != i18n.current().code:
                st.caption(_(":material/translate: The teacher's page shows here as the teacher reads it, in "
                             "{language}. Explore from here to read it in yours.",
                             language=(i18n.language(view.lang) or i18n.LANGUAGES[i18n.SOURCE]).name))
            st.html(view.body(_view_veils(state, view)))
        target = view.link if view is not None else state.link
        if _page_file(target.partition("?")[0]) is not None:
            if st.button(_("Explore from here"), icon=":material/explore:", key="class_explore", type="primary",
                         help=_("Open this page yourself, with the teacher's settings, and change anything. "
                                "\"Back to the teacher's page\" returns here.")):
                _explore(code, state, target)
        st.caption(_("You follow the teacher: this screen moves with the teacher's page. Explore from here to try "
                     "it yourself."))


def _explore(code: str, state: ClassState, link: str) -> None:
    """Leave the view for the real page at `link` (as a first visit opens it), following no more until asked. Not
    the "Follow the teacher" switch's own state: a browser sends back what its switch shows."""
    st.session_state[EXPLORING] = True
    st.session_state[EXPLORE_TO] = (link, 1)
    st.session_state[MOVING] = (state.link_version, link.partition("?")[0])
    go_to(link, code)


def _explore_arrival() -> None:
    """Explore from here is done once a run is on its page; a move that got lost (the browser's own rerun, still on
    the last page, won) is made again, a few times."""
    going = st.session_state.get(EXPLORE_TO)
    if going is None:
        return
    link, moves = going
    if _arrived(link, st.session_state.get(PAGE, "")) or moves >= EXPLORE_MOVES:
        st.session_state.pop(EXPLORE_TO)
        return
    st.session_state[EXPLORE_TO] = (link, moves + 1)
    st.session_state[MOVING] = (st.session_state.get(SEEN), link.partition("?")[0])
    go_to(link, st.session_state.get(JOINED))


def _back_to_following() -> None:
    """Above an explored page: the way back to the teacher's view."""
    if not views_on() or teaching() or not st.session_state.get(JOINED) or not st.session_state.get(EXPLORING):
        return
    st.button(_("Back to the teacher's page"), icon=":material/group:", key="class_back", on_click=_follow_again,
              help=_("Follow the teacher again: this screen shows the teacher's page as it moves."))


def _follow_again() -> None:
    st.session_state[FOLLOW] = True
    _follow_switched()
    st.session_state.pop(EXPLORING, None)
    st.session_state.pop(EXPLORE_TO, None)


def _student_question(code: str, state: ClassState) -> None:
    if state.ended:
        st.info(class_live.ended(code), icon=":material/check_circle:")
        return
    question = state.question.read() if state.question is not None else None   # in this student's language
    if question is None:   # the box's first line (above_page) says the question comes here
        return
    if state.revealed and state.link is not None and state.link.partition("?")[0] != question.page:
        return             # the teacher has moved on to another page: the last reveal leaves with it
    st.markdown(_("**Question {n}**: {prompt}", n=state.question_id, prompt=md(question.prompt)) if state.round == 1
                else _("**Question {n}**, round {round}: {prompt}", n=state.question_id, round=state.round,
                       prompt=md(question.prompt)))
    mine = _my_vote(code, state)
    if not state.revealed:
        key = f"class.answer.{code}.{state.question_id}.{state.round}"
        if st.session_state.get(key) is None and mine is not None:
            st.session_state[key] = mine          # a reload, a new tab: the radio shows the answer the store holds
        st.radio(_("Your answer"), range(len(question.options)), format_func=lambda i: md(question.options[i]),
                 index=None, key=key, disabled=state.locked,
                 on_change=_vote, args=(code, state.question_id, state.round, key))
        if state.locked:
            st.caption(_("Answers are locked: the reveal is coming."))
        elif mine is not None:
            st.success(_("Answer received: {option}. You may change it until the teacher locks the round.",
                         option=isolated(md(question.options[mine]))), icon=":material/task_alt:")
        if state.round > 1:
            st.caption(_("Round 2: talk with your neighbour, then answer again."))
        return
    _reveal(code, state, question, mine, teacher_key=None)


def _round_counts(code: str, state: ClassState, key: str | None) -> list[tuple[int, ...]]:
    """Answers per option in each round of the current question (kept once revealed: they no longer change)."""
    kept = st.session_state.setdefault(COUNTS, {})
    rounds = []
    for r in range(1, state.round + 1):
        slot = (code, state.question_id, r)
        if slot in kept and state.revealed:
            rounds.append(kept[slot])
            continue
        counts = class_store().counts(code, state.question_id, r, key=key)
        if state.revealed:
            kept[slot] = counts
        rounds.append(counts)
    return rounds


def _reveal(code: str, state: ClassState, question: Question, mine: int | None, teacher_key: str | None,
            *, font_size: int | None = None) -> None:
    try:
        rounds = _round_counts(code, state, teacher_key)
    except ValueError as error:
        show_error(str(error))
        return
    if question.answer is not None:
        shares = [_(live.ROUND_SHARE, n=r + 1, share=live.share_sentence(c, question.answer))
                  for r, c in enumerate(rounds)]
        st.markdown(_(live.THE_ANSWER, option=isolated(md(question.options[question.answer])),
                      shares="; ".join(shares)))
        if mine is not None:
            st.markdown(_(live.YOURS_RIGHT) if mine == question.answer else
                        _(live.YOURS_WAS, option=isolated(md(question.options[mine]))))
    from ui import charts

    charts.show(answers_chart(question.options, rounds, question.answer), width="stretch", font_size=font_size)
    if question.explanation:
        st.markdown(md(question.explanation))
    if question.page != st.session_state.get(PAGE) or not teacher_key:
        if question.page != st.session_state.get(PAGE) and st.button(
                _(live.OPEN_AS_ASKED), icon=":material/open_in_new:",
                key=f"class.open.{state.question_id}"):
            _open_as_asked(code if not teacher_key else None, question)


def _open_as_asked(code: str | None, question: Question) -> None:
    go_to(question.page + (f"?{question.link}" if question.link else ""), code)


# --- the teacher ---------------------------------------------------------------------------------

def _teacher_panel() -> None:
    code, key = teaching()
    st.markdown(_("Class code **{code}**", code=code))
    st.toggle(_("Show the join code above the page"), key=SHOW_JOIN, value=True)
    st.toggle(_("Everyone follow me"), key=LEAD, value=True,
              help=_("Students who follow see this page, with these settings, within about 2 s of each change."))
    state = _call("state", code)
    if state is not None and state.ended:
        _class_over(code, key)
    if state is not None:
        _round_controls(state)
    _ask_panel(code, key)
    _lesson_panel(code, key)
    _teacher_link_panel(code, key)
    if st.button(_("End the class"), icon=":material/stop_circle:", key="class_end", type="secondary"):
        summaries = _call("end", code, key)
        if summaries is not None:
            st.session_state[SUMMARY] = (code, summaries)
            st.session_state.pop(TEACHER, None)
            st.rerun()


def _class_over(code: str, key: str) -> None:
    """The class ended without this session's End button (by itself, CLASS_IDLE_S after the teacher's last action,
    or from the teacher's other device): its summary, and this session teaches no more."""
    summaries = _call("summary", code, key)
    st.session_state.pop(TEACHER, None)
    st.session_state[SUMMARY] = (code, summaries or [])
    st.session_state[ERROR] = _("Class {code} has ended: by itself, {minutes} minutes after its teacher's last "
                                "action, or from another of your devices. Its summary is below.", code=code,
                                minutes=limits.CLASS_IDLE_S // 60)
    st.rerun()


def _teacher_link_panel(code: str, key: str) -> None:
    """A teacher link for another device (a tablet at the front, a second laptop): shown here alone, never while
    projecting; making a new one retires the last."""
    box = page.folded(_("Teach from another device"), "class.teacher_link", icon=":material/devices:")
    if not box.open:
        return
    with box:
        if projector_on():
            st.caption(_("Turn projector mode off to make a teacher link: whoever opens it runs this class, so it "
                         "is never shown while projecting."))
            return
        if st.button(_("Make a teacher link"), icon=":material/link:", key="class_make_teacher_link"):
            fresh = _call("new_teacher_key", code, key)
            if fresh is not None:
                st.session_state[TEACHER_LINK] = (code, join_link(code, fresh))
        made = st.session_state.get(TEACHER_LINK)
        if made is not None and made[0] == code:
            st.code(made[1], language=None, wrap_lines=True)
            st.caption(_("Open it on your other device: that browser then teaches this class too. A new link "
                         "retires this one. Never project it, put it in a QR code or send it to a student."))


def publish_link() -> None:
    """Everyone follow me: the page's link goes to the store whenever it changed (after a full run; from a
    section's callback, ui.page.only, before the section reruns; or the teacher's poll)."""
    if teaching() and st.session_state.get(LEAD, True):
        _publish(page_link())


page.when_the_link_moves(publish_link)


def _publish(link: str) -> None:
    if st.session_state.get(PUBLISHED) == link:
        return
    code, key = teaching()
    if _remember_error("follow", code, key, link) is not None:
        st.session_state[PUBLISHED] = link


def _ask_panel(code: str, key: str) -> None:
    from engine.chapter.questions import BUILDERS

    with st.expander(_("Ask the class"), icon=":material/quiz:", expanded=False):
        url = st.session_state.get(PAGE, "")
        if url in BUILDERS:
            link = page_link()
            built = st.session_state.setdefault(ASKABLE, {})
            if link not in built:
                if st.button(_("Questions about this example"), icon=":material/lightbulb:", key="class_build"):
                    built[link] = _build_questions(url)
            questions = built.get(link) or []
            if questions:
                picked = st.radio(_("This page's questions"), range(len(questions)), key=f"class.pick.{link}",
                                  format_func=lambda i: md(questions[i].read().prompt))
                if st.button(_("Ask this question"), icon=":material/send:", key="class_ask_page"):
                    if _call("ask", code, key, questions[picked]) is not None:
                        st.rerun()
        st.markdown(_("Or a question of your own:"))
        prompt = st.text_input(pgettext("class: the teacher's own question", "Question"), key="class.free_prompt",
                               max_chars=limits.CLASS_MAX_PROMPT_CHARS)
        options_text = st.text_area(_("Options, one per line ({least} to {most})", least=limits.CLASS_MIN_OPTIONS,
                                      most=limits.CLASS_MAX_OPTIONS), key="class.free_options", height=110)
        options = tuple(line.strip() for line in options_text.splitlines() if line.strip())
        right = st.selectbox(_("The right option"), [None, *range(len(options))], key="class.free_answer",
                             format_func=lambda i: _("none (a poll)") if i is None else options[i])
        if st.button(_("Ask my question"), icon=":material/send:", key="class_ask_free"):
            question = Question(url or "home", prompt.strip(), options, right, "", urlencode(page_values()))
            if _call("ask", code, key, question) is not None:
                st.rerun()


def _build_questions(url: str) -> list[Question]:
    from engine.chapter.questions import questions_for
    from ui import loaders

    try:
        with st.spinner(_("The engine works out the answers...")):
            return questions_for(url, page_values(), loaders)
    except ValueError as error:
        show_error(str(error))
        return []


def _teacher_action(method: str, *args) -> None:
    """A teacher button's callback: the store call with this session's key; its sentence shown on the next run."""
    if teaching():
        code, key = teaching()
        _remember_error(method, code, key, *args)


def _round_controls(state: ClassState) -> None:
    """The open question's buttons, in the sidebar (a full run each: the live view above the page polls alone)."""
    if state.question is None or state.ended:
        return
    st.markdown(_("Question {n}, round {round}: {status}", n=state.question_id, round=state.round,
                  status=_status(state)))
    live_key = f"class.live.{state.question_id}"
    st.session_state[live_key] = state.live
    st.toggle(_("Live histogram"), key=live_key,
              on_change=lambda: _teacher_action("show_live", bool(st.session_state.get(live_key))),
              help=_("Show the answers as they come in (otherwise they stay hidden until the reveal)."))
    if not state.revealed:
        st.button(_("Unlock answers") if state.locked else _("Lock answers"), key="class_lock",
                  icon=":material/lock_open:" if state.locked else ":material/lock:",
                  on_click=_teacher_action, args=("lock", not state.locked))
        st.button(_("Reveal"), key="class_reveal", icon=":material/visibility:", type="primary",
                  on_click=_teacher_action, args=("reveal",))
    elif state.round < limits.CLASS_MAX_ROUNDS:
        st.button(_("Vote again"), key="class_again", icon=":material/replay:", on_click=_teacher_action,
                  args=("vote_again",))
        st.caption(_("Vote again: students talk to a neighbour, then answer once more (peer instruction); the "
                     "reveal then shows both rounds side by side."))


def _status(state: ClassState) -> str:
    """The open question's state, in a word."""
    return (pgettext("class question", "revealed") if state.revealed else
            pgettext("class question", "locked") if state.locked else pgettext("class question", "open"))


@st.fragment(run_every=limits.CLASS_TEACHER_POLL_S)
def _teacher_live() -> None:
    if not teaching():
        return
    code, key = teaching()
    if not st.session_state.get(BEFORE_PAGE):
        publish_link()                 # a section's change the callback did not publish (its store call failed)
        leave_view()                   # a section that reran alone changed the page: its class view too
    _show_error()
    touched = st.session_state.get(TOUCHED)
    if touched is None or time.monotonic() - touched >= limits.CLASS_TEACHER_TOUCH_S:
        st.session_state[TOUCHED] = time.monotonic()   # the teacher's screen is open: the class is not idle
        _remember_error("touch", code, key)
    state = _call("state", code)
    if state is None:
        return
    if state.ended:
        _class_over(code, key)
    if not st.session_state.get(BEFORE_PAGE) and (
            st.session_state.get(GO) is not None                  # a scene's move got lost: a whole run makes it
            or _veils(state, st.session_state.get(PAGE, "")) != st.session_state.get(page.VEILED, frozenset())):
        st.rerun()                     # (or the page's veils changed: asked, revealed, from another device)
    big = 28 if projector_on() else 18
    question = state.question.read() if state.question is not None else None   # in the teacher's language
    if question is not None and state.revealed and question.page != st.session_state.get(PAGE):
        question = None                # the last reveal leaves with the page: this page is the next idea
    with st.container(border=True, key="class_teacher"):
        if st.session_state.get(SHOW_JOIN, True) and state.question is None:
            _join_banner(code, state)  # big, with the QR code, until the first question; then one line
        else:
            st.markdown(ngettext("Join: **{code}** at {link} · {n} joined", "Join: **{code}** at {link} · {n} joined",
                                 state.students, code=code, link=join_link(code)))
        if question is None:
            st.caption(_("Ask the class a question from the sidebar."))
            return
        st.markdown("#### " + (_("Question {n}: {prompt}", n=state.question_id, prompt=md(question.prompt))
                               if state.round == 1 else
                               _("Question {n}, round {round}: {prompt}", n=state.question_id, round=state.round,
                                 prompt=md(question.prompt))))
        st.markdown(" · ".join(f"**{chr(65 + i)}.** {md(option)}" for i, option in enumerate(question.options)))
        st.markdown(_("**{answered}** of {students} answered · {status}", answered=state.answered,
                      students=state.students, status=_status(state)))
        if question.veils and not state.revealed and question.page == st.session_state.get(PAGE):
            st.caption(_(":material/visibility_off: The parts of this page that give the answer away are veiled on "
                         "the students' screens and here until you reveal it.") if projector_on() else
                       _(":material/visibility_off: The parts of this page that give the answer away are veiled on "
                         "the students' screens and in projector mode until you reveal it."))
        if state.revealed:
            _reveal(code, state, question, None, teacher_key=key, font_size=big)
        elif state.live:
            try:
                rounds = [class_store().counts(code, state.question_id, state.round, key=key)]
            except ValueError as error:
                show_error(str(error))
                return
            from ui import charts

            charts.show(answers_chart(question.options, rounds, None, title=_("Answers so far")), width="stretch",
                        font_size=big)


def _join_banner(code: str, state: ClassState) -> None:
    link = join_link(code)
    left, right = st.columns([3, 1])
    with left:
        st.markdown("<p style='font-size: 2.4rem; margin: 0'>" + _(
            "Join: <strong style='letter-spacing: 0.12em'>{code}</strong>", code=code) + "</p>",
            unsafe_allow_html=True)
        st.markdown(ngettext("Scan the code or open **{link}** and type the code. {n} joined.",
                             "Scan the code or open **{link}** and type the code. {n} joined.", state.students,
                             link=link))
    with right:
        alt = html.escape(_("QR code to join class {code}: {link}", code=code, link=link), quote=True)
        st.html(f"<img src='{qr_svg(link)}' alt='{alt}' "
                "style='width: 100%; max-width: 200px; image-rendering: pixelated'>")


def _summary() -> None:
    code, summaries = st.session_state[SUMMARY]
    with st.container(border=True, key="class_summary"):
        st.subheader(_("Class {code}: the summary", code=code))
        if not summaries:
            st.caption(_("No question was asked."))
        for item in summaries:
            question = item.question.read()              # in the teacher's language, as the CSV below
            shares = ", ".join(_("round {n}: -", n=r + 1) if s is None else
                               _("round {n}: {percent} right", n=r + 1, percent=numbers.fixed(100 * s, 0) + "%")
                               for r, s in enumerate(item.correct_share))
            st.markdown(f"**{item.question_id}. {md(question.prompt)}** ({shares})")
            from ui import charts

            charts.show(answers_chart(question.options, item.counts, question.answer,
                                      title=_("Question {n}", n=item.question_id)), width="content")
        st.download_button(_("Download the summary (CSV)"), summary_csv(summaries), file_name=f"class-{code}.csv",
                           mime="text/csv", icon=":material/download:", key="class_csv")
        if st.button(_("Close the summary"), key="class_close_summary"):
            st.session_state.pop(SUMMARY, None)
            st.rerun()


LESSON = "class.lesson"             # the lesson this teacher steps through (engine.chapter.lesson.Lesson)
SCENE = "class.scene"               # the index of the scene on screen
MY_LESSON = "class.my_lesson"       # the scenes this teacher collected
GO = "class.go"                     # (scene link, moves made): the scene the teacher's next runs open
SCENE_MOVES = 3                     # a move to a scene lost this often (the browser's own rerun won): given up


def lesson_words(text: str) -> str:
    """A lesson's title or a scene's, in the reader's language where it is ours (engine.chapter.lesson)."""
    from engine.chapter.lesson import shown

    return shown(text)


def _lesson() -> object:
    from engine.chapter.lesson import chapter_lesson

    if LESSON not in st.session_state:
        st.session_state[LESSON] = chapter_lesson()
    return st.session_state[LESSON]


def _step(by: int) -> None:
    """Next or previous scene: the teacher's page moves there (followers move with it). Each press counts, also one
    made before the page of the last has drawn (a presenter's clicker pressed twice moves two scenes)."""
    lesson = _lesson()
    index = min(max(st.session_state.get(SCENE, -1) + by, 0), len(lesson.scenes) - 1)
    if st.session_state.get(SCENE) == index:
        return                         # the first or the last scene already
    st.session_state[SCENE] = index
    st.session_state[GO] = (lesson.scenes[index].link, 0)


def _open_scene(url_path: str) -> None:
    """The scene the teacher stepped to: the first run after the step moves there (st.switch_page with the scene's
    link and projector mode); the run that is there opens the link afresh, every other value at its default. A move
    that got lost (a rerun the browser asked for at that moment, still on the old page) is made again, a few times."""
    go = st.session_state.get(GO)
    if go is None:
        return
    link, moves = go
    if moves and _arrived(link, url_path):
        st.session_state.pop(GO)
        _open_afresh(url_path)
        return
    if moves >= SCENE_MOVES:
        st.session_state.pop(GO)
        return
    st.session_state[GO] = (link, moves + 1)
    go_to(link, None)


def _ask_scene() -> None:
    from engine.chapter.lesson import scene_question
    from ui import loaders

    lesson, index = _lesson(), st.session_state.get(SCENE)
    if index is None or not teaching():
        return
    scene = lesson.scenes[index]
    here = st.session_state.get(PAGE) == scene.page
    try:
        question = scene_question(scene, page_values() if here else None, loaders)
    except ValueError as error:
        st.session_state[ERROR] = str(error)
        return
    code, key = teaching()
    _remember_error("ask", code, key, question)


def _load_lesson() -> None:
    from engine.chapter.lesson import parse_lesson

    file = st.session_state.get("class.lesson_file")
    if file is None:
        return
    try:
        st.session_state[LESSON] = parse_lesson(file.getvalue())
        st.session_state.pop(SCENE, None)
    except ValueError as error:
        st.session_state[ERROR] = str(error)


def _add_scene() -> None:
    from engine.chapter.lesson import Lesson, Scene, add_scene

    mine = st.session_state.get(MY_LESSON) or Lesson(_("My lesson"), ())
    title = st.session_state.get("class.scene_title", "").strip() or st.session_state.get(PAGE, "") or "home"
    try:
        st.session_state[MY_LESSON] = add_scene(mine, Scene(title, page_link(), 0))
    except ValueError as error:
        st.session_state[ERROR] = str(error)


def _scene_buttons(index: int | None) -> None:
    """Previous and Next (Start before the first scene), keys PageUp and PageDown as a presenter's clicker sends:
    one under the other, the whole width, so each label reads in full beside its key."""
    lesson = _lesson()
    st.button(pgettext("lesson", "Previous"), icon=":material/skip_previous:", key="class_previous",
              shortcut="PageUp", on_click=_step, args=(-1,), disabled=not index, width="stretch",
              help=_("Previous scene (PageUp)"))
    st.button(pgettext("lesson", "Next") if index is not None else pgettext("lesson", "Start"),
              icon=":material/skip_next:", key="class_next", shortcut="PageDown", on_click=_step, args=(1,),
              width="stretch", help=_("Next scene (PageDown)"),
              disabled=index is not None and index >= len(lesson.scenes) - 1)


def lesson_bar() -> None:
    """While a lesson runs: its scene and the Previous and Next buttons at the top of the teacher's sidebar, drawn
    before the page runs. A page switch clears the last page's elements in the browser, buttons and their keys with
    them, until the new run draws them again: drawn after a heavy page (seconds on a first visit), a press made
    meanwhile was lost."""
    index = st.session_state.get(SCENE)
    if not teaching() or index is None:
        return
    lesson = _lesson()
    with st.sidebar.container(key="class_lesson_bar"):
        st.markdown(_(":material/slideshow: Scene {n} of {total}: **{title}**", n=index + 1,
                      total=len(lesson.scenes), title=md(lesson_words(lesson.scenes[index].title))))
        _scene_buttons(index)
        st.button(_("Ask this scene's question"), icon=":material/quiz:", key="class_ask_scene", on_click=_ask_scene,
                  type="primary", width="stretch")


def _lesson_panel(code: str, key: str) -> None:
    """The lesson: started here (its scenes are then stepped from the top of the sidebar, `lesson_bar`); saving and
    loading a lesson file; this page added to the teacher's own lesson."""
    from engine.chapter.lesson import dump_lesson

    with st.expander(pgettext("class mode", "Lesson"), icon=":material/slideshow:", expanded=False):
        lesson = _lesson()
        index = st.session_state.get(SCENE)
        st.caption(md(lesson_words(lesson.title)))
        if index is None:
            _scene_buttons(index)
        else:
            st.caption(_("Previous and Next are at the top of the sidebar (keys PageUp and PageDown)."))
        st.file_uploader(_("Load a lesson (JSON)"), type=["json"], key="class.lesson_file", on_change=_load_lesson,
                         max_upload_size=page.upload_megabytes(limits.LESSON_MAX_BYTES))
        st.text_input(_("Title of this page as a scene"), key="class.scene_title", max_chars=80)
        st.button(_("Add this page to my lesson"), icon=":material/playlist_add:", key="class_add_scene",
                  on_click=_add_scene)
        mine = st.session_state.get(MY_LESSON)
        if mine is not None and mine.scenes:
            st.download_button(ngettext("Save my lesson ({n} scene)", "Save my lesson ({n} scenes)", len(mine.scenes)),
                               dump_lesson(mine),
                               file_name="lesson.json", mime="application/json", icon=":material/download:",
                               key="class_save_lesson")
        st.download_button(_("Save the lesson above"), dump_lesson(lesson), file_name="lesson.json",
                           mime="application/json", icon=":material/download:", key="class_save_current")
