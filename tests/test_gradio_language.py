"""The Gradio Space in the visitor's language, per request (issue 41): ?lang= in the Space's address (the call's own
query, else the page's, in its Referer), else the browser's Accept-Language, else English; every event of the app
runs in it (engine.i18n.use: that call alone, never the process), and a handout's QR code keeps it."""
from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from engine import i18n
from gradio_tabs import common


def request(query=None, referer="", accept=""):
    headers = {"referer": referer, "accept-language": accept, "origin": "http://space.example"}
    return SimpleNamespace(query_params=query or {}, headers=headers, base_url="http://space.example/")


@pytest.mark.parametrize("asked, code", [
    (request(query={"lang": "ko"}), "ko"),
    (request(referer="http://space.example/?lang=ar&x=1"), "ar"),
    (request(accept="es-MX,es;q=0.9,en;q=0.8"), "es"),
    (request(accept="zh-CN,zh;q=0.9"), "zh-Hans"),
    (request(query={"lang": "ko"}, accept="es"), "ko"),          # the link wins over the browser
    (request(query={"lang": "tlh"}, accept="fr,de"), "en"),      # nothing we speak: English
    (None, "en"),
])
def test_a_requests_language(asked, code):
    assert common.language_of(asked) == code


def test_an_event_runs_in_its_callers_language_and_leaves_the_process_alone(monkeypatch):
    callers = {"a": request(query={"lang": "es"}), "b": request(accept="ko")}
    local = threading.local()
    monkeypatch.setattr(common, "_current_request", lambda: callers[local.who])

    @common.in_language
    def event(x):
        return i18n.current().code, i18n._("That input does not work")

    @common.in_language
    def stream(x):
        yield i18n.current().code

    seen = {}

    def call(who):
        local.who = who
        seen[who] = event(1), list(stream(1))

    threads = [threading.Thread(target=call, args=(who,)) for who in callers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["a"][0][0] == "es" and seen["b"][0][0] == "ko" and seen["a"][1] == ["es"]
    with i18n.use("es"):
        assert seen["a"][0][1] == i18n._("That input does not work") != "That input does not work"
    assert i18n.current().code == "en"                          # the process's language never moved
    assert common.in_language(event) is event                   # wrapped once


def test_every_event_of_the_space_is_wrapped():
    import gradio_app

    assert all(getattr(fn.fn, "_in_language", False) for fn in gradio_app.demo.fns.values() if fn.fn is not None)


def test_the_handouts_link_keeps_the_language():
    from gradio_tabs import take_home

    assert take_home._link(request(query={"lang": "ar"})) == "http://space.example/?lang=ar"
    assert take_home._link(request()) == "http://space.example/"


def test_the_spaces_head_follows_the_request():
    import gradio_app

    assert gradio_app.intro().startswith("# Transformer Playground\nAttention and the transformer")
    with i18n.use("ko"):
        assert gradio_app.intro() == "# Transformer Playground\n" + i18n._(gradio_app.INTRO) != gradio_app.intro.__doc__
