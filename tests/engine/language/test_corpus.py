"""The Shakespeare corpus: cleaning, the fixed split, and the checks on a student's own text."""
import pytest

from engine import limits
from engine.language.corpus import clean_play, load_corpus, split_point, split_text, user_text

# The two trailing spaces on some lines are Markdown hard breaks: clean_play must drop them.
MARKDOWN = (
    "# A Tiny Play\n"
    "\n"
    "## ACT I\n"
    "\n"
    "### SCENE I. A heath.\n"
    "\n"
    "_Enter FIRST WITCH and\n"
    "SECOND WITCH_\n"
    "\n"
    "**FIRST WITCH**  \n"
    "When shall we three meet again  \n"
    "In thunder, lightning, or in rain?\\--\n"
    "\n"
    "**SECOND WITCH**  \n"
    "__\\[Aside]_  \n"
    "When the hurlyburly's done,—  \n"
    "*Thunder.*\n"
    "When the battle's lost and won.\n"
    "\n"
    "_Exeunt_\n"
)


def test_clean_play_keeps_only_speech():
    title, text = clean_play(MARKDOWN)
    assert title == "A Tiny Play"
    assert text == ("First Witch:\nWhen shall we three meet again\nIn thunder, lightning, or in rain?--\n\n"
                    "Second Witch:\nWhen the hurlyburly's done,--\nWhen the battle's lost and won.\n")


def test_corpus_has_38_plays_and_a_clean_alphabet():
    corpus = load_corpus()
    assert len(corpus.plays) == 38
    assert "Hamlet" in corpus.plays
    assert 4_000_000 < len(corpus.text) < 5_500_000
    assert not set(corpus.text) & set("*_#[]\\\u2014")
    assert corpus.text.startswith("Theseus:\nNow, fair Hippolyta, our nuptial hour\n")


def test_split_is_last_tenth_of_every_play():
    corpus = load_corpus()
    assert load_corpus() is corpus  # cached once per process
    for title in corpus.plays:
        play = corpus.play(title)
        assert play.text[play.split_at - 1] == "\n"
        assert 0.895 < play.split_at / len(play.text) < 0.91
        assert play.text[:play.split_at] in corpus.train
        assert play.text[play.split_at:] in corpus.validation
    # each of the three is joined with one "\n" between plays
    assert len(corpus.train) + len(corpus.validation) == len(corpus.text) + len(corpus.plays) - 1
    assert 0.09 < len(corpus.validation) / len(corpus.text) < 0.11


def test_unknown_play_is_a_sentence():
    with pytest.raises(ValueError, match="no play called"):
        load_corpus().play("Cardenio")


def test_split_text_of_any_text():
    text = "".join(f"line {i}\n" for i in range(100))
    train, validation = split_text(text)
    assert train + validation == text
    assert validation.startswith("line 90\n") or validation.startswith("line 9")
    assert split_point("no newline at all") == len("no newline at all")


def test_user_text_accepts_utf8_and_normalises_line_endings():
    assert user_text("caf\u00e9\r\nbar") == "caf\u00e9\nbar"
    assert user_text("ok\r\n".encode("utf-8-sig")) == "ok\n"


@pytest.mark.parametrize("raw, message", [
    ("", "empty"),
    ("   \n\t ", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    (b"caf\xe9 latin-1", "not UTF-8"),
    (b"a" * (limits.MAX_USER_TEXT_BYTES + 1), "limit"),
    ("a" * (limits.MAX_USER_TEXT_BYTES + 1), "limit"),
    (12, "string"),
])
def test_user_text_refuses_bad_input_with_a_sentence(raw, message):
    with pytest.raises(ValueError, match=message):
        user_text(raw)


def test_fifty_megabyte_upload_is_refused_quickly():
    with pytest.raises(ValueError, match="50.0 MB"):
        user_text(bytes(50_000_000))
