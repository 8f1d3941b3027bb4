"""Charts in the reader's language: every word a chart shows (titles, axis and legend titles, legend entries, tooltips'
field titles, a diagram's labels) is said in the language of the run that built it, while model names, tokens and
example words stay as written; a legend's colours stay with their entries; English specs are as they were."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from engine import i18n
from engine.charts import diagrams
from engine.charts.bars import accuracy_bars, ladder_bars, ladder_zoom, next_token_bars, parameter_bars
from engine.charts.diagrams import block_diagram, fitted_layout
from engine.charts.heatmaps import gram_heatmap
from engine.charts.images import model_view
from engine.charts.lines import (
    head_lines, loss_by_position, loss_curves, offset_profile, table_growth, tokens_vs_merges,
)
from engine.charts.points import embedding_map, sense_scatter
from engine.charts.style import MIN_TEXT_SIZE
from engine.chapter.tokens import smollm2_series
from engine.numbers import grouped
from engine.transformer.config import PRESETS, dataflow
from tests.chart_words import chart_words, english_chart_words
from tests.engine.vegalite import data_rows

RUNGS = [("3-gram (Kneser-Ney)", 2.6, "n-gram"), ("tiny transformer", 2.1, "transformer"),
         ("uniform guess", 6.1, "baseline"), ("live run 1", 2.3, "your live runs"),
         ("SmolLM2-135M (pretrained, web text)", 1.2, "pretrained")]
TOKENS = ["the", "crane", "lake"]


def charts() -> dict[str, dict]:
    """One of each chart the sweep found English on, built in the active language."""
    alpha = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    types = np.array([["previous-token", "induction"], ["self", "mixed"]])
    scores = {"previous-token": np.ones((2, 2)) * 0.5, "induction": np.zeros((2, 2))}
    runs = [{"label": "run 1", "steps": [1, 2, 3], "train_loss": [3.0, 2.5, 2.0], "eval_steps": [3],
             "held_out_loss": [2.2]}]
    return {
        "ladder": ladder_bars(RUNGS),
        "ladder zoom": ladder_zoom(RUNGS, within=5.0),
        "analogy map": embedding_map(["man", "king", "woman", "queen", "apple"], np.arange(10.0).reshape(5, 2),
                                     arrows=[("man", "king"), ("woman", "queen"), ("man", "woman")],
                                     roles={"man": "analogy word", "king": "analogy word", "woman": "analogy word",
                                            "queen": "answer"}),
        "senses": sense_scatter(["heron", "gantry"], [0.9, 0.1], [0.1, 0.9], sense_a=i18n._("bird"),
                                sense_b=i18n._("machine"), anchor_a="heron", anchor_b="gantry",
                                closest=[i18n._("bird"), i18n._("machine")]),
        "accuracy": accuracy_bars([{"vocabulary": "10,000", "measure": "top-1", "accuracy": 0.5},
                                   {"vocabulary": "10,000", "measure": "top-5", "accuracy": 0.7}]),
        "head types": model_view([["data:,", "data:,"], ["data:,", "data:,"]], types, scores),
        "head lines": head_lines(alpha, TOKENS),
        "positions": gram_heatmap(alpha),
        "offsets": offset_profile({}),
        "n-gram table": table_growth([1, 2, 3], [10, 60, 200], [65.0, 4225.0, 274625.0]),
        "loss curves": loss_curves(runs, {"4-gram": 1.5}),
        "next tokens": next_token_bars({"5-gram": [("a", 0.5), ("b", 0.2)], smollm2_series(): [("c", 0.4)]}),
        "sampled": next_token_bars({"5-gram": [("a", 0.5, 0.6), ("b", 0.2, 0.1)]}),
        "parameters": parameter_bars({"token embedding": 100, "attention": 300}),
    }


# what stays as written on these charts: model names, tokens and the example words models read
KEPT = (r"3-gram \(Kneser-Ney\)", "tiny transformer", "uniform guess", "live run 1",
        r"SmolLM2-135M \(pretrained, web text\)", "man", "king", "woman", "queen", "apple", "heron", "gantry",
        "the", "crane", "lake", "run 1", "5-gram", "token embedding", "attention", "10,000",
        r"\d-gram: [\d.]+")


def test_under_the_pseudo_language_every_chart_word_is_marked():
    with i18n.use(i18n.PSEUDO.code):
        built = charts()
    left = {name: english_chart_words([spec], KEPT, text_fields=("text",)) for name, spec in built.items()}
    assert {name: words for name, words in left.items() if words} == {}


def test_in_spanish_the_legends_and_axes_are_spanish():
    with i18n.use("es"):
        built = charts()
    words = {name: chart_words(spec) for name, spec in built.items()}
    assert {"referencia", "n-grama", "transformer", "tus entrenamientos en directo", "preentrenado"} <= \
        set(words["ladder"])
    assert {"palabra de la analogía", "respuesta", "otra palabra", "desplazamiento de la analogía",
            "otro desplazamiento"} <= set(words["analogy map"])
    assert {"ave", "máquina"} <= set(words["senses"])
    assert {"posibles (V^n)", "vistos en el texto", "entradas"} <= set(words["n-gram table"])
    assert {"posición i", "posición j"} <= set(words["positions"])
    with i18n.use("es"):
        named = [i18n._(name) for name in ("previous-token", "induction", "self", "mixed", "head type")]
    assert {"capa", "cabeza", *named} <= set(words["head types"])
    assert "entrenamiento (suavizado)" in words["loss curves"] and "texto reservado" in words["loss curves"]
    assert "SmolLM2-135M, texto web" in words["next tokens"]                    # the name stays, its text is said
    sampled = built["sampled"]   # the bar's, the tick's and the number's layers share one axis title (not merged)
    assert len({layer["encoding"]["x"]["title"] for layer in sampled["layer"]}) == 1
    text = " ".join(chart_words(built["head lines"], text_fields=("text",)))
    assert "consulta (la que atiende)" in text and "clave (a la que se atiende)" in text
    assert "query (attending)" not in text
    english = {w for spec in built.values() for w in chart_words(spec)}
    assert not english & {"baseline", "pretrained", "analogy word", "other word", "seen in the text", "position i",
                          "held-out", "training (smoothed)", "weight", "probability", "bits per character"}


def _colour_scales(spec: dict) -> list[tuple[str, list, list]]:
    """(field, domain, range) of every colour scale with a domain, in every layer and panel."""
    found = []
    for view in [spec, *spec.get("layer", []), *spec.get("hconcat", []), *spec.get("vconcat", [])]:
        colour = (view.get("encoding") or {}).get("color") or {}
        if isinstance(colour.get("scale"), dict) and "domain" in colour["scale"]:
            found.append((colour["field"], colour["scale"]["domain"], colour["scale"].get("range")))
    return found


def test_a_legends_colours_stay_with_its_entries_in_every_language():
    """The colour scale's domain holds the translated entries (every row's value is in it), and each entry keeps
    its colour: the same colours in the same order in every language."""
    ranges = {}
    for code in ("en", "es", "ar", i18n.PSEUDO.code):
        with i18n.use(code):
            built = charts()
        for name in ("ladder", "ladder zoom", "analogy map", "head types", "n-gram table", "accuracy"):
            scales = _colour_scales(built[name])
            assert scales, name
            for field, domain, _range in scales:
                values = {row[field] for row in data_rows(built[name]) if field in row}
                assert values and values <= set(domain), (code, name, values - set(domain))
            ranges.setdefault(name, []).append([r for _f, _d, r in scales])
    assert all(len({repr(r) for r in found}) == 1 for found in ranges.values())


def test_english_specs_keep_their_field_names_as_titles():
    """English reads the messages as written: no title is added where the field's name was the title."""
    with i18n.use("en"):
        spec = gram_heatmap(np.eye(2))
    assert "title" not in spec["encoding"]["x"] and spec["encoding"]["x"]["field"] == "position j"


def _svg_texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("code", ["es", "ar", "zh-Hans", "ko"])
def test_the_block_diagram_is_in_the_readers_language(code):
    tiny = PRESETS["tiny (the chapter's block)"]
    with i18n.use(code):
        stages = dataflow(tiny)
        texts = _svg_texts(block_diagram(stages, tiny.n_layers, tiny.residual))
        assert i18n._("residual") in texts and i18n._("token ids") in texts
        assert i18n.ngettext("block, repeated N = {n} time", "block, repeated N = {n} times", 2) in texts
        assert i18n.ngettext("{n} parameter", "{n} parameters", 4224, n=grouped(4224)) in texts
        said = {english: i18n._(english) for english in ("residual", "token ids", "token embedding", "LM head")}
    said |= {"block, repeated N = 2 times": None, "4,224 parameters": None}
    assert not {english for english, there in said.items() if there != english} & set(texts)


def test_the_block_diagram_in_english_is_as_it_was():
    tiny = PRESETS["tiny (the chapter's block)"]
    with i18n.use("en"):
        texts = _svg_texts(block_diagram(dataflow(tiny), tiny.n_layers, tiny.residual))
    assert "block, repeated N = 2 times" in texts and "4,224 parameters" in texts and texts.count("residual") == 2


@pytest.mark.parametrize("code", ["en", "es", "ar", "zh-Hans", "ko"])
@pytest.mark.parametrize("name", list(PRESETS))
def test_on_a_phone_the_block_diagrams_text_is_at_least_the_smallest_chart_text(code, name):
    """The picture is scaled to its column: laid out for a 390 px phone's (350 px), its smallest text (13 px labels)
    is drawn at MIN_TEXT_SIZE or more; as built (no column known) it is what it was."""
    config = PRESETS[name]
    with i18n.use(code):
        stages = dataflow(config)
        fitted = fitted_layout(stages, config.n_layers, config.residual, 350)
        built = fitted_layout(stages, config.n_layers, config.residual, None)
        assert built == diagrams.block_layout(stages, config.n_layers, config.residual)
    assert diagrams.LABEL_FONT_PX * 350 / fitted.width >= MIN_TEXT_SIZE
    assert all(re.search(r"\S", line) for box in fitted.boxes for line in box.lines)


@pytest.mark.parametrize("code", ["es", i18n.PSEUDO.code])
def test_a_shared_axis_keeps_its_one_title(code):
    """Layers share an axis: where one titles it, a sibling's field is left untitled (Vega-Lite would join two
    explicit titles: "position of the predicted token, from"), as in English; its tooltips are titled all the same."""
    with i18n.use(code):
        specs = [loss_by_position({"SmolLM2": np.array([1.0, 2.0, 3.0])}, {"copy": (1, 2)}),
                 tokens_vs_merges([0, 10], [50, 40], 10)]
    for spec in specs:
        for axis in ("x", "y"):
            titles = {repr(layer["encoding"][axis].get("title")) for layer in spec["layer"]
                      if axis in layer.get("encoding", {}) and "title" in layer["encoding"][axis]}
            assert len(titles) <= 1, (axis, titles)
    if code == i18n.PSEUDO.code:
        assert [english_chart_words([spec], ("SmolLM2",)) for spec in specs] == [[], []]
    else:
        assert not {"from", "run", "position", "merges"} & set(chart_words(specs[0]) + chart_words(specs[1]))


def more_charts() -> dict[str, dict]:
    """The other charts a page draws after a click (a training run, a knock-out, a sweep), in the active language."""
    from types import SimpleNamespace

    from engine.attention.mechanism import attention_cost
    from engine.charts.bars import compare_bars, cost_comparison, difference_bars, grouped_probabilities, score_bars
    from engine.charts.heatmaps import encoding_heatmap, head_grid, heatmap_spec, layer_heatmap, transition_heatmap
    from engine.charts.lines import (
        cosine_by_layer, head_formation_lines, held_out_lines, lines_by, rank_by_layer, tokens_vs_merges,
    )
    from engine.classroom.chart import answers_chart

    alpha = np.array([[1.0, 0.0], [0.4, 0.6]])
    point = SimpleNamespace(step=10, induction=np.full((2, 2), 0.3), previous_token=np.full((2, 2), 0.6),
                            loss_gap=0.5)
    costs = {"one head": attention_cost(8, 16, 1), "four heads": attention_cost(8, 16, 4)}
    return {
        "formation": head_formation_lines([point]),
        "held out": held_out_lines([(1, "Kneser-Ney", 3.0), (2, "Kneser-Ney", 2.5)]),
        "cosines": cosine_by_layer({"crane: lake vs roof": np.array([0.9, 0.5, 0.4])}),
        "rank": rank_by_layer([5, 1], [0.1, 0.9], ["embedding", "after block 0"], token="lamb"),
        "lines": lines_by([1, 2], {"the": [0.1, 0.2]}, x_title=i18n._("loss"), y_title=i18n._("loss")),
        "compare": compare_bars({"the": np.array([0.5, 0.5])}, TOKENS[:2]),
        "grouped": grouped_probabilities({"The nurse said that": np.array([0.3, 0.7])}, ["he", "she"]),
        "scores": score_bars(["paris", "rome"], [0.8, 0.7], highlight="rome"),
        "difference": difference_bars(np.array([0.1, 0.0]), TOKENS[:2]),
        "transition": transition_heatmap(["a", "b"], [[1, 2], [3, 4]], [[0.3, 0.7], [0.4, 0.6]]),
        "encoding": encoding_heatmap(np.eye(4)),
        "weights": heatmap_spec(alpha, TOKENS[:2], TOKENS[:2]),
        "uniform": heatmap_spec(alpha, TOKENS[:2], TOKENS[:2], color_by="uniform", causal=True),
        "heads": head_grid([alpha, alpha], TOKENS[:2]),
        "layers": layer_heatmap(alpha, ["0", "1"], ["the", "crane"]),
        "merges": tokens_vs_merges([0, 10], [50, 40], 10),
        "costs": cost_comparison(costs),
        "answers": answers_chart(["the", "crane"], [[3, 4], [5, 2]], answer=1),
    }


def test_under_the_pseudo_language_the_charts_drawn_after_a_click_are_marked_too():
    with i18n.use(i18n.PSEUDO.code):
        built = more_charts()
    kept = KEPT + ("Kneser-Ney", "crane: lake vs roof", "The nurse said that", "he", "she", "paris", "rome",
                   "one head", "four heads", "a", "b", "L0H0", "L0H1", "L1H0", "L1H1")
    left = {name: english_chart_words([spec], kept) for name, spec in built.items()}
    assert {name: words for name, words in left.items() if words} == {}
