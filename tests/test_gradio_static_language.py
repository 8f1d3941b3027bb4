"""The Gradio Space's static text in the visitor's language (issue 41): the Blocks are built once, at import, so every
text they show before an event runs (a tab's name, a label, a help text, a button, a heading, a choice) is a gr.I18n
key whose translations come from our catalogs (gradio_tabs.common.static, say, space_i18n), and the browser shows it
in its own language. In Chromium: tests/e2e/test_gradio_tabs.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import i18n

gr = pytest.importorskip("gradio", reason="requirements-test.txt installs gradio")

from gradio.i18n import I18nData  # noqa: E402

from gradio_tabs import common  # noqa: E402

MARK = "__i18n__"
# names that read the same in every language besides common.name()'s: the app's, and the models', tokenizers' and
# activations' names a page spec's name map keeps as they are (engine: SMOOTHING_NAMES, LEVEL_NAMES, PRESETS...)
NAMES = {"Transformer Playground", "Kneser-Ney", "BPE", "GPT-2 small", "GPT-3 175B", "relu", "gelu"}


def _key(value) -> str | None:
    """The gr.I18n key a component's property holds (an I18nData, or one serialised, as a Markdown's value is), or
    None for plain text."""
    if isinstance(value, I18nData):
        return value.key
    if isinstance(value, str) and value.startswith(MARK):
        return json.loads(value[len(MARK):])["key"]
    return None


def _static_texts(demo) -> list[tuple[str, str, object]]:
    """(component, property, value) for every text the built Space shows before any event: labels, help texts,
    placeholders, Markdown and buttons' values, the names of choices, tabs' and accordions' labels."""
    found = []
    for block in demo.blocks.values():
        kind = type(block).__name__
        for prop in ("label", "info", "placeholder"):
            value = getattr(block, prop, None)
            if value not in (None, ""):
                found.append((kind, prop, value))
        if isinstance(block, (gr.Markdown, gr.Button)) and block.value not in (None, ""):
            found.append((kind, "value", block.value))
        if isinstance(block, (gr.Radio, gr.Dropdown)):
            found += [(kind, "choice", choice[0]) for choice in block.choices]
    return found


@pytest.fixture(scope="module")
def space():
    import gradio_app

    return gradio_app.demo


@pytest.fixture(scope="module")
def keys(space) -> set[str]:
    return {_key(value) for _kind, _prop, value in _static_texts(space)}


def test_every_static_text_of_the_space_is_a_key_the_browser_translates(space):
    plain = [(kind, prop, value) for kind, prop, value in _static_texts(space) if _key(value) is None]
    assert plain == []
    assert len(_static_texts(space)) > 400          # every tab's labels, buttons, headings and choices
    assert {"Language modelling", "Attention calculator", "Compute attention", "summary"} <= {
        _key(value) for _kind, _prop, value in _static_texts(space)}


def test_every_key_reads_in_every_language(keys):
    """Each key has its text in every language; in the languages with scripts of their own almost every one differs
    from the English (the rest are names, and the few a catalog keeps as written: "add-k (Lidstone)"). That a
    text is a message at all is the pseudo language's test; that each message is translated, `i18n check`'s."""
    names = common.kept_texts() | NAMES
    english = common.static_texts(i18n.SOURCE)
    assert keys <= set(english) and all(english[key] == key for key in keys if not key.startswith("playground-"))
    for code in i18n.LANGUAGES:
        texts = common.static_texts(code)
        assert keys <= set(texts) and all(texts[key] for key in keys), code
        if code in ("zh-Hans", "ko", "ar"):
            same = [key for key in keys if texts[key] == english[key] and key not in names]
            assert len(same) < 0.05 * len(keys), (code, same)


def test_the_pseudo_language_leaves_no_english_word_outside_its_brackets(keys):
    """Every static text run in the pseudo language: with its bracketed messages taken out, and the names, no
    English word is left (a word nobody marked)."""
    names = sorted(common.kept_texts() | NAMES, key=len, reverse=True)
    pseudo = common.static_texts(i18n.PSEUDO.code)
    unwrapped = {}
    for key in keys:
        text = pseudo[key]
        while re.search(f"{i18n.PSEUDO_OPEN}[^{i18n.PSEUDO_OPEN}{i18n.PSEUDO_CLOSE}]*{i18n.PSEUDO_CLOSE}", text):
            text = re.sub(f"{i18n.PSEUDO_OPEN}[^{i18n.PSEUDO_OPEN}{i18n.PSEUDO_CLOSE}]*{i18n.PSEUDO_CLOSE}", " ", text)
        for name in names:
            text = text.replace(name, " ")
        words = re.findall(r"[A-Za-z]{2,}", text)
        if words:
            unwrapped[key] = words
    assert unwrapped == {}
    assert sum(i18n.PSEUDO_OPEN in pseudo[key] for key in keys) > 250


def test_the_space_sends_one_dictionary_per_browser_locale_and_no_key_the_frontend_would_misread(keys):
    translations = common.space_i18n().translations_dict
    locales = {locale for code in i18n.LANGUAGES for locale in common.browser_locales(code)}
    assert set(translations) == locales
    assert all(set(translations[locale]) >= keys for locale in locales)
    with i18n.use("ko"):
        assert translations["ko"]["Language modelling"] == i18n._("Language modelling") != "Language modelling"
    assert translations["zh-CN"] == translations["zh-TW"]       # Chinese in any script reads the Simplified catalog
    # the frontend reads a key up to its first "}" (gradio's translate_if_needed)
    assert not [key for key in keys if "}" in key]


def test_our_languages_are_languages_the_frontend_picks():
    """The frontend chooses its locale among its own languages (a ko-KR browser gets ko): each of ours is filed under
    one it can choose."""
    assets = Path(gr.__file__).parent / "templates" / "frontend" / "assets"
    bundles = [path.read_text(errors="ignore") for path in assets.glob("core-*.js")]
    frontend = {found for text in bundles for found in re.findall(r'"\./lang/([A-Za-z-]+)\.json"', text)}
    if not frontend:
        pytest.skip("this gradio's frontend bundle lists no languages where the test looks")
    assert {locale for code in i18n.LANGUAGES for locale in common.browser_locales(code)} <= frontend


def test_a_sentence_that_names_a_box_names_it_in_the_callers_language(space):
    box = next(block for block in space.blocks.values()
               if isinstance(block, gr.Textbox) and _key(block.label) == "X (token embeddings)")
    assert common._sentence_for(box, 3) == "'X (token embeddings)' takes text, not a number."
    with i18n.use("es"):
        assert common.read(box.label) == i18n._("X (token embeddings)") != "X (token embeddings)"


def test_a_wrong_type_is_refused_in_the_callers_language(space):
    """The door's sentence for a value of the wrong type (an API caller's number where text goes, a fraction where a
    whole number goes) is a message of the caller's language, its box named as the caller reads it."""
    box = next(block for block in space.blocks.values()
               if isinstance(block, gr.Textbox) and _key(block.label) == "X (token embeddings)")
    whole_box = next(block for block in space.blocks.values()
                     if isinstance(block, (gr.Number, gr.Slider)) and getattr(block, "precision", None) == 0)
    assert common._number_sentence(whole_box, 2.5).endswith("takes a whole number, not 2.5.")
    with i18n.use("es"):
        assert common._sentence_for(box, 3) == f"'{i18n._('X (token embeddings)')}' admite texto, no un número."
        assert common._sentence_for(box, None).endswith("admite texto, no nada.")
        assert common._number_sentence(whole_box, 2.5) == (f"'{common.read(whole_box.label)}' admite un número "
                                                           "entero, no 2,5.")
