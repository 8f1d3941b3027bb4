"""What a student's listener draws without a Streamlit rerun: the open question and the followed class view, as
safe HTML in the student's language (ui.class_live serves them; ui.classroom hands the same to a whole run).

When the teacher asks, locks or moves, every student's page used to rerun its class fragment at the same moment
(about 10 ms of server CPU each, queued on the machine's cores). What only displays is now drawn by the page's
listener from these cards: made once per process per (class, question, round, language) and per (class, version,
language), never per student. Only what a page cannot draw by itself still reruns it (the veils of a page the student
runs on their own, the class's end).

- `question_card(state, lang)`: the current round's prompt, options and sentences ("Answer received: ..." for each
  option, "Answers are locked"), escaped HTML; no answer, no key. The listener adds the student's own vote.
- `reveal_card(state, counts, lang)`: the revealed round: the answer and the room's share of it per round, the
  sentence for each answer a student may have given, the class's answers chart (SVG, drawn by vl-convert), the
  explanation. The listener picks the student's own sentence.
- `view_card(state, view, lang)`: a follower's class view (engine.classroom.view), its veils applied, with the
  sentences around it.
- `Cards`: the per-process cache both are kept in.

Pure Python: no streamlit, no web framework.
"""
from __future__ import annotations

import html
import re
import threading
from typing import Sequence

from engine import i18n, limits, numbers
from engine.classroom.store import ClassState
from engine.i18n import N_, _

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ICON = re.compile(r":material/[a-z_]+:\s*")   # a Streamlit icon a sentence starts with: not drawn here
_SLOT = "\ue000{}\ue001"              # a placeholder's stand-in while a sentence is made HTML (private-use chars)


def sentence_html(message: str, /, **params) -> str:
    """A translated sentence (Markdown bold, as the app's sentences write it) as HTML: the message escaped, its **bold**
    made <strong>, then each parameter (plain text: a teacher's question, an option) put in escaped."""
    slots = {name: _SLOT.format(i) for i, name in enumerate(params)}
    text = _BOLD.sub(r"<strong>\1</strong>", html.escape(_(message, **slots), quote=False))
    for name, slot in slots.items():
        text = text.replace(slot, html.escape(str(params[name]), quote=False))
    return text


def _plain(sentence: str) -> str:
    """A sentence that starts with a Streamlit icon, without it, escaped."""
    return html.escape(_ICON.sub("", sentence), quote=False)


def isolated(text: str, language: i18n.Language) -> str:
    """An option inside a right-to-left sentence, isolated (U+2068 ... U+2069), as ui.classroom.isolated does."""
    return f"\u2068{text}\u2069" if language.direction == "rtl" else text


def question_card(state: ClassState, lang: str | None) -> dict | None:
    """The current round of the class's question as a student reading `lang` sees it while it is open or locked (None
    without a question). What changes with the round's status (open, locked) is the `status` a caller sets."""
    if state.question is None or state.question_id is None:
        return None
    with i18n.use(lang) as language:
        question = state.question.read(language.code)
        n, round_ = state.question_id, state.round
        prompt = isolated(question.prompt, language)   # a teacher's English question keeps its "?" at its end
        title = (sentence_html("**Question {n}**: {prompt}", n=n, prompt=prompt) if round_ == 1 else
                 sentence_html("**Question {n}**, round {round}: {prompt}", n=n, round=round_, prompt=prompt))
        return {
            "question": n, "round": round_, "page": question.page, "veiled": bool(question.veils),
            "lang": language.code, "dir": language.direction, "title": title,
            "legend": html.escape(_("Your answer"), quote=False),
            "options": [html.escape(option, quote=False) for option in question.options],
            "received": [sentence_html("Answer received: {option}. You may change it until the teacher locks the "
                                       "round.", option=isolated(option, language)) for option in question.options],
            "locked": html.escape(_("Answers are locked: the reveal is coming."), quote=False),
            "unsent": html.escape(_("The answer could not be sent: check the connection, then press it again."),
                                  quote=False),
            "again": html.escape(_("Round 2: talk with your neighbour, then answer again."), quote=False)
            if round_ > 1 else "",
        }


# what a reveal says, for the listener's card here and for the teacher's screen and the fallback (ui.classroom)
THE_ANSWER = N_(":material/check_circle: **The answer: {option}**. Right: {shares}.")
ROUND_SHARE = N_("round {n}: {share}")
YOURS_RIGHT = N_("Yours was right.")
YOURS_WAS = N_("Yours was {option}.")
OPEN_AS_ASKED = N_("Open the page as it was asked")


def share_sentence(counts: Sequence[int], answer: int) -> str:
    """How many of a round's answers were right: "12 of 30 (40%)", or "no answers"."""
    total = sum(counts)
    return (_("{count} of {total} ({percent}%)", count=counts[answer], total=total,
              percent=numbers.fixed(100 * counts[answer] / total, 0)) if total else _("no answers"))


def _leading_icon(text: str) -> str:
    return re.sub(r"^:material/[a-z_]+:\s*", "", text)


def reveal_card(state: ClassState, counts: Sequence[Sequence[int]], lang: str | None) -> dict | None:
    """The revealed round of the class's question as a student reading `lang` sees it (None without one): the title
    as the question card's, the answer and its share in each round, `yours[i]` the sentence for a student who chose
    option i, the answers per option and round (`counts`, one tuple per round) as the class's answers chart, the
    explanation; escaped HTML. No student's answer: the listener adds the reader's own sentence."""
    from engine.classroom.chart import answers_chart
    from engine.classroom.view import chart_svg

    if state.question is None or state.question_id is None:
        return None
    card = question_card(state, lang)
    with i18n.use(lang) as language:
        question = state.question.read(language.code)
        options = [isolated(option, language) for option in question.options]
        answer = question.answer
        card |= {"answer": "", "yours": [], "explanation": html.escape(question.explanation, quote=False),
                 "open": html.escape(_(OPEN_AS_ASKED), quote=False), "chart": ""}
        if answer is not None:
            shares = "; ".join(_(ROUND_SHARE, n=r + 1, share=share_sentence(c, answer)) for r, c in enumerate(counts))
            card["answer"] = _leading_icon(sentence_html(THE_ANSWER, option=options[answer], shares=shares))
            card["yours"] = [html.escape(_(YOURS_RIGHT), quote=False) if i == answer else
                             sentence_html(YOURS_WAS, option=option) for i, option in enumerate(options)]
        spec = answers_chart(question.options, [tuple(c) for c in counts], answer, width=limits.CLASS_REVEAL_CHART_PX)
        try:     # drawn at a phone's width, it fills the box's width on any screen, as the run's chart did
            card["chart"] = chart_svg(spec, stretch=True)
        except ValueError:            # not drawn: the answer's sentence above says what matters
            card["chart"] = ""
        return card


def view_card(state: ClassState, view, lang: str | None, explore: bool) -> dict:
    """A follower's class view (`view`: an engine.classroom.view.ClassView, or None while the teacher's first is being
    made) in `lang`, its veils applied (the open question's parts of its page, until the reveal), with the
    sentences the class box shows around it; `explore`: the app has the view's page (Explore from here opens it)."""
    with i18n.use(lang) as language:
        card = {"version": None, "link": state.link, "lang": language.code, "dir": language.direction,
                "body": "", "notes": [], "explore": "", "explore_help": "",
                "caption": html.escape(_("You follow the teacher: this screen moves with the teacher's page. Explore "
                                         "from here to try it yourself."), quote=False)}
        if view is None:
            card["notes"].append(html.escape(_("The teacher's page is on its way: it shows here in a moment."),
                                             quote=False))
            return card
        question = state.question
        veiled = (frozenset(question.veils) if question is not None and not state.revealed and not state.ended
                  and question.page == view.link.partition("?")[0] else frozenset())
        card["view_link"] = view.link
        if view.link != state.link:
            card["notes"].append(_plain(_(":material/hourglass_top: The teacher has moved on: the new page shows "
                                          "here in a moment.")))
        if view.lang != language.code:
            card["notes"].append(_plain(_(":material/translate: The teacher's page shows here as the teacher reads "
                                          "it, in {language}. Explore from here to read it in yours.",
                                          language=(i18n.language(view.lang) or i18n.LANGUAGES[i18n.SOURCE]).name)))
        card["body"] = view.body(veiled)
        if explore:
            card["explore"] = html.escape(_("Explore from here"), quote=False)
            card["explore_help"] = html.escape(_("Open this page yourself, with the teacher's settings, and change "
                                                 "anything. \"Back to the teacher's page\" returns here."))
        return card


class Cards:
    """One server process's cards: a question card per (class, question, round, language), a view card per (class,
    version, language). A room told at once makes one of each, whatever its number of students; at most
    CLASS_MAX_OPEN_PER_SERVER classes' worth are kept (then the cache starts again)."""

    def __init__(self, most: int | None = None):
        self.most = (limits.CLASS_MAX_OPEN_PER_SERVER * 4) if most is None else most
        self._kept: dict[tuple, object] = {}
        self._lock = threading.Lock()
        self.made = 0                      # cards made (the tests count them)

    def get(self, key: tuple, make):
        found = self._kept.get(key, self)
        if found is not self:
            return found
        with self._lock:                   # the room's requests wait for the one that makes it
            found = self._kept.get(key, self)
            if found is not self:
                return found
            made = make()
            self.made += 1
            if len(self._kept) >= self.most:
                self._kept.clear()
            self._kept[key] = made
            return made

