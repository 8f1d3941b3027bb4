"""The handout in every language: Chinese, Korean and Arabic print in fonts from Python packages (Noto Sans CJK, Noto
Sans Arabic: nothing downloaded), subset and embedded in the PDF, Arabic shaped by HarfBuzz; the engine's own words
(the link's note, 'Try this') in the reader's language; the QR code keeps ?lang=."""
from __future__ import annotations

import io
import unicodedata

import pytest

from engine import i18n
from engine.charts import handout
from tests.engine.charts.test_handout import qr_links

pytest.importorskip("uharfbuzz", reason="fpdf2 shapes Arabic with uharfbuzz")

PAGES = {   # a page's title and question as the reader's language shows them
    "zh-Hans": ("注意力计算器", "一个词元如何决定其他每个词元有多重要？", "NotoSansCJKSC"),
    "ko": ("어텐션 계산기", "토큰 하나는 다른 토큰이 얼마나 중요한지 어떻게 정할까?", "NotoSansCJKKR"),
    "ar": ("حاسبة الانتباه", "كيف يقرر الرمز مقدار أهمية كل رمز آخر؟", "NotoSansArabic"),
}


def _fonts(pdf: bytes) -> dict[str, bool]:
    """Each font of the first page by its base name (subset prefix dropped), and whether its file is embedded."""
    from pypdf import PdfReader

    found = {}
    for font in PdfReader(io.BytesIO(pdf)).pages[0]["/Resources"]["/Font"].values():
        font = font.get_object()
        descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
        descriptor = descendant["/FontDescriptor"].get_object()
        embedded = any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
        found[str(font["/BaseFont"]).split("+")[-1]] = embedded
    return found


def _text(pdf: bytes) -> str:
    """The first page's text as PDFium extracts it, presentation forms (shaped Arabic) folded back to letters."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    return unicodedata.normalize("NFKC", document[0].get_textpage().get_text_range())


@pytest.fixture(scope="module")
def pdfs() -> dict[str, bytes]:
    made = {}
    for code, (title, question, _font) in PAGES.items():
        with i18n.use(code):
            made[code] = handout.handout_pdf(handout.Handout(
                title, question, f"http://localhost:8501/attention?query=0&lang={code}",
                (handout.Text(question), handout.Challenge(question, hint=title))))
    return made


@pytest.mark.parametrize("code", list(PAGES))
def test_the_handout_embeds_a_font_for_the_languages_script(pdfs, code):
    fonts = _fonts(pdfs[code])
    assert fonts.get(PAGES[code][2]) is True, fonts          # present and embedded (a subset: the PDF stays small)
    assert len(pdfs[code]) < 400_000


@pytest.mark.parametrize("code", ["zh-Hans", "ko"])
def test_chinese_and_korean_text_is_in_the_pdf(pdfs, code):
    text = _text(pdfs[code])
    title, question, _font = (unicodedata.normalize("NFKC", part) for part in PAGES[code])   # ？ as ?
    assert title in text and question in text


def test_arabic_is_shaped_and_its_letters_are_in_the_pdf(pdfs):
    text = _text(pdfs["ar"])
    title, question, _font = PAGES["ar"]
    letters = {ch for ch in title + question if unicodedata.category(ch) == "Lo"}
    assert letters <= set(text), letters - set(text)
    # shaped: the embedded subset holds the joined forms (initial, medial, final) of the letters, more glyphs than
    # the distinct letters, where a PDF writer without shaping would embed one isolated form per letter
    assert _glyphs(pdfs["ar"], "NotoSansArabic") > len(letters) + 5


def _glyphs(pdf: bytes, name: str) -> int:
    """How many glyphs the embedded subset of the font `name` holds."""
    from fontTools.ttLib import TTFont
    from pypdf import PdfReader

    for font in PdfReader(io.BytesIO(pdf)).pages[0]["/Resources"]["/Font"].values():
        font = font.get_object()
        if str(font["/BaseFont"]).endswith(name):
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
            return TTFont(io.BytesIO(descriptor["/FontFile2"].get_object().get_data()))["maxp"].numGlyphs
    raise AssertionError(f"no font {name}")


@pytest.mark.parametrize("code", list(PAGES))
def test_the_qr_code_keeps_the_language(pdfs, code):
    assert qr_links(pdfs[code]) == [f"http://localhost:8501/attention?query=0&lang={code}"]


def test_english_handouts_load_no_script_font():
    pdf = handout.handout_pdf(handout.Handout("Attention calculator", "Which key?", "", ()))
    assert set(_fonts(pdf)) <= {"DejaVuSansBook", "DejaVuSansBold", "DejaVuSansMonoBook"}


def test_the_engines_words_follow_the_reader():
    with i18n.use("es"):
        pdf = handout.handout_pdf(handout.Handout("Calculadora", "¿Qué clave?", "", (
            handout.Challenge("Cambia la consulta.", hint="Mira la fila."),)))
    text = _text(pdf)
    with i18n.use("es"):
        assert i18n._(handout.LINK_NOTE) in text and i18n._("Try this") in text
    assert i18n._("Try this") not in text
