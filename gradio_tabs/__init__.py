"""The Gradio Space's tabs, one per page of ui/path.py, each calling the same engine functions as its page.

    language      Tokens & next-token prediction, N-gram sampler
    embeddings    Embedding explorer
    context_window        Context: window vs attention
    multi_head    Multi-head attention
    attention_calculator  Attention calculator
    head_viewer   Head viewer (SmolLM2)
    smollm2       Inside the model
    transformer   Position, Block builder (a short live training, streamed), Generate
    beyond        Beyond words
    common        engine calls whose ValueError becomes gr.Error, whole numbers, charts, tables
    loaders       one loader per heavy object, built once per process

`TABS` maps each page's URL name (ui.path.Idea.url) to the function that builds its tab inside
`gr.Tab`; gradio_app.py lays them out in the chapter's order. Every event with an `api_name` is an
endpoint a notebook can call with gradio_client (README, "A second way: a Gradio Space").
"""
from __future__ import annotations

from gradio_tabs.attention_calculator import attention_calculator_tab
from gradio_tabs.beyond import beyond_words_tab
from gradio_tabs.context_window import context_window_tab
from gradio_tabs.embeddings import embeddings_tab
from gradio_tabs.head_viewer import head_viewer_tab
from gradio_tabs.language import ngram_sampler_tab, tokens_tab
from gradio_tabs.multi_head import multi_head_attention_tab
from gradio_tabs.smollm2 import inside_the_model_tab
from gradio_tabs.transformer import block_builder_tab, generate_page_tab, position_page_tab

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
