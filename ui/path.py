"""The chapter as a path of pages: one list, read by app.py (navigation, home) and by
`ui.page.next_idea` (the link at the foot of each page)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Idea:
    file: str
    url: str
    title: str
    icon: str
    one_line: str
    beyond: str = ""   # for a page that goes beyond the chapter: what it adds (sidebar, home and the page say so)


# In the chapter's order, grouped as the chapter tells it: the block (FFN, residuals, LayerNorm) before order and
# positional encoding. The head viewer and Inside the model follow multi-head attention but go beyond the chapter
# (their `beyond` says how).
PATH: dict[str, list[Idea]] = {
    "Language modelling": [
        Idea("views/tokens.py", "tokens", "Tokens & next-token prediction", ":material/token:",
             "Cut any text into characters, words, BPE and GPT-2 tokens; "
             "then see P(next token) for 'Mary had a little'."),
        Idea("views/ngram.py", "ngram", "N-gram sampler", ":material/casino:",
             "Count, sample and score n-grams of Shakespeare: the V^n table that cannot be filled, and the loops."),
    ],
    "Embeddings": [
        Idea("views/embeddings.py", "embeddings", "Embedding explorer", ":material/scatter_plot:",
             "400,000 real word vectors: nearest words, king - man + woman, offsets on a map, and homonyms."),
    ],
    "Attention": [
        Idea("views/context_window.py", "context", "Context: window vs attention", ":material/filter_center_focus:",
             "Average a fixed window around 'crane', then let relevance choose: which one reaches 'lake'?"),
        Idea("views/attention_calculator.py", "attention", "Attention calculator", ":material/calculate:",
             "Edit every number of X, W_Q, W_K, W_V and follow scores, softmax and context step by step."),
        Idea("views/multi_head.py", "multi-head", "Multi-head attention", ":material/view_week:",
             "h heads of width d/h, concatenated, times W_O: shapes at every step, and what it costs."),
        Idea("views/head_viewer.py", "heads", "Head viewer (SmolLM2)", ":material/grid_view:",
             "All 270 heads of a real trained model on your sentence: which look back one token, which copy?",
             beyond="The chapter says trained heads are often interpretable; this page reads the heads of a real "
                    "model, SmolLM2, and names their patterns."),
        Idea("views/inside_the_model.py", "inside", "Inside the model", ":material/science:",
             "Read every layer, knock heads out, patch one run into another: what a head does, not only where "
             "it looks.",
             beyond="The chapter stops at where heads look; this page tests what they do, with the tools of "
                    "interpretability research (logit lens, ablation, activation patching)."),
    ],
    "The transformer": [
        Idea("views/block_builder.py", "block", "Block builder", ":material/view_agenda:",
             "Attention, FFN, residuals and LayerNorm stacked N times: shapes, parameter counts, "
             "and a live training run."),
        Idea("views/position.py", "position", "Position", ":material/format_list_numbered:",
             "Shuffle the words and attention shuffles its outputs, unchanged, until a positional encoding is added."),
        Idea("views/generate.py", "generate", "Generate", ":material/edit_note:",
             "Last position -> linear -> softmax: sample from n-grams and transformers side by side, and rank them."),
    ],
    "Beyond words": [
        Idea("views/beyond_words.py", "beyond", "Beyond words", ":material/category:",
             "Image patches, spectrogram frames and amino acids as tokens: the same attention on each."),
    ],
}


def ideas() -> list[Idea]:
    """Every page in order."""
    return [idea for group in PATH.values() for idea in group]


def following(file: str) -> Idea | None:
    """The idea after the page in `file` (a path ending in views/<name>.py), or None at the end."""
    order = ideas()
    name = Path(file).name
    for index, idea in enumerate(order):
        if Path(idea.file).name == name:
            return order[index + 1] if index + 1 < len(order) else None
    return None
