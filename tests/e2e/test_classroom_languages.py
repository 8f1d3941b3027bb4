"""A class in three languages, in Chromium (issue 41): the teacher reads English at 1400 px, one student Korean and one
Arabic on phones (390 px), each by ?lang= in the link they joined with. The page's question, built by the engine, is
shown to each in their own language (the tie option, the panel's words, the reveal) while the teacher reads English;
a student who follows the teacher keeps their language. Screenshots: artifacts/screenshots/class-lang-*.png."""
from __future__ import annotations

from engine import i18n
from engine.classroom.questions import TIE
from tests.e2e.helpers import screenshot, start_class, teacher_page, wait_for_app
from tests.e2e.test_classroom import at_path, class_app, student_text, until  # noqa: F401  (class_app: the fixture)


def words(code: str, message: str, **params) -> str:
    with i18n.use(code):
        return i18n._(message, **params)


def test_each_student_reads_the_question_in_their_language(class_app, browser):  # noqa: F811
    teacher = teacher_page(browser, 1400, 1200)
    code = start_class(teacher, f"{class_app}/attention?lang=en")
    join = teacher.locator(".st-key-class_teacher img[alt^='QR code to join']").get_attribute("alt")
    assert "lang=" not in join            # the join link leaves each student's language to them

    phones = {}
    for language in ("ko", "ar"):
        context = browser.new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(120_000)
        phone = context.new_page()
        phone.goto(f"{class_app}/?class={code}&lang={language}")
        wait_for_app(phone, 120_000)
        phones[language] = phone
    until(lambda: "2 joined" in teacher.locator(".st-key-class_teacher").inner_text())

    teacher.get_by_text("Ask the class", exact=True).click()
    teacher.get_by_role("button", name="Questions about this example").click()
    wait_for_app(teacher, after_input=True)
    teacher.get_by_role("button", name="Ask this question").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: TIE in teacher.locator(".st-key-class_teacher").inner_text())
    for language, phone in phones.items():
        tie, answer = words(language, TIE), words(language, "Your answer")
        assert tie != TIE and answer != "Your answer"
        until(lambda: tie in student_text(phone) and answer in student_text(phone))
        assert TIE not in student_text(phone)
        assert at_path(phone) == "/attention" and f"lang={language}" in phone.url   # followed, still in their language
        wait_for_app(phone)
        screenshot(phone, f"class-lang-{language}-question", full_page=False)
    screenshot(teacher, "class-lang-teacher-question", full_page=False)

    phones["ko"].get_by_text("0: crane").click()
    phones["ar"].get_by_text("3: lake").click()
    until(lambda: "2 of 2 answered" in teacher.locator(".st-key-class_teacher").inner_text())
    teacher.get_by_role("button", name="Reveal").click()
    wait_for_app(teacher, after_input=True)
    until(lambda: "The answer: 0: crane" in teacher.locator(".st-key-class_teacher").inner_text())
    until(lambda: words("ko", "Yours was right.") in student_text(phones["ko"]))
    # the option isolated in the Arabic sentence (U+2068 ... U+2069): its own direction does not reorder it
    until(lambda: words("ar", "Yours was {option}.", option="\u20683: lake\u2069") in student_text(phones["ar"]))
    for language, phone in phones.items():
        wait_for_app(phone)
        screenshot(phone, f"class-lang-{language}-reveal", full_page=False)
    for context in [teacher.context] + [phone.context for phone in phones.values()]:
        context.close()
