"""What a student's listener fetches and sends without a rerun (ui.class_live), on both stores, spoken to in raw ASGI
as Streamlit's server would: the question in the reader's language (escaped HTML, right to left in Arabic), made once
per process per class, round and language; the vote counted once per student and round, changeable until locked,
refused from another site, without the browser's cookie, for an unknown code and when malformed, each with a
sentence; no other student's answer and no key in any reply; a follower's view with the open question's veils."""
from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from engine.classroom import identity
from engine.classroom.store import Question
from engine.classroom.view import ClassView, Part
from tests.engine.classroom.test_store import kind_spec, make_store, redis_url  # noqa: F401 (fixtures)
from tests.test_class_events import events, served  # noqa: F401 (fixture)

Q = Question("attention", "Which key <b>wins</b>?", ("crane", "by <i>", "lake"), answer=1,
             renderings=(("es", "¿Qué clave gana?", ("grulla", "por", "lago"), ""),
                         ("ar", "أي مفتاح يفوز؟", ("كركي", "بواسطة", "بحيرة"), "")))
SAME_SITE = {"sec-fetch-site": "same-origin"}


@pytest.fixture(autouse=True)
def fresh_cards(monkeypatch):
    from engine.classroom.live import Cards
    from ui import class_live

    monkeypatch.setattr(class_live, "cards", Cards())
    class_live._shared.clear()


async def call(app, method: str, path: str, query: str = "", cookie: str | None = None,
               headers: dict | None = None, body: bytes = b""):
    """One request as a browser sends it: (status, JSON body)."""
    sent_headers = [(b"host", b"testserver")] + ([(b"cookie", cookie.encode())] if cookie else [])
    sent_headers += [(name.encode(), value.encode()) for name, value in (headers or {}).items()]
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": query.encode(),
             "headers": sent_headers, "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
             "root_path": "", "http_version": "1.1", "asgi": {"version": "3.0"}}
    sent: list[dict] = []
    asked = False

    async def receive():
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    data = b"".join(m.get("body", b"") for m in sent[1:])
    sent_back = dict(sent[0].get("headers", []))
    if sent_back.get(b"content-encoding") == b"gzip":
        call.gzipped.append(len(data))
        data = gzip.decompress(data)
    return sent[0]["status"], (json.loads(data) if data else None)


call.gzipped = []                      # sizes of the gzipped replies (the last test reads them)


def cookie(browser: str) -> str:
    from ui import app_server

    return f"{identity.COOKIE_NAME}={identity.sign(browser, app_server.secret())}"


def a_class(store, students: int = 2):
    """A class with `students` joined browsers (their ids) and Q asked."""
    browsers = [identity.new_id() for _ in range(students)]
    code, key = store.create_class("teacher-browser")
    for browser in browsers:
        store.join(code, identity.student_id(browser))
    store.ask(code, key, Q)
    return code, key, browsers


def vote(app, code, browser, option, question=1, round_=1, headers=SAME_SITE, raw: bytes | None = None):
    body = raw if raw is not None else json.dumps({"question": question, "round": round_, "option": option}).encode()
    return call(app, "POST", f"/api/class/{code}/vote", cookie=cookie(browser) if browser else None,
                headers=headers, body=body)


def test_the_question_reads_in_the_readers_language_escaped_and_made_once(events):  # noqa: F811
    from ui import class_live

    app, store = events
    code, key, (browser, _) = a_class(store)

    async def run():
        english = await call(app, "GET", f"/api/class/{code}/question", "lang=en", cookie(browser))
        spanish = await call(app, "GET", f"/api/class/{code}/question", "lang=es", cookie(browser))
        arabic = await call(app, "GET", f"/api/class/{code}/question", "lang=ar", cookie(browser))
        again = [await call(app, "GET", f"/api/class/{code}/question", "lang=es", cookie(browser)) for _ in range(5)]
        unknown_language = await call(app, "GET", f"/api/class/{code}/question", "lang=xx", cookie(browser))
        return english, spanish, arabic, again, unknown_language
    english, spanish, arabic, again, unknown_language = served(run())
    assert english[0] == 200 and english[1]["status"] == "open" and english[1]["mine"] is None
    card = english[1]["card"]
    assert card["title"] == "<strong>Question 1</strong>: Which key &lt;b&gt;wins&lt;/b&gt;?"
    assert card["options"] == ["crane", "by &lt;i&gt;", "lake"] and card["dir"] == "ltr"
    assert card["received"][2].startswith("Answer received: lake.")
    assert "¿Qué clave gana?" in spanish[1]["card"]["title"] and spanish[1]["card"]["options"][0] == "grulla"
    assert spanish[1]["card"]["lang"] == "es" and spanish[1]["card"]["legend"] != "Your answer"
    assert arabic[1]["card"]["lang"] == "ar" and arabic[1]["card"]["dir"] == "rtl"
    assert "\u2068بحيرة\u2069" in arabic[1]["card"]["received"][2]          # the option isolated in its sentence
    assert "\u2068أي مفتاح يفوز؟\u2069" in arabic[1]["card"]["title"]         # and the prompt in its title
    assert all(reply == spanish for reply in again)
    assert unknown_language[1]["card"]["lang"] == "en"
    assert class_live.cards.made == 3                                      # en, es, ar: once each
    for reply in (english, spanish, arabic):
        assert key not in json.dumps(reply[1]) and '"answer"' not in json.dumps(reply[1])


def test_a_vote_counts_once_changes_until_locked_and_reads_back_as_mine_alone(events):  # noqa: F811
    app, store = events
    code, key, (first, second) = a_class(store)

    async def run():
        one = await vote(app, code, first, 0)
        changed = await vote(app, code, first, 2)
        other = await vote(app, code, second, 1)
        mine = await call(app, "GET", f"/api/class/{code}/question", "lang=en", cookie(first))
        theirs = await call(app, "GET", f"/api/class/{code}/question", "lang=en", cookie(second))
        nobody = await call(app, "GET", f"/api/class/{code}/question", "lang=en")
        await asyncio.to_thread(store.lock, code, key)
        locked = await vote(app, code, first, 1)
        wrong_round = await vote(app, code, second, 1, round_=2)
        return one, changed, other, mine, theirs, nobody, locked, wrong_round
    one, changed, other, mine, theirs, nobody, locked, wrong_round = served(run())
    assert one == (200, {"question": 1, "round": 1, "option": 0}) and changed[0] == 200 and other[0] == 200
    assert store.counts(code, 1, 1, key=key) == (0, 1, 1)                  # one vote per student and round
    assert mine[1]["mine"] == 2 and theirs[1]["mine"] == 1 and nobody[1]["mine"] is None
    assert locked[0] == 409 and "locked" in locked[1]["error"]
    assert store.my_vote(code, identity.student_id(first), 1, 1) == 2      # the locked vote was not counted
    assert wrong_round[0] == 409 and wrong_round[1]["error"]
    for reply in (mine, theirs, nobody):
        text = json.dumps(reply[1])
        assert key not in text and identity.student_id(first) not in text and identity.student_id(second) not in text


def test_the_reveal_comes_by_the_question_route_with_each_readers_own_answer(events):  # noqa: F811
    """Once revealed, the question route carries the reveal the listener draws (no rerun): the answer and its share,
    the sentence for each answer, the class's answers chart as an SVG image; made once per process per language
    (its counts read once: they no longer change); each browser's own answer beside it, nobody else's."""
    from ui import class_live

    app, store = events
    code, key, (first, second) = a_class(store)

    async def run():
        await vote(app, code, first, 1)
        await vote(app, code, second, 2)
        store.lock(code, key)
        store.reveal(code, key)
        mine = await call(app, "GET", f"/api/class/{code}/question", "lang=en", cookie(first))
        theirs = await call(app, "GET", f"/api/class/{code}/question", "lang=en", cookie(second))
        arabic = await call(app, "GET", f"/api/class/{code}/question", "lang=ar", cookie(second))
        nobody = await call(app, "GET", f"/api/class/{code}/question", "lang=en")
        return mine, theirs, arabic, nobody
    made = class_live.cards.made
    mine, theirs, arabic, nobody = served(run())
    assert mine[0] == 200 and mine[1]["status"] == "revealed"
    assert (mine[1]["mine"], theirs[1]["mine"], nobody[1]["mine"]) == (1, 2, None)
    reveal = mine[1]["reveal"]
    assert reveal == theirs[1]["reveal"] == nobody[1]["reveal"]           # the same card: the answer is the reader's
    assert reveal["answer"] == "<strong>The answer: by &lt;i&gt;</strong>. Right: round 1: 1 of 2 (50%)."
    assert reveal["yours"] == ["Yours was crane.", "Yours was right.", "Yours was lake."]
    assert reveal["chart"].startswith('<img class="tp-chart" src="data:image/svg+xml;base64,')
    assert 'alt="Bar chart &#x27;The class&#x27;s answers&#x27; (3 values)."' in reveal["chart"]   # said in words
    assert arabic[1]["reveal"]["dir"] == "rtl" and "\u2068بواسطة\u2069" in arabic[1]["reveal"]["answer"]
    assert class_live.cards.made - made == 2 + 2                          # the question and the reveal, in en and ar
    for reply in (mine, theirs, arabic, nobody):
        assert key not in json.dumps(reply[1])


def test_a_vote_from_another_site_without_a_cookie_or_malformed_is_refused_with_a_sentence(events):  # noqa: F811
    app, store = events
    code, key, (browser, _) = a_class(store)

    async def run():
        return [
            await vote(app, code, browser, 1, headers={"sec-fetch-site": "cross-site"}),
            await vote(app, code, browser, 1, headers={"sec-fetch-site": "same-site"}),
            await vote(app, code, browser, 1, headers={"origin": "http://evil.example"}),
            await vote(app, code, browser, 1, headers={}),                 # neither header: not a page of ours
            await vote(app, code, None, 1),                                # no cookie
            await vote(app, code, browser, 1, raw=b"{not json"),
            await vote(app, code, browser, 1, raw=json.dumps({"question": 1, "round": 1, "option": "1"}).encode()),
            await vote(app, code, browser, 1, raw=b"x" * 5000),
            await vote(app, code, browser, 7),                             # no such option
            await vote(app, "not-a-code!!", browser, 1),
            await vote(app, "ABCDEFGH", browser, 1),
        ], await vote(app, code, browser, 1, headers={"origin": "http://testserver"})
    refused, same_host = served(run())
    statuses = [status for status, _ in refused]
    assert statuses == [403, 403, 403, 403, 403, 400, 400, 400, 409, 400, 404], refused
    assert "another site" in refused[0][1]["error"] and "reload the page" in refused[4][1]["error"]
    assert "No open class has the code ABCDEFGH" in refused[10][1]["error"]
    assert all(isinstance(body["error"], str) and body["error"].endswith(".") for _, body in refused)
    assert same_host[0] == 200                                             # a browser without Sec-Fetch-Site
    assert store.counts(code, 1, 1, key=key) == (0, 1, 0)                  # only that one was counted


def test_unknown_and_ended_classes_are_said_by_every_route(events):  # noqa: F811
    app, store = events
    code, key, (browser, _) = a_class(store)

    async def run():
        unknown = [await call(app, "GET", f"/api/class/ABCDEFGH/{what}", "lang=en")
                   for what in ("question", "view.json")]
        bad = await call(app, "GET", "/api/class/zz/question")
        await asyncio.to_thread(store.end, code, key)
        ended = [await call(app, "GET", f"/api/class/{code}/{what}", "lang=es") for what in ("question", "view.json")]
        return unknown, bad, ended
    unknown, bad, ended = served(run())
    assert [status for status, _ in unknown] == [404, 404] and "ABCDEFGH" in unknown[0][1]["error"]
    assert bad[0] == 400
    assert [status for status, _ in ended] in ([410, 410], [404, 404])    # ended: said, or its record already gone
    assert all(body["error"] for _, body in ended)


def test_a_followers_view_carries_the_open_questions_veils_until_the_reveal(events):  # noqa: F811
    app, store = events
    code, key = store.create_class("teacher-browser")
    view = ClassView("attention?x=1", "Attention calculator", "", (Part(("weights",), "<p>the weights</p>"),
                                                                   Part((), "<p>the vectors</p>")))
    store.follow(code, key, "attention?x=1")
    store.put_view(code, key, view.to_json())

    async def run():
        before = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en")
        await asyncio.to_thread(store.ask, code, key, Question("attention", "Which?", ("a", "b"), 0,
                                                               veils=("weights",)))
        veiled = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en")
        await asyncio.to_thread(store.reveal, code, key)
        revealed = await call(app, "GET", f"/api/class/{code}/view.json", "lang=ko")
        return before, veiled, revealed
    before, veiled, revealed = served(run())
    assert before[0] == 200 and "the weights" in before[1]["body"] and before[1]["explore"] == "Explore from here"
    assert "the weights" not in veiled[1]["body"] and "Veiled until the reveal" in veiled[1]["body"]
    assert "the vectors" in veiled[1]["body"] and veiled[1]["version"] > before[1]["version"]
    assert "the weights" in revealed[1]["body"] and revealed[1]["lang"] == "ko"
    assert any("English" in note for note in revealed[1]["notes"])         # made in the teacher's language
    assert key not in json.dumps([before, veiled, revealed])


def test_a_page_that_holds_the_views_body_is_sent_the_rest_alone(events):  # noqa: F811
    app, store = events
    code, key = store.create_class("teacher-browser")
    store.follow(code, key, "attention?x=1")
    view = ClassView("attention?x=1", "Attention calculator", "", (Part((), "<p>big</p>"),))
    store.put_view(code, key, view.to_json())

    async def run():
        whole = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en")
        await asyncio.to_thread(store.follow, code, key, "context?k=3")      # moved: the new view is being made
        same = await call(app, "GET", f"/api/class/{code}/view.json", f"lang=en&have={whole[1]['digest']}")
        stale = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en&have=0123")
        return whole, same, stale
    whole, same, stale = served(run())
    assert "<p>big</p>" in whole[1]["body"] and "same" not in whole[1]
    assert same[1]["same"] is True and "body" not in same[1] and same[1]["digest"] == whole[1]["digest"]
    assert any("moved on" in note for note in same[1]["notes"]) and same[1]["link"] == "context?k=3"
    assert "<p>big</p>" in stale[1]["body"]


def test_a_view_goes_gzipped_to_a_browser_that_takes_it(events):  # noqa: F811
    app, store = events
    code, key = store.create_class("teacher-browser")
    store.follow(code, key, "attention?x=1")
    chart = "<svg>" + "<rect width='1' height='2'/>" * 2000 + "</svg>"
    store.put_view(code, key, ClassView("attention?x=1", "Attention calculator", "", (Part((), chart),)).to_json())
    call.gzipped.clear()

    async def run():
        plain = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en")
        packed = await call(app, "GET", f"/api/class/{code}/view.json", "lang=en",
                            headers={"accept-encoding": "gzip, deflate, br"})
        return plain, packed
    plain, packed = served(run())
    assert packed == plain and chart in plain[1]["body"]
    assert len(call.gzipped) == 1 and call.gzipped[0] < len(json.dumps(plain[1])) / 10
