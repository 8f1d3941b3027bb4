"""Following by the class view (issue 42) in AppTest: the teacher's run leaves one view of its page (every page's
view holds its title, question and charts as SVG, no script, under CLASS_VIEW_MAX_BYTES); a following student's
session shows it without running the page; Explore from here opens the real page at the teacher's link, and a
button brings the student back; a veiled answer stays out of the view until the reveal; typed text is escaped.

The view itself (escaping, sizes, both stores) is tested in tests/engine/classroom/test_view.py."""
from __future__ import annotations


import pytest

from engine import limits
from engine.classroom.view import TOO_LARGE, ClassView
from tests.engine.classroom.test_view import parsed
from tests.markdown_leaks import HOST, TOGETHER
from tests.pages import test_classroom as classroom_tests

data, both, redis_url = classroom_tests.data, classroom_tests.both, classroom_tests.redis_url   # fixtures
session, teacher, markdown, asked_on = (classroom_tests.session, classroom_tests.teacher, classroom_tests.markdown,
                                        classroom_tests.asked_on)
ATTENTION = classroom_tests.ATTENTION
PAGES = ["views/tokens.py", "views/ngram.py", "views/embeddings.py", "views/context_window.py",
         "views/attention_calculator.py", "views/multi_head.py", "views/position.py", "views/block_builder.py",
         "views/generate.py", "views/beyond_words.py"]
SMOLLM2_PAGES = ["views/head_viewer.py", "views/inside_the_model.py"]


def stored_view(code: str) -> ClassView:
    """The class's view once the teacher's process has made it (the maker works beside the run)."""
    from ui.classroom import class_store, view_maker

    assert view_maker().drain(120)
    text = class_store().view(code)
    assert text is not None and len(text.encode("utf-8")) <= limits.CLASS_VIEW_MAX_BYTES
    return ClassView.from_json(text)


def view_html(at) -> str:
    bodies = [h.proto.body for h in at.get("html") if 'class="tp-view"' in h.proto.body]
    assert len(bodies) <= 1
    return bodies[0] if bodies else ""


def ran_the_page(at) -> bool:
    """Whether this session's last run drew a page (its header's title, or any chart)."""
    return bool(at.title) or bool(at.get("arrow_vega_lite_chart")) or bool(at.get("vega_lite_chart"))


def check_page_view(page_file: str) -> None:
    from ui.recording import RECORD

    T, code = teacher()
    T.switch_page(page_file).run()
    assert not T.exception, [e.value for e in T.exception]
    record = T.session_state[RECORD]
    view = stored_view(code)
    from ui.classroom import page_link

    assert view.title == record.title and view.title and view.question == record.question
    body = view.body()
    assert "<h2>" + view.title.replace("&", "&amp;") + "</h2>" in body
    charts = sum(type(block).__name__ == "Chart" for block in record.blocks())
    assert (charts == 0) == (view.charts == 0) and view.charts <= min(charts, limits.CLASS_VIEW_MAX_CHARTS)
    if view.charts < charts:           # past CLASS_VIEW_MAX_BYTES the largest drawings give way to their sentences
        assert TOO_LARGE in body
    assert body.count('<img class="tp-chart" src="data:image/svg+xml;base64,') == view.charts
    tags, attributes = parsed(body)
    assert not tags & {"script", "iframe", "object", "embed", "link", "a"}
    assert not [name for name, _ in attributes if name.startswith("on")]
    assert all(value.startswith("data:image/svg+xml;base64,") for name, value in attributes if name == "src")
    assert view.link == T.session_state["class.published"]
    del page_link


@pytest.mark.parametrize("page_file", PAGES)
def test_every_pages_view_holds_its_title_question_and_charts_as_svg(data, page_file):
    check_page_view(page_file)


@pytest.mark.parametrize("page_file", SMOLLM2_PAGES)
def test_the_smollm2_pages_views(data, smollm2_installed, page_file):
    check_page_view(page_file)


def test_a_follower_sees_the_view_without_running_the_page_and_moves_with_the_teacher(both):
    from ui import classroom

    T, code = teacher()
    stored_view(code)
    S = session({"class": code}, page=None)
    assert not ran_the_page(S), "a follower ran the teacher's page"
    assert "<h2>Attention calculator</h2>" in view_html(S) and "data:image/svg+xml" in view_html(S)
    assert S.button(key="class_explore") is not None
    T.switch_page("views/context_window.py").run()
    T.slider(key="context.k").set_value(3).run()          # a setting changed in a section of the page
    stored_view(code)
    T.run()                                               # the teacher's poll (its section reran alone)
    view = stored_view(code)
    assert view.title == "Context: window vs attention" and "k=3" in view.link
    S.run()                                               # the student's poll sees the new view: a whole run
    S.run()
    assert not ran_the_page(S)
    assert "<h2>Context: window vs attention</h2>" in view_html(S)
    assert classroom.class_store().view(code) == view.to_json()


def test_a_follower_who_reads_another_language_is_told_the_view_is_the_teachers(data):
    from engine import i18n

    T, code = teacher()                                   # the teacher reads English
    stored_view(code)
    S = session({"class": code, "lang": "ko"}, page=None)
    assert not ran_the_page(S) and "<h2>Attention calculator</h2>" in view_html(S)
    assert 'lang="en"' in view_html(S)
    with i18n.use("ko"):
        told = i18n._(":material/translate: The teacher's page shows here as the teacher reads it, in "
                      "{language}. Explore from here to read it in yours.", language="English")
    assert told in [c.value for c in S.caption]
    E = session({"class": code, "lang": "en"}, page=None)  # a follower who reads the teacher's language: no note
    assert not [c.value for c in E.caption if ":material/translate:" in c.value]


def test_explore_from_here_opens_the_real_page_at_the_teachers_link_and_back_to_following(data):
    T, code = teacher()
    T.switch_page("views/context_window.py").run()
    T.slider(key="context.k").set_value(3).run()
    T.run()
    stored_view(code)
    S = session({"class": code}, page=None)
    assert not ran_the_page(S)
    S.button(key="class_explore").click().run()
    assert [t.value for t in S.title] == ["Context: window vs attention"]          # one ordinary run of the page
    assert S.query_params["k"] == "3" and S.session_state["context.k"] == 3       # at the teacher's settings
    assert S.session_state["class.exploring"] is True and view_html(S) == ""
    S.slider(key="context.k").set_value(2).run()                                  # explores on its own
    T.switch_page(ATTENTION).run()
    stored_view(code)
    S.run()
    assert S.session_state["context.k"] == 2                                      # the teacher does not pull it
    S.button(key="class_back").click().run()                                      # back to following
    assert not ran_the_page(S) and "<h2>Attention calculator</h2>" in view_html(S)
    assert S.session_state["class.follow"] is True and "class.exploring" not in S.session_state


def test_the_answer_stays_out_of_the_view_until_the_reveal(data):
    T, code = teacher()
    asked_on(T, ATTENTION)
    view = stored_view(code)
    assert "0.298" in view.body()                        # the teacher's own screen shows it: the view holds it
    S = session({"class": code}, page=None)
    assert "Query 'crane'" in markdown(S)                 # the question, above the view
    assert "0.298" not in view_html(S) and "Veiled until the reveal" in view_html(S)
    assert "<h2>Attention calculator</h2>" in view_html(S)
    T.button(key="class_reveal").click().run()
    S.run()                                               # the poll: the veils changed, the view is drawn again
    S.run()
    assert "0.298" in view_html(S) and "Veiled" not in view_html(S)


def test_what_the_teacher_types_is_escaped_in_the_view(data):
    T, code = teacher()
    T.switch_page("views/context_window.py").run()
    T.text_input(key="context.sentence").set_value(f"the crane {TOGETHER}").run()
    T.run()
    assert not T.exception
    S = session({"class": code}, page=None)
    stored_view(code)
    S.run()
    S.run()
    body = view_html(S)
    assert "tp-view" in body
    tags, attributes = parsed(body)
    assert not tags & {"script", "iframe", "a"}
    assert not [value for name, value in attributes if name in ("src", "href") and HOST in (value or "")]
    assert all(value.startswith("data:image/svg+xml;base64,") for name, value in attributes if name == "src")


def test_the_class_route_serves_the_view_as_a_page_with_no_key(data):
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from ui import class_view_route
    from ui.classroom import class_store

    T, code = teacher()
    stored_view(code)
    key = T.session_state["class.teacher"][1]
    class_view_route._store.cache_clear()
    client = TestClient(Starlette(routes=class_view_route.routes()))
    answer = client.get(f"/api/class/{code.lower()}/view")
    assert answer.status_code == 200 and "<h2>Attention calculator</h2>" in answer.text
    assert "script-src" not in answer.headers["content-security-policy"]
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["cache-control"] == "no-store"
    assert key not in answer.text and 'href="/attention?' in answer.text and f"class={code}" in answer.text
    assert client.get("/api/class/K7QM2XPA/view").status_code == 404
    assert "not a class code" in client.get("/api/class/nonsense!/view").text
    class_store().end(code, key)
    assert client.get(f"/api/class/{code}/view").status_code == 404
    class_view_route._store.cache_clear()


def test_a_lesson_moves_the_followers_view_scene_by_scene(data):
    T, code = teacher()
    S = session({"class": code}, page=None)
    T.button(key="class_next").click().run()              # start: scene 1, the Tokens page
    assert "Tokens" in T.title[0].value
    stored_view(code)
    S.run()
    assert not ran_the_page(S) and "Tokens" in view_html(S)
    T.button(key="class_ask_scene").click().run()
    S.run()
    assert "Mary had a little" in markdown(S)             # the scene's question, above the view
    T.button(key="class_next").click().run()
    stored_view(code)
    S.run()
    assert "N-gram" in view_html(S)
