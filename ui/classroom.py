"""Class mode in the app: predict, vote and reveal with the whole room (app.py draws it around every page).

- The teacher starts a class in the sidebar ("Class"): a code, its join link and QR code for the projector.
  The teacher key stays in this browser session's state; no link, QR code or page a student sees holds it.
- Students join by the link (`?class=CODE`, what the QR code opens) or by typing the code; each browser
  session gets an anonymous random id, nothing else.
- Above the page: the student's question (answer, "answer received", the reveal), or the teacher's live
  view (joined, answered, the histogram). Both poll the class store with `st.fragment(run_every=...)`, and only
  in a class: a page outside a class polls nothing. A student's poll reads the class's version (one small read)
  and the whole state only when the version moved (the teacher acted); its section redraws what it drew.
- "Everyone follow me": the teacher's page link (path and query) goes to the store on each change: at the start
  of the teacher's run, before the page draws (the values its PageState will hold), and again once the page
  mirrored them (only if they differ); a settings change in a section of the page goes from its callback. A
  student who turned "Follow the teacher" on is moved to it at their next poll, and opens it as a first visit
  would (the link's values win over what the student had on that page). A move counts as done only when the
  student's next run is on the link's page: a move that got lost (a rerun the browser asked for at the same
  moment, carrying the old page) is made again at the next poll.
- A lesson (engine.classroom.lesson): scenes, each a page link and its question, stepped with next and
  previous.

The store (engine.classroom.store) enforces every rule; its ValueError sentences are shown with st.error.
"""
from __future__ import annotations

import secrets
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import streamlit as st

from engine import limits, markup
from engine.classroom.chart import answers_chart
from engine.classroom.store import ClassState, Question, SharedVersions, open_store, summary_csv
from ui import page, url_state
from ui.page import show_error
from ui.url_state import CLASS_PARAM, PRESENT_PARAM, STUDENT_PARAM

md = markup.markdown   # a question, its options and explanation are plain text (a teacher may type them)

STUDENT = "class.student"          # this browser session's anonymous id
JOINED = "class.joined"            # the code this session joined as a student
TEACHER = "class.teacher"          # (code, key) of the class this session teaches: never in a link
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
VIEW = "class.view"                # (code, version, ClassState) the student's page last read: a poll that finds the
                                   # same version reuses it (one small read instead of the whole state)
HIDDEN_PARAMS = (PRESENT_PARAM, CLASS_PARAM, STUDENT_PARAM)   # not part of the link a class follows
BEFORE_PAGE = "class.before_page"  # set while the teacher's live view draws above a page that has not run yet
STATE_OF: dict[str, str] = {}      # url path -> the PageState its page declares (learnt from runs of this process)


@st.cache_resource(show_spinner=False)
def class_store():
    """One store per server process (SQLite in the data folder, or Redis: engine.classroom.store.open_store)."""
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


def student_id() -> str:
    """This student's anonymous id: a random one, kept in the link (?sid=) once joined, so that a reload, even
    onto another server process, is the same student with the same answers (nothing else identifies them)."""
    if STUDENT not in st.session_state:
        linked = st.query_params.get(STUDENT_PARAM, "")
        usable = 8 <= len(linked) <= limits.CLASS_MAX_STUDENT_ID_CHARS and linked.replace("-", "").replace(
            "_", "").isalnum()
        st.session_state[STUDENT] = linked if usable else secrets.token_urlsafe(12)
    return st.session_state[STUDENT]


def _client() -> str:
    try:
        address = st.context.ip_address
    except Exception:   # no browser (a bare script)
        return ""
    return address if isinstance(address, str) else ""


def teaching() -> tuple[str, str] | None:
    return st.session_state.get(TEACHER)


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


def join_link(code: str) -> str:
    """The app's address with ?class=CODE (the QR code's link); a relative one outside a browser."""
    try:
        parts = urlsplit(st.context.url or "")
    except Exception:
        parts = urlsplit("")
    return urlunsplit((parts.scheme, parts.netloc, "/", urlencode({CLASS_PARAM: code}), "")) or f"/?class={code}"


def _page_file(url: str) -> str | None:
    from ui.path import ideas

    if url == "":
        return "app.py"
    return next((idea.file for idea in ideas() if idea.url == url), None)


def go_to(link: str, code: str | None) -> None:
    """Open 'page?query' (a followed link, a question's page), keeping the class in the link."""
    path, _, query = link.partition("?")
    file = _page_file(path)
    if file is None:
        show_error(f"There is no page called '{path}'.")
        return
    params = dict(parse_qsl(query, keep_blank_values=True))
    if code:
        params[CLASS_PARAM] = code
        params[STUDENT_PARAM] = student_id()
    st.switch_page(file, query_params=params)


# --- joining -----------------------------------------------------------------------------------

def join(code: str) -> None:
    """Join as a student (the typed code or the link's); the store's sentence on a bad code."""
    state = _call("join", code.strip().upper(), student_id(), client=_client())
    if state is not None:
        st.session_state[JOINED] = state.code
        st.session_state.setdefault(FOLLOW, True)
        st.query_params[CLASS_PARAM] = state.code
        st.query_params[STUDENT_PARAM] = student_id()


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
    scene = st.session_state.pop(GO, None)
    if scene is not None and teaching():
        go_to(scene, None)             # a lesson's next or previous scene, before this page draws anything
    moving = st.session_state.pop(MOVING, None)
    if moving is not None and moving[1] == url_path and st.session_state.get(JOINED):
        st.session_state[SEEN] = moving[0]
        url_state.open_afresh()        # the teacher's values, not what this student had on the page
    if teaching() and st.session_state.get(LEAD, True):
        link = early_link(url_path)
        if link is not None:
            _publish(link)
    _join_from_link()
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
            st.markdown(f":material/groups: **Class {st.session_state[JOINED]}**: joined. The teacher's questions "
                        "appear in this box.")
            _student_live()


def sidebar() -> None:
    """After the page (its link mirrored): the class panel in the sidebar; the teacher's link published."""
    url_state.end_afresh()             # a page without a PageState did not take it
    declared = url_state.declared_this_run()
    STATE_OF[st.session_state.get(PAGE, "")] = declared.page if declared is not None else ""
    with st.sidebar.container(key="class_panel"):
        st.markdown("**Class**")
        if teaching():
            _teacher_panel()
            publish_link()
        elif st.session_state.get(JOINED):
            _student_panel()
        else:
            _start_or_join()


# --- the student -----------------------------------------------------------------------------------

def _start_or_join() -> None:
    with st.form("class_join", border=False, enter_to_submit=True):
        code = st.text_input("Class code", max_chars=limits.CLASS_CODE_CHARS + 4, placeholder="K7QM2XPA",
                             help="The code your teacher shows; or scan the teacher's QR code.")
        if st.form_submit_button("Join the class", icon=":material/group_add:") and code.strip():
            join(code)
            if st.session_state.get(JOINED):
                st.rerun()
    if st.button("Start a class (teacher)", icon=":material/co_present:", key="class_start",
                 help="A class code, its link and QR code for the projector; this browser keeps the teacher key."):
        made = _call("create_class")
        if made is not None:
            st.session_state[TEACHER] = made
            st.session_state.pop(SUMMARY, None)
            st.rerun()


def _student_panel() -> None:
    code = st.session_state[JOINED]
    st.caption(f"You are in class {code}. Nobody sees who you are: your answers carry a random number only.")
    # the switch's value from this session, sent with it on every run: a browser that drew a new page may have
    # dropped the switch's state and would otherwise show (and send back) its default, off
    st.session_state[FOLLOW] = st.session_state.get(FOLLOW, True)
    st.toggle("Follow the teacher", key=FOLLOW, on_change=_follow_switched,
              help="On: this page moves with the teacher's (within about 2 s). Off: explore on your own; "
                   "switch it on again to come back.")
    if st.button("Leave the class", icon=":material/logout:", key="class_leave"):
        for name in (JOINED, SEEN, MY_VOTE, COUNTS, VIEW):
            st.session_state.pop(name, None)
        for name in (CLASS_PARAM, STUDENT_PARAM):
            if name in st.query_params:
                del st.query_params[name]
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
    if slot not in mine:
        try:
            mine[slot] = class_store().my_vote(code, student_id(), state.question_id, state.round)
        except ValueError:
            mine[slot] = None
    return mine[slot]


@st.fragment(run_every=limits.CLASS_POLL_S)
def _student_live() -> None:
    code = st.session_state.get(JOINED)
    if not code:
        return
    _show_error()
    state = _student_state(code)
    if state is None:
        return
    if st.session_state.get(FOLLOW) and state.link is not None and st.session_state.get(SEEN) != state.link_version:
        _follow(code, state)
    _student_question(code, state)


def _student_state(code: str) -> ClassState | None:
    """The class as this student's page shows it. Most polls find nothing changed: they read the class's version
    (one small read, shared by this process's polls: SharedVersions) and reuse the state read when it last moved;
    only a new version reads the whole state."""
    try:
        version = shared_versions().version(code)
    except ValueError as error:
        show_error(str(error))
        return None
    seen = st.session_state.get(VIEW)
    if seen is not None and seen[0] == code and seen[1] == version:
        return seen[2]
    state = _call("state", code)
    if state is not None:
        st.session_state[VIEW] = (code, version, state)   # read after the version: at least as new
    return state


def _follow(code: str, state: ClassState) -> None:
    """Go where the teacher is (a new link version). Done when the run after the move is on that page
    (above_page); a move that got lost, the next poll makes again. Already there: nothing to do."""
    path = state.link.partition("?")[0]
    if state.link == page_link() or _page_file(path) is None:
        st.session_state[SEEN] = state.link_version     # here already, or a page this app does not have
        return
    st.session_state[MOVING] = (state.link_version, path)
    go_to(state.link, code)


def _student_question(code: str, state: ClassState) -> None:
    if state.ended:
        st.info(f"Class {code} has ended. Thank you for taking part.", icon=":material/check_circle:")
        return
    question = state.question
    if question is None:   # the box's first line (above_page) says the question comes here
        return
    st.markdown(f"**Question {state.question_id}**" + (f", round {state.round}" if state.round > 1 else "")
                + f": {md(question.prompt)}")
    mine = _my_vote(code, state)
    if not state.revealed:
        key = f"class.answer.{code}.{state.question_id}.{state.round}"
        if key not in st.session_state and mine is not None:
            st.session_state[key] = mine
        st.radio("Your answer", range(len(question.options)), format_func=lambda i: md(question.options[i]),
                 index=None, key=key, disabled=state.locked,
                 on_change=_vote, args=(code, state.question_id, state.round, key))
        if state.locked:
            st.caption("Answers are locked: the reveal is coming.")
        elif mine is not None:
            st.success(f"Answer received: {md(question.options[mine])}. You may change it until the teacher locks "
                       "the round.", icon=":material/task_alt:")
        if state.round > 1:
            st.caption("Round 2: talk with your neighbour, then answer again.")
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
        shares = [f"round {r + 1}: {_share(c, question.answer)}" for r, c in enumerate(rounds)]
        st.markdown(f":material/check_circle: **The answer: {md(question.options[question.answer])}**. "
                    "Right: " + "; ".join(shares) + ".")
        if mine is not None:
            st.markdown("Yours was right." if mine == question.answer else
                        f"Yours was {md(question.options[mine])}.")
    from ui import charts

    charts.show(answers_chart(question.options, rounds, question.answer), width="stretch", font_size=font_size)
    if question.explanation:
        st.markdown(md(question.explanation))
    if question.page != st.session_state.get(PAGE) or not teacher_key:
        if question.page != st.session_state.get(PAGE) and st.button(
                "Open the page as it was asked", icon=":material/open_in_new:", key=f"class.open.{state.question_id}"):
            go_to(question.page + (f"?{question.link}" if question.link else ""), code if not teacher_key else None)


def _share(counts: tuple[int, ...], answer: int) -> str:
    total = sum(counts)
    return f"{counts[answer]} of {total} ({100 * counts[answer] / total:.0f}%)" if total else "no answers"


# --- the teacher ---------------------------------------------------------------------------------

def _teacher_panel() -> None:
    code, key = teaching()
    st.markdown(f"Class code **{code}**")
    st.toggle("Show the join code above the page", key=SHOW_JOIN, value=True)
    st.toggle("Everyone follow me", key=LEAD, value=True,
              help="Students who follow see this page, with these settings, within about 2 s of each change.")
    state = _call("state", code)
    if state is not None:
        _round_controls(state)
    _ask_panel(code, key)
    _lesson_panel(code, key)
    if st.button("End the class", icon=":material/stop_circle:", key="class_end", type="secondary"):
        summaries = _call("end", code, key)
        if summaries is not None:
            st.session_state[SUMMARY] = (code, summaries)
            st.session_state.pop(TEACHER, None)
            st.rerun()


def publish_link() -> None:
    """Everyone follow me: the page's link goes to the store whenever it changed (after a full run; from a
    section's callback, ui.page.only, before the section reruns; or the teacher's poll)."""
    if teaching() and st.session_state.get(LEAD, True):
        _publish(page_link())


def _publish(link: str) -> None:
    if st.session_state.get(PUBLISHED) == link:
        return
    code, key = teaching()
    if _remember_error("follow", code, key, link) is not None:
        st.session_state[PUBLISHED] = link


def _ask_panel(code: str, key: str) -> None:
    from engine.classroom.questions import BUILDERS

    with st.expander("Ask the class", icon=":material/quiz:", expanded=False):
        url = st.session_state.get(PAGE, "")
        if url in BUILDERS:
            link = page_link()
            built = st.session_state.setdefault(ASKABLE, {})
            if link not in built:
                if st.button("Questions about this example", icon=":material/lightbulb:", key="class_build"):
                    built[link] = _build_questions(url)
            questions = built.get(link) or []
            if questions:
                picked = st.radio("This page's questions", range(len(questions)), key=f"class.pick.{link}",
                                  format_func=lambda i: md(questions[i].prompt))
                if st.button("Ask this question", icon=":material/send:", key="class_ask_page"):
                    if _call("ask", code, key, questions[picked]) is not None:
                        st.rerun()
        st.markdown("Or a question of your own:")
        prompt = st.text_input("Question", key="class.free_prompt", max_chars=limits.CLASS_MAX_PROMPT_CHARS)
        options_text = st.text_area(f"Options, one per line ({limits.CLASS_MIN_OPTIONS} to "
                                    f"{limits.CLASS_MAX_OPTIONS})", key="class.free_options", height=110)
        options = tuple(line.strip() for line in options_text.splitlines() if line.strip())
        right = st.selectbox("The right option", [None, *range(len(options))], key="class.free_answer",
                             format_func=lambda i: "none (a poll)" if i is None else options[i])
        if st.button("Ask my question", icon=":material/send:", key="class_ask_free"):
            question = Question(url or "home", prompt.strip(), options, right, "", urlencode(page_values()))
            if _call("ask", code, key, question) is not None:
                st.rerun()


def _build_questions(url: str) -> list[Question]:
    from engine.classroom.questions import questions_for
    from ui import loaders

    try:
        with st.spinner("The engine works out the answers..."):
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
    st.markdown(f"Question {state.question_id}, round {state.round}: "
                + ("revealed" if state.revealed else "locked" if state.locked else "open"))
    live_key = f"class.live.{state.question_id}"
    st.session_state[live_key] = state.live
    st.toggle("Live histogram", key=live_key,
              on_change=lambda: _teacher_action("show_live", bool(st.session_state.get(live_key))),
              help="Show the answers as they come in (otherwise they stay hidden until the reveal).")
    if not state.revealed:
        st.button("Unlock answers" if state.locked else "Lock answers", key="class_lock",
                  icon=":material/lock_open:" if state.locked else ":material/lock:",
                  on_click=_teacher_action, args=("lock", not state.locked))
        st.button("Reveal", key="class_reveal", icon=":material/visibility:", type="primary",
                  on_click=_teacher_action, args=("reveal",))
    elif state.round < limits.CLASS_MAX_ROUNDS:
        st.button("Vote again", key="class_again", icon=":material/replay:", on_click=_teacher_action,
                  args=("vote_again",))
        st.caption("Vote again: students talk to a neighbour, then answer once more (peer instruction); "
                   "the reveal then shows both rounds side by side.")


@st.fragment(run_every=limits.CLASS_TEACHER_POLL_S)
def _teacher_live() -> None:
    if not teaching():
        return
    code, key = teaching()
    if not st.session_state.get(BEFORE_PAGE):
        publish_link()                 # a section's change the callback did not publish (its store call failed)
    _show_error()
    state = _call("state", code)
    if state is None:
        return
    from ui.shell import projector_on

    big = 28 if projector_on() else 18
    with st.container(border=True, key="class_teacher"):
        if st.session_state.get(SHOW_JOIN, True) and state.question is None:
            _join_banner(code, state)  # big, with the QR code, until the first question; then one line
        else:
            st.markdown(f"Join: **{code}** at {join_link(code)} · {state.students} joined")
        if state.question is None:
            st.caption("Ask the class a question from the sidebar.")
            return
        question = state.question
        st.markdown(f"#### Question {state.question_id}" + (f", round {state.round}" if state.round > 1 else "")
                    + f": {md(question.prompt)}")
        st.markdown(" · ".join(f"**{chr(65 + i)}.** {md(option)}" for i, option in enumerate(question.options)))
        status = "revealed" if state.revealed else ("locked" if state.locked else "open")
        st.markdown(f"**{state.answered}** of {state.students} answered · {status}")
        if state.revealed:
            _reveal(code, state, question, None, teacher_key=key, font_size=big)
        elif state.live:
            try:
                rounds = [class_store().counts(code, state.question_id, state.round, key=key)]
            except ValueError as error:
                show_error(str(error))
                return
            from ui import charts

            charts.show(answers_chart(question.options, rounds, None, title="Answers so far"), width="stretch",
                        font_size=big)


def _join_banner(code: str, state: ClassState) -> None:
    from ui.shell import qr_svg

    link = join_link(code)
    left, right = st.columns([3, 1])
    with left:
        st.markdown(f"<p style='font-size: 2.4rem; margin: 0'>Join: <strong style='letter-spacing: 0.12em'>"
                    f"{code}</strong></p>", unsafe_allow_html=True)
        st.markdown(f"Scan the code or open **{link}** and type the code. {state.students} joined.")
    with right:
        st.html(f"<img src='{qr_svg(link)}' alt='QR code to join class {code}: {link}' "
                "style='width: 100%; max-width: 200px; image-rendering: pixelated'>")


def _summary() -> None:
    code, summaries = st.session_state[SUMMARY]
    with st.container(border=True, key="class_summary"):
        st.subheader(f"Class {code}: the summary")
        if not summaries:
            st.caption("No question was asked.")
        for item in summaries:
            question = item.question
            shares = ", ".join(f"round {r + 1}: " + ("-" if s is None else f"{100 * s:.0f}% right")
                               for r, s in enumerate(item.correct_share))
            st.markdown(f"**{item.question_id}. {md(question.prompt)}** ({shares})")
            from ui import charts

            charts.show(answers_chart(question.options, item.counts, question.answer, title=f"Question "
                                      f"{item.question_id}"), width="content")
        st.download_button("Download the summary (CSV)", summary_csv(summaries), file_name=f"class-{code}.csv",
                           mime="text/csv", icon=":material/download:", key="class_csv")
        if st.button("Close the summary", key="class_close_summary"):
            st.session_state.pop(SUMMARY, None)
            st.rerun()


LESSON = "class.lesson"             # the lesson this teacher steps through (engine.classroom.lesson.Lesson)
SCENE = "class.scene"               # the index of the scene on screen
MY_LESSON = "class.my_lesson"       # the scenes this teacher collected
GO = "class.go"                     # the scene link the teacher's next run opens


def _lesson() -> object:
    from engine.classroom.lesson import chapter_lesson

    if LESSON not in st.session_state:
        st.session_state[LESSON] = chapter_lesson()
    return st.session_state[LESSON]


def _step(by: int) -> None:
    """Next or previous scene: the teacher's page moves there (followers move with it)."""
    lesson = _lesson()
    index = min(max(st.session_state.get(SCENE, -1) + by, 0), len(lesson.scenes) - 1)
    st.session_state[SCENE] = index
    st.session_state[GO] = lesson.scenes[index].link


def _ask_scene() -> None:
    from engine.classroom.lesson import scene_question
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
    from engine.classroom.lesson import parse_lesson

    file = st.session_state.get("class.lesson_file")
    if file is None:
        return
    try:
        st.session_state[LESSON] = parse_lesson(file.getvalue())
        st.session_state.pop(SCENE, None)
    except ValueError as error:
        st.session_state[ERROR] = str(error)


def _add_scene() -> None:
    from engine.classroom.lesson import Lesson, Scene, add_scene

    mine = st.session_state.get(MY_LESSON) or Lesson("My lesson", ())
    title = st.session_state.get("class.scene_title", "").strip() or st.session_state.get(PAGE, "") or "home"
    try:
        st.session_state[MY_LESSON] = add_scene(mine, Scene(title, page_link(), 0))
    except ValueError as error:
        st.session_state[ERROR] = str(error)


def _lesson_panel(code: str, key: str) -> None:
    """The lesson: scenes stepped with Previous and Next (keys PageUp and PageDown, as a presenter's clicker
    sends), the scene's question, saving and loading a lesson file."""
    from engine.classroom.lesson import dump_lesson

    with st.expander("Lesson", icon=":material/slideshow:", expanded=st.session_state.get(SCENE) is not None):
        lesson = _lesson()
        index = st.session_state.get(SCENE)
        st.caption(lesson.title)
        if index is not None:
            st.markdown(f"Scene {index + 1} of {len(lesson.scenes)}: **{lesson.scenes[index].title}**")
        left, right = st.columns(2)
        left.button("Previous", icon=":material/skip_previous:", key="class_previous", shortcut="PageUp",
                    on_click=_step, args=(-1,), disabled=not index)
        right.button("Next" if index is not None else "Start", icon=":material/skip_next:", key="class_next",
                     shortcut="PageDown", on_click=_step, args=(1,),
                     disabled=index is not None and index >= len(lesson.scenes) - 1)
        if index is not None:
            st.button("Ask this scene's question", icon=":material/quiz:", key="class_ask_scene", on_click=_ask_scene,
                      type="primary")
        st.file_uploader("Load a lesson (JSON)", type=["json"], key="class.lesson_file", on_change=_load_lesson,
                         max_upload_size=page.upload_megabytes(limits.LESSON_MAX_BYTES))
        st.text_input("Title of this page as a scene", key="class.scene_title", max_chars=80)
        st.button("Add this page to my lesson", icon=":material/playlist_add:", key="class_add_scene",
                  on_click=_add_scene)
        mine = st.session_state.get(MY_LESSON)
        if mine is not None and mine.scenes:
            st.download_button(f"Save my lesson ({len(mine.scenes)} scenes)", dump_lesson(mine),
                               file_name="lesson.json", mime="application/json", icon=":material/download:",
                               key="class_save_lesson")
        st.download_button("Save the lesson above", dump_lesson(lesson), file_name="lesson.json",
                           mime="application/json", icon=":material/download:", key="class_save_current")
