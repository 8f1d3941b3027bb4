"""The playground's languages: gettext catalogs, one translation object per session, and the tools to keep them.

Every sentence a person reads is an English message marked where it is made, translated where it is shown:

    from engine.i18n import N_, _, ngettext, pgettext

    _("{token} gets the largest weight, {weight}.", token=markup.quoted(t), weight=numbers.fixed(w))
    ngettext("{n} student joined", "{n} students joined", count)      # `n` is the count, always at hand
    pgettext("attention", "key")                                      # one English word, two meanings
    TITLE = N_("Attention calculator")   # made at import time (a Param's label): marked here, `_(TITLE)` where shown

Whole sentences with named placeholders, never glued fragments; numbers formatted by the language at the last
moment (engine.numbers), never baked into a message. A message with placeholders is filled with `str.format`, so
its literal braces are doubled (`{{`); a message without any is returned as translated, braces and all.

- Languages: `LANGUAGES`, one line each. A sixth is a line there and its catalog,
  `engine/locales/<code>/LC_MESSAGES/messages.po` (`python -m engine.i18n init <code>`). English is the source:
  it reads the messages as written (no catalog), so its pages are byte for byte what they were.
- Catalogs: `.po` files in the repository, compiled in memory (Babel's `read_po` and `write_mo`) the first time a
  process needs a language, once per process (`translations`); no `.mo` file is ever written or committed. A fuzzy
  entry is not used.
- One translation object per session, never gettext's process-wide `install()`: `activate(code)` sets the
  language of the running context (a contextvars.ContextVar: a Streamlit run's thread, a Gradio request), `use`
  for a block. Where nothing set it (a fragment that reruns alone in a fresh thread) a front end's `resolver`,
  registered once, finds the session's language; else English.
- `PSEUDO` ("en-XA"): every message accented and bracketed, made from the template, not a file to keep: a page run
  in it shows any sentence still in plain English, which is one nobody marked (tests/test_i18n_pseudo.py).
- Keeping the catalogs: `python -m engine.i18n update` extracts every marked message (Babel, the keywords above)
  into `engine/locales/messages.pot` and merges it into each catalog (new messages empty, changed ones fuzzy);
  translate those, and `python -m engine.i18n check` (what tests/engine/test_i18n.py runs) says what is missing.
"""
from __future__ import annotations

import contextlib
import functools
import gettext
import io
import re
from contextvars import ContextVar
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Callable, Iterator

DOMAIN = "messages"
LOCALES = Path(str(files("engine") / "locales"))   # <code>/LC_MESSAGES/messages.po, and the template messages.pot
TEMPLATE = LOCALES / f"{DOMAIN}.pot"


@dataclass(frozen=True)
class Language:
    """A language the app speaks: `code` as a link writes it (?lang=zh-Hans) and as its catalog's folder is named;
    `name` in the language itself (the picker); `locale` Babel's identifier (plural rules, number symbols);
    `direction` "rtl" for a script written right to left; `numbering` the digits numbers are written with (Latin
    digits everywhere: a formula, a chart's axis and a sentence show one number one way)."""
    code: str
    name: str
    locale: str
    direction: str = "ltr"
    numbering: str = "latn"


SOURCE = "en"
LANGUAGES: dict[str, Language] = {language.code: language for language in (
    Language("en", "English", "en"),
    Language("zh-Hans", "中文（简体）", "zh_Hans"),
    Language("es", "Español", "es"),
    Language("ko", "한국어", "ko"),
    Language("ar", "العربية", "ar", direction="rtl"),
)}
# Plural rules written out where Babel's own table (babel.messages.plurals, which a new catalog's header is made
# from) disagrees with CLDR: Arabic's "many" form is for n % 100 in 11..99, its table had 0..2. Applied to every
# catalog as it is compiled, made or updated, so a header never brings the wrong rule back.
PLURAL_FORMS = {"ar": "nplurals=6; plural=(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : "
                      "n%100>=11 && n%100<=99 ? 4 : 5);"}
PSEUDO = Language("en-XA", "[Ƥšéûðö]", "en")   # not offered in the picker: ?lang=en-XA, for finding unmarked text


def language(code: str | None) -> Language | None:
    """The language a code names (?lang=, a catalog's folder), or None for one the app does not speak."""
    if code == PSEUDO.code:
        return PSEUDO
    return LANGUAGES.get(code or "")


def negotiate(preferred: str | None) -> str | None:
    """The language of ours that a browser's tag asks for ("es-MX" -> "es", "zh-CN" or "zh-TW" -> "zh-Hans",
    "ko-KR" -> "ko"), or None where we speak none of it. Chinese in any script gets the Simplified catalog: closer
    to a reader of Traditional characters than English is."""
    if not preferred:
        return None
    tag = preferred.strip().replace("_", "-")
    if tag in LANGUAGES or tag == PSEUDO.code:
        return tag
    base = tag.split("-")[0].lower()
    for code in LANGUAGES:
        if code.split("-")[0].lower() == base:
            return code
    return None


# --- catalogs: compiled in memory, once per process ------------------------------------------------------------

def catalog_path(code: str) -> Path:
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.lru_cache(maxsize=None)
def translations(code: str) -> gettext.NullTranslations:
    """The translation object of a language, made once per process: English as written (NullTranslations), the
    pseudo language from the template, every other from its catalog, compiled in memory (fuzzy entries left out).
    Shared read-only by every session that reads the language."""
    if code == SOURCE:
        return gettext.NullTranslations()
    if code == PSEUDO.code:
        return _Pseudo(_template_messages())
    if code not in LANGUAGES:
        raise ValueError(f"The app has no catalog for the language '{code}'.")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(catalog_path(code), "rb") as po:
        catalog = _plural_rule(read_po(po, locale=LANGUAGES[code].locale, domain=DOMAIN), code)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def _plural_rule(catalog, code: str):
    """The catalog with its language's plural rule as PLURAL_FORMS writes it (if it names one)."""
    rule = PLURAL_FORMS.get(code)
    if rule is not None:
        catalog.mime_headers = [(name, rule if name.lower() == "plural-forms" else value)
                                for name, value in catalog.mime_headers]
    return catalog


# --- the active language: one translation object per session ---------------------------------------------------

_ACTIVE: ContextVar[tuple[Language, gettext.NullTranslations] | None] = ContextVar("engine.i18n.active", default=None)
_resolver: Callable[[], str | None] | None = None


def set_resolver(find: Callable[[], str | None] | None) -> None:
    """A front end's way to find the language of the session running here, for code that runs where no `activate`
    did (a Streamlit fragment rerunning alone starts a fresh thread). Called once, at import of the front end."""
    global _resolver
    _resolver = find


def activate(code: str | None) -> Language:
    """Make `code` (English where the app does not speak it) the language of the running context: a Streamlit
    session's run, a Gradio request. Returns the language now active."""
    chosen = language(code) or LANGUAGES[SOURCE]
    _ACTIVE.set((chosen, translations(chosen.code)))
    return chosen


@contextlib.contextmanager
def use(code: str | None) -> Iterator[Language]:
    """The language of a block of code, the one before restored after it (a handout made in another language, a
    test)."""
    chosen = language(code) or LANGUAGES[SOURCE]
    token = _ACTIVE.set((chosen, translations(chosen.code)))
    try:
        yield chosen
    finally:
        _ACTIVE.reset(token)


def _active() -> tuple[Language, gettext.NullTranslations]:
    found = _ACTIVE.get()
    if found is not None:
        return found
    code = None
    if _resolver is not None:
        try:
            code = _resolver()
        except Exception:   # the front end's session is not there (a bare script): the source language
            code = None
    chosen = language(code) or LANGUAGES[SOURCE]
    found = (chosen, translations(chosen.code))
    if code is not None:
        _ACTIVE.set(found)   # this context (a fragment's own run) asks its front end once
    return found


def current() -> Language:
    """The language of the running context."""
    return _active()[0]


def is_source() -> bool:
    """Whether the running context reads the messages as written (English): the fast path of number formats."""
    return _active()[0].code == SOURCE


# --- marking and translating -----------------------------------------------------------------------------------

def _filled(text: str, params: dict) -> str:
    return text.format(**params) if params else text


def _(message: str, /, **params) -> str:
    """`message` in the active language, its named placeholders filled from `params`."""
    return _filled(_active()[1].gettext(message), params)


def ngettext(singular: str, plural: str, n: int, /, **params) -> str:
    """The form of a message for the count `n` that the active language's plural rule picks (Arabic has six, Chinese
    and Korean one); `{n}` is filled with the count unless `params` gives it, already formatted."""
    return _active()[1].ngettext(singular, plural, n).format(**({"n": n} | params))


def pgettext(context: str, message: str, /, **params) -> str:
    """A message whose English words mean more than one thing: `context` tells the translator which
    ("attention" for the key of Q, K, V; "keyboard" for a key one presses)."""
    return _filled(_active()[1].pgettext(context, message), params)


def npgettext(context: str, singular: str, plural: str, n: int, /, **params) -> str:
    return _active()[1].npgettext(context, singular, plural, n).format(**({"n": n} | params))


def N_(message: str) -> str:
    """Mark a message made at import time (a title, a parameter's label), translated where it is shown: `_(LABEL)`.
    Returns it unchanged."""
    return message


# --- the pseudo language: every message visibly transformed -----------------------------------------------------

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"
# what a message holds that is not words: placeholders, Markdown links' targets, icons, HTML tags and entities, LaTeX
# commands, `code`; kept as they are so that a pseudo page still works
_KEPT = re.compile(r"\{[^{}]*\}|\]\([^)]*\)|:material/[a-z_]+:|<[^>]+>|&[a-z]+;|\\[A-Za-z]+|`[^`]*`|https?://\S+")


def pseudo(message: str) -> str:
    """A message as the pseudo language shows it: its letters accented, bracketed whole, what is not words kept."""
    out, last = [], 0
    for found in _KEPT.finditer(message):
        out.append(message[last:found.start()].translate(_ACCENTED))
        out.append(found.group())
        last = found.end()
    out.append(message[last:].translate(_ACCENTED))
    return PSEUDO_OPEN + "".join(out) + PSEUDO_CLOSE


class _Pseudo(gettext.NullTranslations):
    """The pseudo language: every message of the template transformed, anything else (a message nobody extracted)
    left in English, so that a page shows it."""

    def __init__(self, messages: frozenset) -> None:
        super().__init__()
        self.messages = messages

    def gettext(self, message):
        return pseudo(message) if message in self.messages else message

    def ngettext(self, singular, plural, n):
        return self.gettext(singular if n == 1 else plural)

    def pgettext(self, context, message):
        return pseudo(message) if (context, message) in self.messages else message

    def npgettext(self, context, singular, plural, n):
        return self.pgettext(context, singular if n == 1 else plural)


def _template_messages() -> frozenset:
    """Every message id of the template: plain ones as text, plural ones by each form, context ones as (context,
    text)."""
    from babel.messages.pofile import read_po

    with open(TEMPLATE, "rb") as pot:
        catalog = read_po(pot)
    out = set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        out.update((message.context, i) if message.context else i for i in ids)
    return frozenset(out)


# --- keeping the catalogs: extract, update, check -------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent    # the repository (extraction reads its sources)
SOURCES = ("app.py", "gradio_app.py", "engine", "ui", "views", "gradio_tabs")
# `say` is the Gradio Space's static text (gradio_tabs.common.say: a label or a button, translated in the browser)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3),
            "say": None}
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:![rsa])?(?::[^{}]*)?\}(?!\})")


def placeholders(text: str) -> set[str]:
    """The named placeholders of a message ("{token} gets {weight}" -> {"token", "weight"})."""
    return set(PLACEHOLDER.findall(text))


def extract():
    """Every marked message of the app's sources, as a Babel catalog (the template)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_file

    catalog = Catalog(project="Transformer Playground", version="1", msgid_bugs_address="",
                      copyright_holder="Transformer Playground", charset="utf-8")
    paths = []
    for name in SOURCES:
        path = ROOT / name
        paths.extend([path] if path.is_file() else sorted(path.rglob("*.py")))
    for path in paths:
        relative = path.relative_to(ROOT).as_posix()
        for line, message, comments, context in extract_from_file(
                "python", str(path), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
            flags = ("python-brace-format",) if any(placeholders(m) for m in
                                                    (message if isinstance(message, tuple) else (message,))) else ()
            catalog.add(message, None, [(relative, line)], auto_comments=comments, context=context, flags=flags)
    return catalog


def update() -> None:
    """Extract the template and merge it into every catalog: a new message comes in empty, a changed one as fuzzy
    (its old translation kept as a hint), a message no longer marked is dropped."""
    from babel.messages.pofile import read_po, write_po

    template = extract()
    with open(TEMPLATE, "wb") as out:
        write_po(out, template, width=120, omit_header=False, sort_output=False)
    for code, lang in LANGUAGES.items():
        if code == SOURCE:
            continue
        path = catalog_path(code)
        with open(path, "rb") as po:
            catalog = _plural_rule(read_po(po, locale=lang.locale), code)
        catalog.update(template, update_header_comment=False)
        with open(path, "wb") as out:
            write_po(out, catalog, width=120, ignore_obsolete=True)


def init(code: str) -> None:
    """A new language's catalog from the template (add its line to LANGUAGES first)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    lang = LANGUAGES[code]
    with open(TEMPLATE, "rb") as pot:
        template = read_po(pot)
    catalog = Catalog(locale=lang.locale, domain=DOMAIN, project="Transformer Playground", charset="utf-8")
    catalog.update(template)
    _plural_rule(catalog, code)
    path = catalog_path(code)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        write_po(out, catalog, width=120)


# --- right to left: a formula inside a sentence ------------------------------------------------------------------
# In a right-to-left sentence a formula written in Latin letters ("1/V", "∂L/∂s_j = α_j − [j = t]", "d = {d}") is laid
# out by the Unicode bidi rules, which turn it round: a number after an Arabic word is read as an Arabic number, a
# symbol at its edge joins the Arabic ("(V/1)", "L/∂s_j∂"). Each such run is set apart by a left-to-right mark on
# both sides (U+200E: it draws nothing, in a browser, a chart or the handout's PDF). `python -m engine.i18n mark`
# sets them; `problems` names a run left unmarked. Formulas in $...$, code in backticks, icons, HTML tags and link
# targets are laid out left to right already (ui.language), and are left alone.
LRM = "\u200e"
_SET_APART = re.compile(r"\$[^$]*\$|`[^`]*`|:material/[a-z_]+:|\]\([^)]*\)|\*\*|</?[A-Za-z][^>]*>")
_RUN = re.compile(r"[A-Za-z0-9∂√α-ωΑ-Ω(\[{'‘][A-Za-z0-9∂√α-ωΑ-Ωᵀ_^·×−+\-=/()\[\]|,.:'’ {}ₜ<>≤≥≈∈]*[A-Za-z0-9)\]ᵀ}'’ₜ]")
_TURNS = re.compile(r"[/=∂√^_×−+|<>≤≥≈∈]|\d.*[A-Za-z]|[A-Za-z].*\d|\(.*\)|\[.*\]|[A-Za-z]+ [A-Za-z]")
_NAME_FIRST = re.compile(r"\{\w+\}: ")   # "{name}: p_t": the name may be a word of the language, read before it


def _balanced(start: int, run: str) -> Iterator[tuple[int, str]]:
    """The run cut at each bracket it does not close (or closes without opening): "(1/T" and "2^H (= e^H" are
    Arabic's brackets round a formula, which read right to left with the sentence."""
    pairs, opened, lone = {")": "(", "]": "["}, [], set()
    for index, char in enumerate(run):
        if char in "([":
            opened.append((char, index))
        elif char in ")]":
            if opened and opened[-1][0] == pairs[char]:
                opened.pop()
            else:
                lone.add(index)
    lone |= {index for _char, index in opened}
    last = 0
    for cut in sorted(lone) + [len(run)]:
        for match in _RUN.finditer(run[last:cut]):    # what is left begins and ends as a run does
            yield start + last + match.start(), match.group()
        last = cut + 1


def _formula_runs(plain: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of `plain` (text outside what is set apart) that the bidi rules would turn round."""
    for match in _RUN.finditer(plain):
        start, run = match.start(), match.group()
        lead = _NAME_FIRST.match(run)
        if lead:
            start, run = start + lead.end(), run[lead.end():]
        for begin, piece in _balanced(start, run):
            if (re.fullmatch(r"\{\w+\}|[A-Za-z0-9\-.]+", piece) or not _TURNS.search(piece)
                    or not re.search(r"[A-Za-z0-9∂√α-ωΑ-Ω]", re.sub(r"\{\w+\}", "", piece))):
                continue   # a word, a number, a placeholder alone (it may hold a word of the language)
            yield begin, begin + len(piece)


def _unmarked(text: str) -> Iterator[tuple[int, int]]:
    last = 0
    for kept in (*_SET_APART.finditer(text), None):
        end = kept.start() if kept else len(text)
        for start, stop in _formula_runs(text[last:end]):
            start, stop = start + last, stop + last
            if not (text[start - 1:start] == LRM and text[stop:stop + 1] == LRM):
                yield start, stop
        last = kept.end() if kept else end


def formulas_unmarked(text: str) -> list[str]:
    """The formula runs of a right-to-left message not set apart by left-to-right marks."""
    return [text[start:stop] for start, stop in _unmarked(text)]


def formulas_marked(text: str) -> str:
    """The message with each formula run set apart by a left-to-right mark on both sides."""
    out, last = [], 0
    for start, stop in _unmarked(text):
        out += [text[last:start], LRM, text[start:stop], LRM]
        last = stop
    return "".join(out) + text[last:]


def mark() -> int:
    """Set apart the formula runs of every right-to-left catalog; the count of runs marked."""
    from babel.messages.pofile import read_po, write_po

    count = 0
    for code, lang in LANGUAGES.items():
        if lang.direction != "rtl":
            continue
        with open(catalog_path(code), "rb") as po:
            catalog = _plural_rule(read_po(po, locale=lang.locale), code)
        for message in catalog:
            if not message.id or not message.string:
                continue
            strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
            count += sum(len(formulas_unmarked(string)) for string in strings)
            marked = tuple(formulas_marked(string) for string in strings)
            message.string = marked if isinstance(message.string, (list, tuple)) else marked[0]
        with open(catalog_path(code), "wb") as out:
            write_po(out, catalog, width=120, ignore_obsolete=True)
    return count


def problems(code: str) -> list[str]:
    """What keeps a catalog from being complete, one sentence each: a message of the template it lacks, an empty or
    fuzzy translation, a plural with the wrong number of forms, a placeholder lost or invented, and Babel's own
    checks (its plural forms and printf formats)."""
    from babel.messages.pofile import read_po

    with open(TEMPLATE, "rb") as pot:
        template = read_po(pot)
    with open(catalog_path(code), "rb") as po:
        catalog = read_po(po, locale=LANGUAGES[code].locale)
    found = []
    for message in template:
        if not message.id:
            continue
        translated = catalog.get(message.id, context=message.context)
        where = f"{code}: {message.id!r}" + (f" ({message.context})" if message.context else "")
        if translated is None:
            found.append(f"{where} is missing")
            continue
        if translated.fuzzy:
            found.append(f"{where} is fuzzy")
        strings = translated.string if isinstance(translated.string, (list, tuple)) else (translated.string,)
        if not all(strings):
            found.append(f"{where} is not translated")
            continue
        if message.pluralizable and len(strings) != catalog.num_plurals:
            found.append(f"{where} has {len(strings)} plural forms, the language has {catalog.num_plurals}")
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        wanted = set().union(*(placeholders(i) for i in ids))
        for string in strings:
            if placeholders(string) - wanted:
                found.append(f"{where}: {string!r} has a placeholder the English has not: "
                             f"{sorted(placeholders(string) - wanted)}")
            # a plural form may leave out {n} (Arabic's forms for one and two say the number in words); no other
            missing = wanted - placeholders(string) - ({"n"} if message.pluralizable else set())
            if missing:
                found.append(f"{where}: {string!r} lacks {sorted(missing)}")
            if LANGUAGES[code].direction == "rtl" and formulas_unmarked(string):
                found.append(f"{where}: the formulas {formulas_unmarked(string)} in a right-to-left sentence are not "
                             "set apart (python -m engine.i18n mark)")
    for message, errors in catalog.check():
        found.extend(f"{code}: {message.id!r}: {error}" for error in errors)
    return found


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m engine.i18n", description="Keep the message catalogs.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("update", help="extract the template and merge it into every catalog")
    commands.add_parser("check", help="say what keeps a catalog from being complete")
    commands.add_parser("mark", help="set apart the formulas inside right-to-left messages (left-to-right marks)")
    new = commands.add_parser("init", help="a new language's catalog (its line in LANGUAGES first)")
    new.add_argument("code")
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
        print(f"{TEMPLATE.relative_to(ROOT)}: {sum(1 for m in extract() if m.id)} messages")
        return 0
    if args.command == "mark":
        print(f"{mark()} formulas set apart")
        return 0
    if args.command == "init":
        init(args.code)
        return 0
    failures = [line for code in LANGUAGES if code != SOURCE for line in problems(code)]
    print("\n".join(failures) or "every catalog complete")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
