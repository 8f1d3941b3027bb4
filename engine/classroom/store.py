"""The class store: one record per class that every server process shares.

A class (predict, vote, reveal) is a small record: its code, the teacher key (hashed), the page
link students may follow, the question asked, its rounds, the votes keyed by (question, round,
anonymous student id). Every Streamlit process behind HAProxy, and every Kubernetes replica, reads
and writes the same record through one `ClassStore`:

- `SqliteStore` (default): SQLite in WAL mode in the data folder (`PLAYGROUND_DATA`, else
  `$XDG_DATA_HOME/transformer-playground`, else `~/.local/share/transformer-playground`). One
  machine, any number of processes, nothing to set up.
- `RedisStore`: when `PLAYGROUND_REDIS_URL` is set (e.g. `redis://redis:6379/0`). Several machines.

The store enforces the rules, not the widgets: a vote needs a joined student, an open round of the
current question and an option that exists; a student votes once per round (a second vote replaces
the first until the round is locked); teacher actions need a teacher credential, stored hashed and
compared in constant time; codes come from `secrets` (8 of 32 characters = 40 bits) and expire.
Bad input raises ValueError with a sentence a student understands. Pure Python: no streamlit here.

Who is who. A student is their browser (the app's signed cookie, engine.classroom.identity): the id a
page passes is derived from it, so tabs of one browser, a reload and another server process are one
student, and no link can act as one. A teacher credential is either the class's key (what
`create_class` returns and a teacher link carries) or a teacher browser's own credential (derived from
its id the same way): the browser that started the class is its teacher at once, so a reload or another
process finds the class again (`teacher_class`); another device becomes one only with the key (`claim`).

Limits per client, not per room: open classes per teacher browser (CLASS_OPEN_PER_TEACHER) and per
network address (CLASS_OPEN_PER_ADDRESS, generous); wrong codes per browser (CLASS_JOIN_FAILURES_PER_MINUTE)
and per address (a generous ceiling: a room shares one address behind NAT), new students per address. A class
with no teacher action for CLASS_IDLE_S ends by itself and frees its slot; its record goes CLASS_LIFETIME_S
after it started, and only its code is remembered for CLASS_ENDED_KEPT_S more, so joining it says it ended
(not a wrong code).

    store = stores.open_store()                           # engine.classroom.stores
    code, key = store.create_class(teacher, address)      # `teacher`: the teacher browser's credential
    store.join(code, student_id, address=address)         # a student
    store.ask(code, teacher, Question("attention", "Which key ...?", ("a", "b"), answer=1))
    store.vote(code, student_id, question_id=1, round=1, option=1)
    store.reveal(code, teacher); store.counts(code, 1, 1) # anyone may read counts after the reveal
"""
from __future__ import annotations

import csv
import functools
import hashlib
import hmac
import io
import json
import re
import secrets
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass

from engine import i18n, limits, numbers
from engine.i18n import _, ngettext, pgettext

# 32 characters without look-alikes (no I, O, 0, 1): 8 of them carry 40 bits
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_CODE_CHARS = frozenset(CODE_ALPHABET)
FAILURE_WINDOW_S = 60.0           # wrong codes and new students are counted over this sliding window
MAX_SECTIONS = 12                 # sections of its page one question may veil


Rendering = tuple[str, str, tuple[str, ...], str]   # (language code, prompt, options, explanation)


@dataclass(frozen=True)
class Question:
    page: str                    # the page's url path, e.g. "attention"
    prompt: str                  # "Which key gets the largest weight from 'crane'?"
    options: tuple[str, ...]     # CLASS_MIN_OPTIONS..CLASS_MAX_OPTIONS, each at most CLASS_MAX_ANSWER_CHARS
    answer: int | None           # index of the correct option; None for a poll with no right answer
    explanation: str = ""        # one sentence shown at the reveal (computed by the engine)
    link: str = ""               # the page's query string when asked ("x=...&n=3"), so the reveal can redraw
    veils: tuple[str, ...] = ()  # the page's sections (ui.page.section keys) that show the answer: veiled until
                                 # the reveal for students and on the projector
    renderings: tuple[Rendering, ...] = ()   # an engine's question in every language the app speaks (made when it
                                 # was built: engine.chapter.questions); a question the teacher typed has none

    def read(self, code: str | None = None) -> Question:
        """The question as a reader of the language `code` (None: the running context's) reads it: its rendering
        in that language, else as asked (a teacher's own question stays as typed). Options keep their order and
        the answer its index in every rendering, so a vote means the same option in every language."""
        code = i18n.current().code if code is None else code
        for language, prompt, options, explanation in self.renderings:
            if language == code:
                return Question(self.page, prompt, options, self.answer, explanation, self.link, self.veils)
        return Question(self.page, self.prompt, self.options, self.answer, self.explanation, self.link, self.veils)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Question:
        d = json.loads(text)
        return Question(d["page"], d["prompt"], tuple(d["options"]), d["answer"], d.get("explanation", ""),
                        d.get("link", ""), tuple(d.get("veils", ())),
                        tuple((r[0], r[1], tuple(r[2]), r[3]) for r in d.get("renderings", ())))


@dataclass(frozen=True)
class ClassState:
    code: str
    link: str | None             # the teacher's page link for "follow me": "attention?x=..." (path?query)
    link_version: int            # increases on every follow() call
    question_id: int | None      # 1, 2, ... within the class; None before the first ask
    question: Question | None
    round: int                   # 1, then 2 after vote_again, ...; 0 before the first ask
    locked: bool
    revealed: bool
    live: bool                   # the teacher shows the live histogram
    students: int                # joined so far
    answered: int                # distinct students who answered this question's current round
    ended: bool                  # the teacher ended it, or it ended by itself (idle, or its lifetime over)
    expires_at: float            # unix time it ends by itself (CLASS_IDLE_S after the teacher's last action)


@dataclass(frozen=True)
class Pulse:
    """What a class's events route follows, in one small read: the version (teacher actions) and the tallies that
    joins and votes move (how many joined, how many answered the current round). No answer, no key."""
    version: int
    students: int
    answered: int


@dataclass(frozen=True)
class QuestionSummary:
    question_id: int
    question: Question
    counts: tuple[tuple[int, ...], ...]      # per round, answers per option
    correct_share: tuple[float | None, ...]  # per round (None without a right answer or no answers)


class StoreUnavailable(ValueError):
    """The store itself failed (Redis unreachable, the SQLite file not writable): a sentence, never a traceback."""


def guard_store_errors(errors: tuple[type[BaseException], ...], where: str):
    """Class decorator: the public methods turn the backend's own failures (`errors`) into StoreUnavailable."""
    def decorate(cls):
        for name in ("create_class", "teacher_class", "claim", "new_teacher_key", "touch", "state", "version",
                     "join", "follow", "ask", "vote", "my_vote", "lock", "reveal", "vote_again", "show_live", "counts",
                     "summary", "end", "pulse"):
            setattr(cls, name, _guarded(getattr(cls, name), errors, where))
        for name in VIEW_METHODS:      # the class view (engine.classroom.view)
            setattr(cls, name, _guarded(getattr(cls, name), errors, where))
        return cls
    return decorate


VIEW_METHODS = ("put_view", "view")


def _guarded(method, errors, where):
    @functools.wraps(method)
    def call(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except errors as error:
            raise StoreUnavailable(_("The class store ({where}) is not answering, so nothing was saved: try again "
                                     "in a moment, or tell whoever runs this server ({error}).", where=where,
                                     error=type(error).__name__)) from error
    return call


# --- codes, keys and checks shared by both stores ------------------------------------------

def check_view(view: object) -> str:
    """A class view as the store keeps it (engine.classroom.view's JSON), at most CLASS_VIEW_MAX_BYTES."""
    if not isinstance(view, str) or not view:
        raise ValueError(_("A class view is the text of a page's view."))
    size = len(view.encode("utf-8"))
    if size > limits.CLASS_VIEW_MAX_BYTES:
        raise ValueError(_("This page's class view is {size} bytes, more than the {most} a class keeps: students who "
                           "follow open the page itself instead.", size=numbers.grouped(size),
                           most=numbers.grouped(limits.CLASS_VIEW_MAX_BYTES)))
    return view


def new_code() -> str:
    """A class code: CLASS_CODE_CHARS characters of CODE_ALPHABET from `secrets` (40 bits at 8 of 32)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(limits.CLASS_CODE_CHARS))


def new_key() -> str:
    """A teacher key (192 bits); only its hash is stored."""
    return secrets.token_urlsafe(24)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_matches(key: str | None, stored_hash: str) -> bool:
    """Whether `key` is the class's teacher key, compared in constant time."""
    given = hash_key(key) if isinstance(key, str) and key else ""
    return hmac.compare_digest(given.encode(), stored_hash.encode())


def normalise_code(code: object) -> str:
    """The code as stored: upper case, spaces and dashes dropped. Raises ValueError when it cannot be one."""
    if not isinstance(code, str):
        raise ValueError(_("A class code is text, like K7QM2XPA."))
    if len(code) == limits.CLASS_CODE_CHARS and _CODE_CHARS.issuperset(code):
        return code                    # already as stored (every poll): no regular expression
    text = re.sub(r"[\s\-]", "", code).upper()
    if len(text) != limits.CLASS_CODE_CHARS or any(ch not in CODE_ALPHABET for ch in text):
        shown = code.strip()[:20]
        raise ValueError(_("'{shown}' is not a class code: a code is {n} letters and digits, like K7QM2XPA (no 0, "
                           "1, I or O).", shown=shown, n=limits.CLASS_CODE_CHARS))
    return text


def check_student(student_id: object) -> str:
    if not isinstance(student_id, str) or not student_id.strip():
        raise ValueError(_("This browser has no student id yet: reload the page and join again."))
    if len(student_id) > limits.CLASS_MAX_STUDENT_ID_CHARS:
        raise ValueError(_("A student id is at most {most} characters.", most=limits.CLASS_MAX_STUDENT_ID_CHARS))
    return student_id


def check_address(address: object) -> str:
    """The network address the per-address ceilings count under ('' shares one count)."""
    if not isinstance(address, str):
        raise ValueError(_("The client's address is text."))
    return address[:200]


def check_teacher(teacher: object) -> str:
    """A teacher browser's credential (what the store keeps only hashed)."""
    if not isinstance(teacher, str) or not teacher.strip() or len(teacher) > 200:
        raise ValueError(_("This browser has no teacher id: reload the page, then start the class again."))
    return teacher


def check_link(link: object) -> str:
    if not isinstance(link, str):
        raise ValueError(_("A page link is text, like attention?n=3."))
    if len(link) > limits.CLASS_MAX_LINK_CHARS:
        raise ValueError(_("This page's link has {n} characters; a class can follow links of at most {most}.",
                           n=numbers.grouped(len(link)), most=numbers.grouped(limits.CLASS_MAX_LINK_CHARS)))
    return link


def check_text(prompt: object, options: object, explanation: object) -> tuple[str, tuple[str, ...], str]:
    """A question's words (as asked, or one of its renderings) checked against the limits."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(_("A question needs its text: type what you want to ask."))
    if len(prompt) > limits.CLASS_MAX_PROMPT_CHARS:
        raise ValueError(_("The question has {n} characters; keep it to {most}.", n=len(prompt),
                           most=limits.CLASS_MAX_PROMPT_CHARS))
    options = tuple(options) if isinstance(options, (tuple, list)) else None
    if options is None or not all(isinstance(o, str) for o in options):
        raise ValueError(_("A question's options are a list of texts."))
    if not limits.CLASS_MIN_OPTIONS <= len(options) <= limits.CLASS_MAX_OPTIONS:
        raise ValueError(_("A question has {least} to {most} options; this one has {n}.",
                           least=limits.CLASS_MIN_OPTIONS, most=limits.CLASS_MAX_OPTIONS, n=len(options)))
    for i, option in enumerate(options):
        if not option.strip():
            raise ValueError(_("Option {i} is empty: give every option a text.", i=i + 1))
        if len(option) > limits.CLASS_MAX_ANSWER_CHARS:
            raise ValueError(_("Option {i} has {n} characters; an option has at most {most}.", i=i + 1,
                               n=len(option), most=limits.CLASS_MAX_ANSWER_CHARS))
    if len({o.strip() for o in options}) != len(options):
        raise ValueError(_("Two options have the same text: every option must differ."))
    if not isinstance(explanation, str) or len(explanation) > limits.CLASS_MAX_EXPLANATION_CHARS:
        raise ValueError(_("The explanation is text of at most {most} characters.",
                           most=limits.CLASS_MAX_EXPLANATION_CHARS))
    return prompt, options, explanation


def check_question(question: object) -> Question:
    """The question, checked against the limits; raises ValueError with what is wrong. Each rendering (the question
    in another language) is checked as the question itself is, and has as many options."""
    if not isinstance(question, Question):
        raise ValueError(_("A class question needs a page, a prompt and its options."))
    q = question
    if not isinstance(q.page, str) or not q.page or len(q.page) > 100:
        raise ValueError(_("A question names the page it is about."))
    prompt, options, explanation = check_text(q.prompt, q.options, q.explanation)
    if q.answer is not None and (isinstance(q.answer, bool) or not isinstance(q.answer, int)
                                 or not 0 <= q.answer < len(options)):
        raise ValueError(_("The right answer must be one of the {n} options (or none, for a poll).",
                           n=len(options)))
    check_link(q.link)
    veils = tuple(q.veils) if isinstance(q.veils, (tuple, list)) else None
    if (veils is None or len(veils) > MAX_SECTIONS
            or not all(isinstance(v, str) and 0 < len(v) <= 100 for v in veils)):
        raise ValueError(_("A question veils at most {most} sections of its page, each named by its key.",
                           most=MAX_SECTIONS))
    renderings = tuple(q.renderings) if isinstance(q.renderings, (tuple, list)) else None
    if renderings is None or len(renderings) > len(i18n.LANGUAGES) + 1:
        raise ValueError(_("A question comes in at most one rendering per language."))
    checked: list[Rendering] = []
    for rendering in renderings:
        if (not isinstance(rendering, (tuple, list)) or len(rendering) != 4 or i18n.language(rendering[0]) is None
                or rendering[0] in {c[0] for c in checked}):
            raise ValueError(_("A question's rendering names a language the app speaks, once."))
        text = check_text(*rendering[1:])
        if len(text[1]) != len(options):
            raise ValueError(_("A question has as many options in every language."))
        checked.append((rendering[0], *text))
    return Question(q.page, prompt, options, q.answer, explanation, q.link, veils, tuple(checked))


def check_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(_("The {what} is a whole number.", what=what))
    return value


# the sentences both stores raise (the contract tests compare them)
def unknown_code(code: str) -> ValueError:
    return ValueError(_("No open class has the code {code}: check it with your teacher.", code=code))


def too_many_failures(per: str = "browser") -> ValueError:
    if per == "browser":
        return ValueError(_("Too many wrong class codes from this browser in the last minute: wait a minute, "
                            "then type the code again."))
    return ValueError(_("Too many wrong class codes from this network in the last minute: wait a minute, "
                        "then type the code again."))


def too_many_joins() -> ValueError:
    return ValueError(_("Too many students joined from this network in the last minute: wait a minute, then "
                        "open the class link again."))


def ended(code: str) -> ValueError:
    return ValueError(_("Class {code} has ended: ask your teacher for the code of the class running now.", code=code))


def not_teacher(code: str) -> ValueError:
    return ValueError(_("Only the teacher who started class {code} can do that: this browser does not hold its "
                        "teacher key.", code=code))


def class_full(code: str) -> ValueError:
    return ValueError(_("Class {code} is full ({most} students): ask your teacher to start a second class.",
                        code=code, most=limits.CLASS_MAX_STUDENTS))


def too_many_questions() -> ValueError:
    return ValueError(_("This class has asked {most} questions, the most one class may ask: start a new class to "
                        "ask more.", most=limits.CLASS_MAX_QUESTIONS))


def too_many_rounds() -> ValueError:
    return ValueError(_("This question has had {most} rounds, the most one question may have: ask a new "
                        "question.", most=limits.CLASS_MAX_ROUNDS))


def too_many_classes() -> ValueError:
    return ValueError(_("This server already holds {most} open classes, the most it keeps: end a class or try "
                        "again later.", most=limits.CLASS_MAX_OPEN_PER_SERVER))


def too_many_classes_here(per: str) -> ValueError:
    most = limits.CLASS_OPEN_PER_TEACHER if per == "browser" else limits.CLASS_OPEN_PER_ADDRESS
    minutes = limits.CLASS_IDLE_S // 60
    if per == "browser":
        return ValueError(ngettext(
            "This browser already has {n} open class, the most one browser may start: end one (End the class), "
            "or wait until one ends by itself ({minutes} minutes after its teacher's last action).",
            "This browser already has {n} open classes, the most one browser may start: end one (End the class), "
            "or wait until one ends by itself ({minutes} minutes after its teacher's last action).",
            most, minutes=f"{minutes:g}"))
    return ValueError(ngettext(
        "This network already has {n} open class, the most one network may start: end one (End the class), "
        "or wait until one ends by itself ({minutes} minutes after its teacher's last action).",
        "This network already has {n} open classes, the most one network may start: end one (End the class), "
        "or wait until one ends by itself ({minutes} minutes after its teacher's last action).",
        most, minutes=f"{minutes:g}"))


def too_many_devices(code: str) -> ValueError:
    return ValueError(_("Class {code} already has {most} teacher devices, the most one class may have.",
                        code=code, most=limits.CLASS_MAX_TEACHER_DEVICES))


def not_joined(code: str) -> ValueError:
    return ValueError(_("Join class {code} before answering: reload the page from the class link.", code=code))


def no_question() -> ValueError:
    return ValueError(_("The teacher has not asked a question yet."))


def not_current(question_id: int, round_: int) -> ValueError:
    return ValueError(_("Question {question}, round {round} is no longer open: the teacher has moved on, so this "
                        "answer was not counted.", question=question_id, round=round_))


def locked() -> ValueError:
    return ValueError(_("The teacher has locked this round, so this answer was not counted."))


def bad_option(question_id: int, option: object, n_options: int) -> ValueError:
    return ValueError(_("Question {question} has options 1 to {n}; option {option} does not exist, so it was not "
                        "counted.", question=question_id, n=n_options, option=repr(option)))


def unknown_round(question_id: int, round_: object) -> ValueError:
    return ValueError(_("Question {question} has no round {round}.", question=question_id, round=repr(round_)))


def unknown_question(question_id: object) -> ValueError:
    return ValueError(_("This class has no question {question}.", question=repr(question_id)))


def hidden_counts() -> ValueError:
    return ValueError(_("The answers stay hidden until the teacher reveals them."))


def active_until(now: float, expires_at: float) -> float:
    """Until when a class stays open after a teacher action at `now`: CLASS_IDLE_S, within its lifetime."""
    return min(expires_at, now + limits.CLASS_IDLE_S)


def check_option(question_id: int, question: Question, option: object) -> int:
    if isinstance(option, bool) or not isinstance(option, int) or not 0 <= option < len(question.options):
        raise bad_option(question_id, option, len(question.options))
    return option


def make_summary(question_id: int, question: Question, counts: list[tuple[int, ...]]) -> QuestionSummary:
    shares: list[float | None] = []
    for row in counts:
        total = sum(row)
        shares.append(None if question.answer is None or total == 0 else row[question.answer] / total)
    return QuestionSummary(question_id, question, tuple(counts), tuple(shares))


class ClassStore(ABC):
    """One interface, two stores (SQLite, Redis); the same contract tests run on both.

    Every method raises ValueError with a sentence for bad input. `clock` (seconds, like time.time)
    is injectable so the tests can age a class past CLASS_IDLE_S and CLASS_LIFETIME_S. Every teacher action
    (`key`: the class key or a teacher browser's credential) keeps the class open CLASS_IDLE_S longer.
    """

    @abstractmethod
    def create_class(self, teacher: str, address: str = "") -> tuple[str, str]:
        """A new class taught by the browser whose credential is `teacher`, started from `address`: (code, key).
        The key (for a teacher link to another device) is shown to nobody but the teacher. At most
        CLASS_OPEN_PER_TEACHER open classes per teacher browser, CLASS_OPEN_PER_ADDRESS per address."""

    @abstractmethod
    def teacher_class(self, teacher: str) -> str | None:
        """The code of the latest class this teacher browser teaches (open, or ended but still kept), else None:
        a reload or another server process finds its class again."""

    @abstractmethod
    def claim(self, code: str, key: str, teacher: str) -> ClassState:
        """Another device (the browser `teacher`) becomes a teacher of the class with its key (a teacher link)."""

    @abstractmethod
    def new_teacher_key(self, code: str, teacher: str) -> str:
        """A fresh class key for a teacher link; the old key stops working (a link shown once is not for ever)."""

    @abstractmethod
    def touch(self, code: str, key: str) -> None:
        """The teacher's screen is open: the class stays open CLASS_IDLE_S longer (no version change)."""

    @abstractmethod
    def state(self, code: str) -> ClassState:
        """The class as every page sees it (no answers, no key)."""

    @abstractmethod
    def version(self, code: str) -> int:
        """A number every teacher action raises (follow, ask, lock, reveal, vote again, live, end); joins and votes
        leave it, and a class that ended by itself reads one more than its last. A page that polls reads it (one
        small read) and reads `state` only when it moved."""

    @abstractmethod
    def join(self, code: str, student_id: str, address: str = "") -> ClassState:
        """Join (idempotent per student_id: a browser). Wrong codes are counted per student_id and, with a
        generous ceiling, per `address`: too many in a minute refuse even a right one. An ended class's code
        says so and is not a wrong code."""

    @abstractmethod
    def follow(self, code: str, key: str, link: str) -> ClassState:
        """The teacher's page link ("path?query") that following students open; link_version + 1."""

    @abstractmethod
    def ask(self, code: str, key: str, question: Question) -> ClassState:
        """A new question: the next question_id, round 1, open, hidden."""

    @abstractmethod
    def vote(self, code: str, student_id: str, question_id: int, round: int, option: int) -> None:
        """A joined student's answer to the open round (a new vote replaces theirs until locked)."""

    @abstractmethod
    def my_vote(self, code: str, student_id: str, question_id: int, round: int) -> int | None:
        """This student's own answer, or None."""

    @abstractmethod
    def lock(self, code: str, key: str, locked: bool = True) -> ClassState:
        """Lock (or reopen) the current round."""

    @abstractmethod
    def reveal(self, code: str, key: str) -> ClassState:
        """Lock the round and reveal the answer and the counts of every round of the question."""

    @abstractmethod
    def vote_again(self, code: str, key: str) -> ClassState:
        """A new round of the current question: open, hidden (peer instruction)."""

    @abstractmethod
    def show_live(self, code: str, key: str, on: bool) -> ClassState:
        """Whether the teacher's screen shows the live histogram (a flag pages read)."""

    @abstractmethod
    def counts(self, code: str, question_id: int, round: int, key: str | None = None) -> tuple[int, ...]:
        """Answers per option of one round; needs the teacher key until the question is revealed."""

    @abstractmethod
    def summary(self, code: str, key: str) -> list[QuestionSummary]:
        """Every question asked, with its counts per round and share correct."""

    @abstractmethod
    def end(self, code: str, key: str) -> list[QuestionSummary]:
        """Close the class (no more joins, votes or questions) and return its summary."""

    def pulse(self, code: str) -> Pulse:
        """The class's version and tallies (joined, answered this round) in one small read; raises ValueError like
        `version` for a code with no class. The events watcher (engine.classroom.events) reads it."""
        state = self.state(code)
        return Pulse(self.version(code), state.students, state.answered)

    # a store that tells its changes (Redis pub/sub) sets this and implements `listen`; others are read on a timer
    tells_changes = False

    def listen(self, on_change, stop) -> None:
        """Call `on_change(code)` for every change of any class (a teacher action, a join, a vote) until `stop` (a
        threading.Event) is set; blocks (run it on a thread). Only where `tells_changes`."""
        raise NotImplementedError

    @abstractmethod
    def put_view(self, code: str, key: str, view: str) -> None:
        """The teacher's page as its followers see it (engine.classroom.view's JSON, CLASS_VIEW_MAX_BYTES at most):
        it replaces the last one and moves the class's version (the followers' pages draw it)."""

    @abstractmethod
    def view(self, code: str) -> str | None:
        """The class's latest view (None before the teacher's first); anyone in the class may read it: it holds what
        the teacher's page shows, never the key or an answer."""

    def close(self) -> None:
        """Let go of connections (a store is also fine left to the garbage collector)."""


class SharedVersions:
    """The class versions one server process's polling pages read, shared: a class's version is read from the
    store at most once per `ttl_s` (the room's polls on this process take turns reading it; each poll's news is
    at most `ttl_s` older). A refusal (unknown or expired code) is not kept: the next poll asks again."""

    def __init__(self, store: ClassStore, ttl_s: float | None = None, clock=time.monotonic):
        self.store, self.clock = store, clock
        self.ttl_s = limits.CLASS_VERSION_SHARE_S if ttl_s is None else ttl_s
        self._read: dict[str, tuple[float, int]] = {}    # code -> (when read, version)
        self._states: dict[str, tuple[int, ClassState]] = {}   # code -> (version, the state read after it)
        self._reading = threading.Lock()

    def version(self, code: str, fresh: bool = False) -> int:
        """The class's version, read at most `ttl_s` ago; `fresh`: read now (a page told the version moved), and
        kept for the polls that follow."""
        code, now = normalise_code(code), self.clock()
        kept = self._read.get(code)
        if kept is not None and now - kept[0] < self.ttl_s and not fresh:
            return kept[1]
        version = self.store.version(code)
        if len(self._read) >= limits.CLASS_MAX_OPEN_PER_SERVER:   # ended classes' codes do not pile up
            self._read.clear()
        self._read[code] = (now, version)
        return version

    def state(self, code: str, version: int) -> ClassState:
        """The class's state for `version`, read once per version by this process's pages (a room told at once that
        the class moved makes one store read, not one per student): kept with the version read before it, so it is
        at least as new; a refusal raises ValueError and is not kept."""
        code = normalise_code(code)
        kept = self._states.get(code)
        if kept is not None and kept[0] >= version:
            return kept[1]
        with self._reading:                # the pages that wait here find the state the first one read
            kept = self._states.get(code)
            if kept is not None and kept[0] >= version:
                return kept[1]
            state = self.store.state(code)
            if len(self._states) >= limits.CLASS_MAX_OPEN_PER_SERVER:
                self._states.clear()
            self._states[code] = (version, state)
            return state


def csv_header() -> list[str]:
    """The summary CSV's columns, in the language of the running context."""
    return [pgettext("summary CSV column", "question"), pgettext("summary CSV column", "page"),
            pgettext("summary CSV column", "prompt"), pgettext("summary CSV column", "round"),
            pgettext("summary CSV column", "option"), pgettext("summary CSV column", "answer"),
            pgettext("summary CSV column", "answers"), pgettext("summary CSV column", "correct"),
            pgettext("summary CSV column", "share")]


def summary_csv(summaries: list[QuestionSummary]) -> str:
    """The class's summary as CSV: one row per question, round and option, in the language of the running context
    (the teacher's): its header, an engine's question's words, yes and no, and its shares' numbers."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_header())
    yes, no = pgettext("summary CSV: the right option", "yes"), pgettext("summary CSV: the right option", "no")
    for s in summaries:
        question = s.question.read()
        for r, row in enumerate(s.counts):
            total = sum(row)
            for i, n in enumerate(row):
                correct = "" if question.answer is None else (yes if i == question.answer else no)
                share = numbers.fixed(n / total) if total else ""
                writer.writerow([s.question_id, question.page, question.prompt, r + 1, i + 1,
                                 question.options[i], n, correct, share])
    return out.getvalue()
