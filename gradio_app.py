"""Transformer Playground as a Gradio app: the same `engine`, a second way to host it.

    python gradio_app.py            # http://127.0.0.1:7860 (GRADIO_SERVER_NAME/PORT override)

One tab per page of the Streamlit app, in the chapter's order (ui/path.py), built by the
`gradio_tabs` package. Each tab is also one or more API endpoints (their `api_name`), so a
notebook can call the running app with `gradio_client`:

    from gradio_client import Client
    client = Client("http://127.0.0.1:7860/")
    weights, context, summary, chart = client.predict(CHAPTER_MATRIX, True, False, 0, 1.0, False, "identity", 0,
                                                      api_name="/attention")

Bad input raises `gr.Error` with the engine's own sentence (the page shows it; the API
caller gets it as the error message). The engine is untouched: every tab only calls
engine functions and draws their results.
"""
from __future__ import annotations

import os
import signal

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")   # offline: no usage pings

import gradio as gr  # noqa: E402

from engine import limits  # noqa: E402
from gradio_tabs import TABS  # noqa: E402
from engine.chapter.attention import CHAPTER_MATRIX  # noqa: E402,F401  (the attention endpoint's example input)
from engine.i18n import N_, _  # noqa: E402
from gradio_tabs.common import (  # noqa: E402,F401  (engine_call importable)
    check_types, engine_call, localize_events, plain_api_labels, say, space_i18n, static,
)
from gradio_tabs.document import middleware as document_middleware  # noqa: E402
from gradio_tabs.door import guard_inputs, middleware as door_middleware  # noqa: E402
from gradio_tabs.take_home import take_home_box  # noqa: E402
from ui.path import PATH  # noqa: E402

# System fonts: the default theme would ask the visitor's browser to fetch Google Fonts.
THEME = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                          font_mono=["ui-monospace", "SFMono-Regular", "monospace"])


INTRO = N_("Attention and the transformer, one idea per tab, on the same engine as the Streamlit app. Every tab is "
           "also an API endpoint (*Use via API* at the foot of the page).")


def intro() -> str:
    """The Space's head, in the language of the request (the page load runs in it: localize_events)."""
    return "# Transformer Playground\n" + _(INTRO)


def build() -> gr.Blocks:
    """Every idea of ui/path.py as a tab, in order, under its part of the chapter (twelve tabs in one row
    would hide most of them behind an overflow menu), each built by its gradio_tabs function, with a box at its foot
    that takes it home (gradio_tabs.take_home: its charts as files, its handout as PDF)."""
    # uploads no call read leave the disk after GRADIO_UPLOAD_MAX_AGE_S (and all of them when the server stops); a
    # call deletes what it read as it ends (gradio_tabs.common.upload_bytes)
    with gr.Blocks(title="Transformer Playground",
                   delete_cache=(limits.GRADIO_SWEEP_S, limits.GRADIO_UPLOAD_MAX_AGE_S)) as demo:
        header = gr.Markdown(static(intro))
        demo.load(intro, None, header, api_visibility="private")   # in the visitor's language (?lang=, browser)
        for part, group in PATH.items():
            with gr.Tab(say(part), id=part):
                with gr.Tabs():
                    for idea in group:
                        with gr.Tab(say(idea.spec.title), id=idea.url) as tab:
                            TABS[idea.url](demo)
                            take_home_box(idea, tab)
    check_types(demo)
    guard_inputs(demo)
    localize_events(demo)      # every event in its caller's language (?lang= or the browser's), per request
    plain_api_labels(demo)     # the API names each value in English text, not by the browser's translation keys

    return demo


def serve(**options) -> None:
    """Queue and launch the app with its limits at the door: uploads of at most limits.GRADIO_MAX_UPLOAD_BYTES
    (Gradio's upload route refuses more while the file streams in), any other request body of at most
    limits.GRADIO_MAX_REQUEST_BYTES (gradio_tabs.door), two of one event at once; its static text (tab names,
    labels, buttons) in the visitor's language, from our catalogs (gradio_tabs.common.space_i18n): the link's ?lang=,
    else the browser's, the page in Arabic right to left (gradio_tabs.document)."""
    demo.queue(default_concurrency_limit=2).launch(
        max_file_size=limits.GRADIO_MAX_UPLOAD_BYTES, theme=THEME, i18n=space_i18n(), show_error=True,
        app_kwargs={"middleware": [*door_middleware(), *document_middleware()]}, **options)


demo = build()

if __name__ == "__main__":
    # a container stops with SIGTERM: close as Ctrl-C does, so Gradio's shutdown deletes every upload left on disk
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    serve(server_name=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
          server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
