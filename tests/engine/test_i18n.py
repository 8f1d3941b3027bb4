"""The languages' machinery and catalogs: every catalog sound (no fuzzy entry, no placeholder lost or invented, the
language's count of plural forms), the glossary's terms used the same way in every message, a browser's language
negotiated to one of ours, one translation object per session, catalogs compiled once per process,
and every catalog complete (every message of the template translated)."""
from __future__ import annotations

import csv
import re
import unicodedata

import pytest

from engine import i18n, numbers
from engine.chapter.spec import Fallback, Param, message
from engine.i18n import N_

OTHER_LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.SOURCE]
UNFINISHED = (" is missing", " is not translated")   # what problems() says of a message nobody translated yet


def _sound(code: str) -> list[str]:
    """What is wrong with the messages a catalog has translated (not the ones it has yet to): problems() less the
    untranslated, and a plural message with some of the language's forms filled but not all (Babel pads a
    message with too few forms with empty ones)."""
    found = [line for line in i18n.problems(code) if not line.endswith(UNFINISHED)]
    catalog = _catalog(code)
    for entry in catalog:
        if entry.id and entry.pluralizable and any(entry.string) and not all(entry.string):
            found.append(f"{code}: {entry.id!r} has {sum(map(bool, entry.string))} of the language's "
                         f"{catalog.num_plurals} plural forms")
    return found


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_no_catalog_has_a_fuzzy_entry_a_lost_or_invented_placeholder_or_a_wrong_plural_count(code):
    assert _sound(code) == []


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_every_catalog_is_complete(code):
    assert i18n.problems(code) == []


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_each_count_gets_the_plural_form_cldr_gives_it(code):
    """The form a count picks follows CLDR's category for it (Babel's own header for Arabic put 11-99 in "other" and
    100-102 in "many"); forms are in CLDR's order, zero, one, two, few, many, other, less those a language lacks."""
    from babel import Locale

    rule = Locale.parse(i18n.LANGUAGES[code].locale).plural_form
    forms = _catalog(code).num_plurals
    order = [tag for tag in ("zero", "one", "two", "few", "many", "other") if tag in rule.tags or tag == "other"]
    if len(order) > forms:       # CLDR's "many" in Spanish is for millions only: the catalogs have one and other
        order = [tag for tag in order if tag in ("one", "other")]
    plural = i18n.translations(code).plural
    assert [plural(n) for n in range(1, 1001)] == [order.index(rule(n)) for n in range(1, 1001)]
    if code == "ar":
        assert [plural(n) for n in (0, 1, 2, 3, 11, 99, 100, 102, 103, 111)] == [0, 1, 2, 3, 4, 4, 5, 5, 3, 4]


def test_a_formula_inside_a_right_to_left_sentence_is_set_apart_and_nothing_else_is():
    """A formula in Latin letters inside an Arabic sentence gets a left-to-right mark on both sides (the bidi rules
    had drawn "(1/V)" as "(V/1)" and moved ∂ to the other end); a word, a placeholder that may hold an Arabic word,
    and what is laid out left to right already ($...$, code, tags, icons) are left as they are; marking twice is
    marking once."""
    lrm = i18n.LRM
    assert i18n.formulas_marked("تخمين منتظم (1/V)") == f"تخمين منتظم {lrm}(1/V){lrm}"
    assert (i18n.formulas_marked("التدرّجات: ∂L/∂s_j = α_j − [j = t]، ثم")
            == f"التدرّجات: {lrm}∂L/∂s_j = α_j − [j = t]{lrm}، ثم")
    assert i18n.formulas_marked("{name}: p_t لكل t < {T}") == f"{{name}}: {lrm}p_t{lrm} لكل {lrm}t < {{T}}{lrm}"
    for kept in ("الصيغة $1/V$ هنا", "الرمز `a/b` هنا", "اللغة ({language})", "نموذج SmolLM2 هنا",
                 "<strong style='letter-spacing: 0.12em'>{code}</strong>", ":material/check_circle: نعم"):
        assert i18n.formulas_marked(kept) == kept, kept
    once = i18n.formulas_marked("منتظم 1/V و d = {d}")
    assert i18n.formulas_marked(once) == once and i18n.formulas_unmarked(once) == []
    assert i18n.formulas_unmarked("منتظم 1/V") == ["1/V"]
    # a formula inside Arabic's own brackets: the bracket it does not close stays with the sentence
    assert i18n.formulas_marked("يعطي (1/T من الرموز)") == f"يعطي ({lrm}1/T{lrm} من الرموز)"
    assert i18n.formulas_marked("الحيرة 2^H (هنا)") == f"الحيرة {lrm}2^H{lrm} (هنا)"


def test_the_checks_find_what_they_are_for(tmp_path, monkeypatch):
    """problems() sees a fuzzy entry, a lost and an invented placeholder and a wrong plural count (the tests above
    would pass on a check that found nothing)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    template = Catalog(locale=None)
    template.add("{n} cells of {name}")
    template.add("Hello {name}")
    template.add("Fuzzy one")
    template.add(("{n} row", "{n} rows"))
    catalog = Catalog(locale="es")
    catalog.add("{n} cells of {name}", "{n} celdas")                    # {name} lost
    catalog.add("Hello {name}", "Hola {nombre}")                         # {nombre} invented, {name} lost
    catalog.add("Fuzzy one", "Borroso", flags=("fuzzy",))
    catalog.add(("{n} row", "{n} rows"), ("{n} fila",))                 # one form where Spanish has two
    (tmp_path / "es" / "LC_MESSAGES").mkdir(parents=True)
    with open(tmp_path / "messages.pot", "wb") as out:
        write_po(out, template)
    with open(tmp_path / "es" / "LC_MESSAGES" / "messages.po", "wb") as out:
        write_po(out, catalog)
    monkeypatch.setattr(i18n, "TEMPLATE", tmp_path / "messages.pot")
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    monkeypatch.setattr(i18n, "catalog_path", lambda code: tmp_path / code / "LC_MESSAGES" / "messages.po")
    found = "\n".join(_sound("es"))
    assert "lacks ['name']" in found and "placeholder the English has not: ['nombre']" in found
    assert "is fuzzy" in found and "has 1 of the language's 2 plural forms" in found


# --- the glossary ------------------------------------------------------------------------------------------------

GLOSSARY = i18n.LOCALES / "glossary.csv"
# (English term, language, message id as written): why the message may say it otherwise. Keep it short; say why.
_SHAKESPEARE = "Count, sample and score n-grams of Shakespeare: the V^n table that cannot be filled, and the loops."
_TOO_SHORT = ("The held-out part of the text (its last 10%, cut at a line break) has fewer than two tokens to score. "
              "Use a longer text with several lines.")
_PREDICTION = "Held-out text must be at least two tokens long to score a prediction."
_EVALUATED = "to score here is to evaluate a model on held-out text, not an attention score q·k"
_TEACHER_KEY = "the teacher key is a secret the browser keeps (密钥), not the K of Q/K/V"
_HEAD_NAME = "L<layer>H<head> stays one left-to-right run in a right-to-left sentence, as the L17H4 a reader types"
_ANALOGIES = ("The {count} classic analogies this app ships with (capitals, family, tenses, plurals, comparatives ..., "
              "in the style of Mikolov et al. 2013), answered with {method}. A small vocabulary hides rare look-alikes "
              "(names, misspellings) but also rare right answers; all 400,000 words means 40 times as many cosines per "
              "query as the top 10,000.")
GLOSSARY_EXCEPTIONS: dict[tuple[str, str, str], str] = {
    **{("score", code, english): _EVALUATED
       for code in ("zh-Hans", "es", "ar") for english in (_SHAKESPEARE, _TOO_SHORT, _PREDICTION)},
    ("score", "ko", _PREDICTION): _EVALUATED,
    ("score", "zh-Hans", "There are not two orders n with a finite score to compare for this smoothing."):
        "an n-gram order's score is its held-out bits per character: 得分, as every n-gram message says it",
    **{("attention", code, "A page link is text, like attention?n=3."): "attention?n=3 is a page's address, as written"
       for code in ("zh-Hans", "es", "ko", "ar")},
    ("layer", "ar", "Heads to knock out (a group, or single heads L<layer>H<head>)"): _HEAD_NAME,
    ("layer", "ar", "Name a head as L<layer>H<head>, e.g. L17H4, not {label}."): _HEAD_NAME,
    ("key", "zh-Hans", "Only the teacher who started class {code} can do that: this browser does not hold its "
                       "teacher key."): _TEACHER_KEY,
    ("key", "zh-Hans", "A class code, its link and QR code for the projector; this browser keeps the teacher key."):
        _TEACHER_KEY,
    ("query", "ko", _ANALOGIES): "an analogy asked of the word vectors (질의, as a search's query), not the Q of Q/K/V",
}
_DIACRITICS = re.compile("[\u064b-\u0652\u0670]")   # Arabic's short vowels, shadda, sukun: written or not


def _normal(text: str, code: str) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    return _DIACRITICS.sub("", text) if code == "ar" else text


def _glossary() -> list[dict[str, str]]:
    with open(GLOSSARY, encoding="utf-8") as rows:
        found = list(csv.DictReader(rows))
    # a note with a comma must be quoted, or its rest (a plural, an "also") is silently lost
    assert all(None not in row and None not in row.values() for row in found), "a glossary row is not six columns"
    return found


def _renderings(row: dict[str, str], code: str) -> list[str]:
    """The ways a language may write a term: the glossary's word; its plural where the note gives one
    ("plural: tokens / tokens / 토큰 / رموز", in the order en, es, ko, ar as the note lists them); the forms one
    language alone uses, where the note says so as "[also zh-Hans: 头]" (several: "[also ar: a / b]"), e.g. Chinese
    头 for an attention head in 多头注意力 or 头 m. In Arabic: without the article (الـ), which a construct ("وزن
    الانتباه") or a prefix (بالـ, للـ) changes; without it on every word, the indefinite ("جداء نقطي", "وزن انتباه");
    and with its last ة written ت, as before an attached pronoun ("كتلتك", "درجته")."""
    note = row.get("note") or ""
    found = [row[code]]
    plural = re.search(r"plural:?\s*([^;)\[]*)", note)
    if plural:
        found += [part.strip() for part in plural.group(1).split("/")]
    for also in re.finditer(r"\[also ([\w-]+):\s*([^\]]*)\]", note):
        if also.group(1) == code:
            found += [part.strip() for part in also.group(2).split("/")]
    if code == "ar":
        found = [_normal(word, code) for word in found if word]
        found += [word[2:] for word in found if word.startswith("ال")]
        found += [" ".join(part[2:] if part.startswith("ال") else part for part in word.split()) for word in found]
        found += [word[:-1] + "ت" for word in found if word.endswith("ة")]
    return list(dict.fromkeys(_normal(word, code) for word in found if word))


def _catalog(code: str):
    from babel.messages.pofile import read_po

    with open(i18n.catalog_path(code), "rb") as po:
        return read_po(po, locale=i18n.LANGUAGES[code].locale)


@pytest.mark.parametrize("code", OTHER_LANGUAGES)
def test_the_glossarys_terms_are_translated_the_same_way_in_every_message(code):
    """For each term, every translated message whose English holds the term as a word holds the glossary's
    translation (one of a plural message's forms is enough: Arabic's forms for one and two may say it otherwise)."""
    rows = _glossary()
    assert {row["en"] for row in rows} >= {"token", "embedding", "attention", "query", "key", "value", "softmax",
                                            "head", "layer normalization", "logit", "perplexity"}
    unlike, excused = [], set()
    for entry in _catalog(code):
        if not entry.id or entry.fuzzy:
            continue
        written = " ".join(entry.id) if isinstance(entry.id, (list, tuple)) else entry.id
        english = re.sub(r"\{[^{}]*\}", " ", written)   # a placeholder's name ({query}) is not a word read
        strings = [s for s in (entry.string if isinstance(entry.string, (list, tuple)) else (entry.string,)) if s]
        if not strings:
            continue
        for row in rows:
            term = row["en"]
            if not re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", english, re.IGNORECASE):
                continue
            if not row[code]:
                continue
            ways = _renderings(row, code)
            if not any(way in _normal(string, code) for string in strings for way in ways):
                if (term, code, written) in GLOSSARY_EXCEPTIONS:
                    excused.add((term, code, written))
                else:
                    unlike.append(f"{term!r} -> {row[code]!r} not in {strings[0]!r} ({written!r})")
    assert unlike == []
    # an exception the catalog no longer needs (the message is gone, or now says the term) is taken out
    assert {key for key in GLOSSARY_EXCEPTIONS if key[1] == code} - excused == set()


# --- choosing a language -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("asked, ours", [
    ("es-MX", "es"), ("es", "es"), ("zh-TW", "zh-Hans"), ("zh-CN", "zh-Hans"), ("zh-Hans", "zh-Hans"),
    ("zh_Hant_HK", "zh-Hans"), ("ko-KR", "ko"), ("ar-EG", "ar"), ("en-GB", "en"), ("fr-FR", None), ("", None),
    (None, None), ("en-XA", "en-XA"),
])
def test_a_browsers_language_is_negotiated_to_one_of_ours(asked, ours):
    assert i18n.negotiate(asked) == ours


def test_an_unknown_language_reads_english():
    with i18n.use("fr") as chosen:
        assert chosen.code == "en" and i18n._("Home") == "Home"


def test_catalogs_are_compiled_once_per_process():
    assert i18n.translations("es") is i18n.translations("es")
    with i18n.use("es"):
        first = i18n._active()[1]
    with i18n.use("es"):
        assert i18n._active()[1] is first


def test_a_language_set_in_one_thread_does_not_reach_another():
    """One translation per context (a session's run is one thread): a thread that set Korean leaves this one as it
    was."""
    import threading

    seen = {}

    def korean():
        i18n.activate("ko")
        seen["there"] = i18n._("Home")

    with i18n.use("es"):
        worker = threading.Thread(target=korean)
        worker.start()
        worker.join()
        seen["here"] = i18n._("Home")
    assert seen == {"there": "홈", "here": "Inicio"}


# --- what the shell's machinery translates -------------------------------------------------------------------------

def test_a_params_label_and_help_marked_in_a_spec_read_in_the_running_language():
    param = Param("x", 0, label=N_("Matrix"), help=N_("Projector mode"))
    assert (param.label, param.help) == ("Matrix", "Projector mode")
    with i18n.use("es"):
        assert (param.label, param.help) == ("Matriz", "Modo proyector")
        assert message(param, "label") == "Matrix"             # the English, whatever the language
    with i18n.use("ar"):
        assert param.label == "مصفوفة"
    assert Param("y", 1).label == "" and Param("y", 1).help == ""   # empty stays empty (not the catalog's header)


def test_a_link_fallback_is_said_in_the_running_language_with_its_values_as_typed():
    fallback = Fallback("k", "9.5", 3)
    assert fallback.sentence() == "The link's value for 'k' ('9.5') could not be read; using the default ('3')."
    with i18n.use("es"):
        assert fallback.sentence() == ("No se pudo leer el valor de «k» en el enlace ('9.5'); se usa el valor por "
                                       "defecto ('3').")


def test_numbers_follow_the_language_in_prose_formulas_and_chart_locales_and_code_keeps_pythons():
    with i18n.use("es"):
        assert (numbers.fixed(0.298), numbers.latex(0.298), numbers.python_fixed(0.298)) == ("0,298", "0{,}298",
                                                                                            "0.298")
        assert numbers.vega_locale()["number"]["decimal"] == ","
    with i18n.use("zh-Hans"):
        assert (numbers.fixed(0.298), numbers.latex(0.298), numbers.vega_locale()) == ("0.298", "0.298", None)


def test_a_charts_summary_and_data_table_read_in_the_language():
    import numpy as np

    from engine.charts import text
    from engine.charts.heatmaps import heatmap_spec

    weights = np.array([[0.298, 0.203, 0.206, 0.293]] * 4)
    english = heatmap_spec(weights, list("abcd"), list("abcd"))
    assert text.summary(english).startswith("Heatmap") and "16 values" in text.summary(english)
    assert "0.298" in text.table(english, reader=True)[1][0]
    with i18n.use("es"):
        spanish = heatmap_spec(weights, list("abcd"), list("abcd"))
        assert text.summary(spanish).startswith("Mapa de calor") and "16 valores" in text.summary(spanish)
        assert "0,298" in text.table(spanish, reader=True)[1][0]
        assert "0.298" in text.table(spanish)[1][0]                   # a CSV file keeps Python's numbers
        headers = [text.header(spanish, column) for column in text.table(spanish)[0]]
        assert headers[:3] == ["consulta (la que atiende)", "clave (a la que se atiende)", "peso"]
    assert text.header(english, "row") == "row"                       # English: the field names, as before


def test_the_doors_sentences_are_said_again_in_the_sessions_language():
    from ui import door

    said = door.link_refused(12_345, 3)
    assert said.startswith("This link was ignored: it holds 12,345 characters in 3 values")   # the HTTP answer
    with i18n.use("es"):
        assert said.again().startswith("Se ignoró este enlace: contiene 12.345 caracteres en 3 valores")
    with i18n.use("ar"):
        assert "{n}" not in door.number_refused(1).again()


def test_every_chart_drawn_carries_the_readers_number_locale():
    from ui import charts

    spec = {"mark": "bar", "config": {"view": {"stroke": None}}}
    assert charts.localized(spec) is spec                              # English: the spec as it was
    with i18n.use("es"):
        drawn = charts.localized(spec)
        assert drawn["config"]["locale"]["number"]["decimal"] == "," and drawn["config"]["view"] == {"stroke": None}
    with i18n.use("zh-Hans"):
        assert charts.localized(spec) is spec
