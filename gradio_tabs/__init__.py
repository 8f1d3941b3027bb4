"""The Gradio Space's tabs, one per page of ui/path.py, each calling the same engine functions as its page.

    tokens        Tokens & next-token prediction
    ngram         N-gram sampler
    embeddings    Embedding explorer
    context_window        Context: window vs attention
    multi_head    Multi-head attention
    attention_calculator  Attention calculator
    head_viewer   Head viewer (SmolLM2)
    inside_the_model      Inside the model
    position      Position
    block_builder Block builder (a short live training, streamed)
    generate      Generate
    beyond_words  Beyond words
    common        engine calls whose ValueError becomes gr.Error, whole numbers, charts, tables (shown as the
                  page prints them), the reader's language per request
    document      the served page in its reader's language (?lang=, else the browser's): <html lang dir>,
                  the frontend's locale, Arabic right to left
    loaders       one loader per heavy object, built once per process

`TABS` maps each page's URL name (ui.path.Idea.url) to the function that builds its tab inside
`gr.Tab`; gradio_app.py lays them out in the chapter's order. Every event with an `api_name` is an
endpoint a notebook can call with gradio_client (README, "A second way: a Gradio Space").
"""
from __future__ import annotations

from gradio_tabs.attention_calculator import attention_calculator_tab
from gradio_tabs.beyond_words import beyond_words_tab
from gradio_tabs.block_builder import block_builder_tab
from gradio_tabs.context_window import context_window_tab
from gradio_tabs.embeddings import embeddings_tab
from gradio_tabs.generate import generate_page_tab
from gradio_tabs.head_viewer import head_viewer_tab
from gradio_tabs.inside_the_model import inside_the_model_tab
from gradio_tabs.multi_head import multi_head_attention_tab
from gradio_tabs.ngram import ngram_sampler_tab
from gradio_tabs.position import position_page_tab
from gradio_tabs.tokens import tokens_tab

TABS = {
    "tokens": tokens_tab,
    "ngram": ngram_sampler_tab,
    "embeddings": embeddings_tab,
    "context": context_window_tab,
    "attention": attention_calculator_tab,
    "multi-head": multi_head_attention_tab,
    "heads": head_viewer_tab,
    "inside": inside_the_model_tab,
    "block": block_builder_tab,
    "position": position_page_tab,
    "generate": generate_page_tab,
    "beyond": beyond_words_tab,
}
