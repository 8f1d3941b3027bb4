"""Class mode in each reader's language (issue 41): an engine's question is rendered in every language the app speaks
when it is built, the store keeps the renderings (SQLite and Redis alike), and each reader reads theirs (options in the
same order, the answer at the same index); a teacher's own question reads as typed; the summary CSV and the answers
chart are in the language of whoever makes them (the teacher)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from engine import i18n
from engine.chapter import lesson
from engine.chapter.questions import questions_for
from engine.classroom import store as store_module
from engine.classroom.chart import answers_chart
from engine.classroom.questions import TIE, EngineSources
from engine.classroom.store import Question, summary_csv
from tests.engine.classroom.test_store import clock, kind_spec, start, store  # noqa: F401  (fixtures)
from tests.engine.classroom.test_store import redis_url  # noqa: F401

CODES = list(i18n.LANGUAGES)


@pytest.fixture(scope="module")
def attention_questions() -> list[Question]:
    return questions_for("attention", {}, EngineSources())


def test_an_engines_question_comes_in_every_language(attention_questions):
    for question in attention_questions:
        assert [code for code, *_ in question.renderings] == CODES
        for code in CODES:
            read = question.read(code)
            assert len(read.options) == len(question.options) and read.answer == question.answer
    largest = attention_questions[0]                       # its options end with the tie option, translated
    assert largest.read("en").options[-1] == TIE
    with i18n.use("es"):
        spanish_tie = i18n._(TIE)
    assert spanish_tie != TIE and largest.read("es").options[-1] == spanish_tie
    assert largest.read("es").options[:-1] == largest.options[:-1]    # the tokens stay as the model reads them


def test_a_question_is_built_in_the_teachers_language_and_read_in_each_readers(attention_questions):
    with i18n.use("ko"):
        asked = questions_for("attention", {}, EngineSources())[0]
        assert asked.read() == asked.read("ko")                          # the teacher's own language
    assert asked.options[-1] == asked.read("ko").options[-1] != TIE     # as asked: the teacher's words
    assert asked.read("en").options[-1] == TIE                          # an English reader reads English
    with i18n.use("ar"):
        assert asked.read().options[-1] == asked.read("ar").options[-1]  # the running context's reader


def test_a_teachers_own_question_reads_as_typed_in_every_language():
    typed = Question("attention", "¿Cuál gana?", ("uno", "dos"), 1)
    for code in CODES:
        assert typed.read(code) == typed
    with i18n.use("ko"):
        assert typed.read() == typed


def test_the_renderings_survive_json_and_the_rules(attention_questions):
    question = attention_questions[0]
    assert Question.from_json(question.to_json()) == question
    assert store_module.check_question(question) == question
    assert len(question.to_json()) < 8_000                 # five small renderings
    assert json.loads(Question("home", "Q?", ("a", "b"), 0).to_json())["renderings"] == []   # a typed one: none


@pytest.mark.parametrize("broken, sentence", [
    (lambda q: q.renderings[:1] + (("es", "¿?", ("a",), ""),), "options"),                  # one option short
    (lambda q: (("xx", q.prompt, q.options, ""),), "language"),                             # a language not ours
    (lambda q: (q.renderings[0], q.renderings[0]), "language"),                            # a language twice
    (lambda q: (("es", "x" * 301, q.options, ""),), "characters"),                         # past the prompt's limit
    (lambda q: (("es", "¿?", ("a",) * len(q.options), ""),), "same text"),                 # options alike
])
def test_a_rendering_breaking_the_stores_rules_is_refused(attention_questions, broken, sentence):
    question = attention_questions[1]
    bad = Question(question.page, question.prompt, question.options, question.answer, question.explanation,
                   question.link, question.veils, broken(question))
    with pytest.raises(ValueError, match=sentence):
        store_module.check_question(bad)


def test_both_stores_keep_the_renderings_and_give_no_student_anothers_answer(store, attention_questions):  # noqa: F811
    question = attention_questions[0]
    code, key = start(store)
    typed = Question("attention", "Which one?", ("a", "b"), None)
    store.join(code, "korean")
    store.join(code, "arabic")
    state = store.ask(code, key, question)
    stored = store.state(code).question
    assert stored == question
    for code_ in CODES:
        assert stored.read(code_) == question.read(code_)
    store.vote(code, "korean", state.question_id, 1, question.answer)
    read = store.state(code)
    assert read.question.read("ar").answer == question.answer and "korean" not in repr(read)
    store.ask(code, key, typed)
    assert store.state(code).question.read("ko") == typed


def test_the_summary_csv_is_in_the_teachers_language(store, attention_questions):  # noqa: F811
    question = attention_questions[0]
    code, key = start(store)
    state = store.ask(code, key, question)
    for student in ("a", "b"):
        store.join(code, student)
        store.vote(code, student, state.question_id, 1, question.answer)
    store.reveal(code, key)
    summaries = store.summary(code, key)
    english = list(csv.reader(io.StringIO(summary_csv(summaries))))
    with i18n.use("es"):
        spanish = list(csv.reader(io.StringIO(summary_csv(summaries))))
        header = store_module.csv_header()
        tie = i18n._(TIE)
    assert english[0][0] == "question" and spanish[0] == header and spanish[0][0] == "pregunta"
    assert [row[5] for row in spanish[1:]][-1] == tie and [row[5] for row in english[1:]][-1] == TIE
    right = next(row for row in spanish[1:] if row[6] == "2")
    assert right[7] == "sí" and right[8] == "1,000" and english[1 + question.answer][8] == "1.000"
    assert len(spanish) == len(english)


def test_the_answers_chart_speaks_the_readers_language():
    with i18n.use("ko"):
        spec = answers_chart(["a", "b"], [(3, 1), (2, 2)], 0)
        assert spec["title"] == i18n._("The class's answers") != "The class's answers"
        assert {row["round"] for row in spec["data"]["values"]} == {i18n._("round {n}", n=1), i18n._("round {n}", n=2)}
    with i18n.use("es"):
        assert answers_chart(["a", "b"], [(1, 2)])["data"]["values"][0]["share"] == "1 (33 %)"
    assert answers_chart(["a", "b"], [(1, 2)])["data"]["values"][0]["share"] == "1 (33%)"


def test_the_chapter_lessons_words_are_marked_and_shown_in_the_readers_language():
    data = json.loads(lesson.CHAPTER_LESSON.read_text(encoding="utf-8"))
    assert {data["title"], *(scene["title"] for scene in data["scenes"])} <= set(lesson.CHAPTER_WORDS)
    ours = data["scenes"][0]["title"]
    with i18n.use("es"):
        assert lesson.shown(ours) == i18n._(ours) != ours
        assert lesson.shown("My own scene") == "My own scene"        # a teacher's title, as typed
    assert lesson.shown(ours) == ours


def test_store_sentences_are_in_the_readers_language(store):  # noqa: F811
    with i18n.use("es"):
        with pytest.raises(ValueError, match="Ninguna clase abierta"):
            store.join("ABCDEFGH", "s1")
    with pytest.raises(ValueError, match="No open class"):
        store.join("ABCDEFGH", "s2")
