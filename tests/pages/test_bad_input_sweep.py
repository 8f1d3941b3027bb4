"""Every page, every input, the nasty values: a sentence, never a traceback, the rest kept.

For each page registered in `ui.path.ideas()` (pages landing later are covered as they
register), AppTest finds every text_input, text_area, number_input, selectbox and
file_uploader, in the main area and the sidebar, and feeds it values a student (or a cat
on the keyboard) could produce. Then every switch (radio, small selectbox, checkbox, toggle) is set
to each other value, and the inputs that only then appear are swept the same way. Separately, every
query parameter the page mirrors into its URL is hand-edited to nonsense and the page opened fresh
from that link.

What must hold, for every input tried:
- no exception on the page;
- the page is still there (its title) and no result silently vanished: if fewer charts,
  tables or formulas are drawn than before, a sentence (st.error / st.warning / st.info)
  says why;
- a typed matrix (ui.matrix editors) answers every nasty value with st.error and keeps the
  other widgets' values;
- a hand-edited URL value either shows up in its widget as given, or the page says (with a
  sentence) that it could not use it;
- after a rejected value, setting the original back gives a page without an error.

Values are sampled so the sweep stays near three minutes on two shared cores: every widget
gets the worst ones (the 100k-character text, the empty string) plus a rotating few; a page's first few
text boxes also get a text exactly at the box's length limit and texts at the smallest and largest token
limit of engine/limits.py that fit in the box (limit_values).
A record of every input tried lands in artifacts/bad_input_sweep.txt.
"""
from __future__ import annotations

import itertools
import re
import socket
import struct
import traceback
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine import limits
from tests.netguard import offline
from tests.pages.conftest import shown
from ui.path import ideas

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "artifacts" / "bad_input_sweep.txt"
TIMEOUT = 180

TEXT_VALUES = [
    ("100k characters", "the crane " * 10_000),
    ("empty", ""),
    ("whitespace", "  \n\t  "),
    ("huge number", "1e308"),
    ("NaN", "nan"),
    ("infinities", "inf, -inf"),
    ("letters in numbers", "1, two, 3"),
    ("unknown words", "zxqv blorptastic qqqqq"),
    ("emoji", "\U0001F989 \U0001F408\u200d\u2b1b \U0001F389"),
    ("binary", "\x00\x01\x02\ufffd\x7f garbage"),
    ("negative huge", "-1e308"),
]
# At the limits a page allows: a text exactly as long as its box takes (max_chars), and texts of exactly as many
# words as each token limit of engine/limits.py ("crane", fillers, "lake": the favourite neighbour as far as it goes).
TOKEN_LIMITS = sorted({value for name, value in vars(limits).items()
                       if name.isupper() and not name.startswith(("GRADIO", "MIN")) and
                       name.endswith(("MAX_TOKENS", "_WORDS"))})


def words(count: int) -> str:
    """`count` words: crane first, lake last, a filler no page has a vector for between."""
    return " ".join(["crane"] + ["zz"] * (count - 2) + ["lake"]) if count > 1 else "crane"


def at_length(chars: int) -> str:
    """A sentence exactly `chars` characters long."""
    return ("crane by the lake " * (chars // 18 + 1))[:chars]


def limit_values(max_chars: int) -> list[tuple[str, str]]:
    """The values at a text box's limits: its length limit, and the smallest and the largest token limit whose
    words fit in the box (two, not all six: a box on the Generate page samples three models for each)."""
    values = [(f"{max_chars} characters (the box's limit)", at_length(max_chars))] if max_chars else []
    fitting = [count for count in TOKEN_LIMITS if not max_chars or len(words(count)) <= max_chars]
    return values + [(f"{count} words (a token limit)", words(count)) for count in dict.fromkeys(fitting[:1] +
                                                                                                 fitting[-1:])]


ALWAYS_TEXT = 1          # the first of TEXT_VALUES (100k characters) goes to every text widget
ROTATING_TEXT = 2        # plus this many more, rotating through the rest
FULL_TEXT_WIDGETS = 5    # text widgets past this many on one page get the 100k text only (time)

QUERY_VALUES = ["seven", "99999999", "-99999999", "nan", "", "\U0001F989" + "x" * 3000]

RESULT_TYPES = ("vega_lite_chart", "arrow_vega_lite_chart", "dataframe", "arrow_data_frame", "latex", "image",
                "imgs", "table")

_text_rotation = itertools.count()


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims width x height pixels (a decompression-bomb lookalike)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + \
        chunk(b"IEND", b"")


def upload_values(allowed: list[str] | None = None) -> list[tuple[str, tuple[str, bytes, str]]]:
    """The nasty files, each named with an extension the uploader accepts (a browser refuses others)."""
    def named(stem: str, extension: str) -> str:
        extensions = [e.lower().lstrip(".") for e in (allowed or [])]
        return f"{stem}.{extension if not extensions or extension in extensions else extensions[0]}"

    return [
        ("binary upload", (named("data", "txt"), bytes(range(256)) * 64, "text/plain")),
        ("oversize upload", (named("big", "txt"), b"to be or not to be " * 200_000, "text/plain")),
        ("image claiming 30000 x 30000", (named("bomb", "png"), png_claiming(30_000, 30_000), "image/png")),
        ("truncated image", (named("cut", "png"), png_claiming(64, 64)[:40], "image/png")),
        ("empty file", (named("empty", "txt"), b"", "text/plain")),
    ]


# --- network: nothing may leave the machine while pages run ----------------------------------
@pytest.fixture(autouse=True)
def no_network():
    """socket.connect to anything but loopback raises and is recorded; the test then fails."""
    with offline() as attempts:
        yield attempts
    assert not attempts, f"the page tried to reach the network: {attempts}"


def test_the_network_guard_blocks_outside_addresses(no_network):
    with pytest.raises(OSError, match="network disabled"):
        socket.create_connection(("93.184.216.34", 80), timeout=1)
    assert no_network == ["('93.184.216.34', 80)"]
    no_network.clear()


# --- helpers ----------------------------------------------------------------------------------
def fresh(file: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / file), default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def sentences(at: AppTest) -> list[str]:
    return [e.value for e in itertools.chain(at.error, at.warning, at.info)]


def results(at: AppTest) -> int:
    return sum(len(at.get(kind)) for kind in RESULT_TYPES)


def widgets(at: AppTest, kind: str) -> list:
    return list(getattr(at, kind))


def ident(widget) -> tuple[str, str]:
    return ("key", widget.key) if widget.key else ("label", widget.label)


def find(at: AppTest, kind: str, who: tuple[str, str]):
    for widget in widgets(at, kind):
        if ident(widget) == who:
            return widget
    return None


STATE_KINDS = ("text_input", "text_area", "number_input", "selectbox", "slider", "checkbox", "toggle", "radio")
SWEPT_KINDS = ("text_input", "text_area", "number_input", "selectbox", "file_uploader")
SWITCH_KINDS = ("radio", "selectbox", "checkbox", "toggle")
MAX_SWITCH_OPTIONS = 8   # a selectbox with more options (a corpus of 38 plays) is a choice, not a switch


PRESET_CHOOSER = re.compile(r"preset|example", re.IGNORECASE)


def snapshot(at: AppTest, skip: tuple[str, tuple[str, str]]) -> dict:
    """Values of every widget except the one being swept (and preset choosers, which rightly
    switch to 'custom' once a student edits what they loaded)."""
    state = {}
    for kind in STATE_KINDS:
        for widget in widgets(at, kind):
            if PRESET_CHOOSER.search(f"{widget.key} {widget.label}"):
                continue
            if (kind, ident(widget)) != skip:
                state[(kind, ident(widget))] = repr(widget.value)[:200]
    return state


def is_matrix_editor(at: AppTest, key: str | None) -> bool:
    return bool(key) and f"{key}__last_good" in at.session_state


class Sweep:
    """Runs inputs against one page and collects every failure with its input."""

    def __init__(self, idea):
        self.idea = idea
        self.failures: list[str] = []
        self.tried = 0
        self.lines: list[str] = []
        self.reset = lambda: fresh(idea.file)   # the page as the sweep starts it (a hidden section: switched on)

    def check(self, at: AppTest, what: str, *, before: int | None = None, need_sentence: bool = False,
              kept: dict | None = None, skip=None) -> None:
        self.tried += 1
        problems = []
        if at.exception:
            problems.append("exception: " + at.exception[0].value.splitlines()[0][:200])
        else:
            if not at.title:
                problems.append("the page lost its title")
            said = sentences(at)
            if need_sentence and not at.error:
                problems.append("no st.error sentence")
            if before is not None and results(at) < before and not said:
                problems.append(f"results vanished without a sentence ({before} -> {results(at)})")
            if kept is not None and at.error:
                now = snapshot(at, skip)
                changed = [k for k in kept if k in now and now[k] != kept[k]]
                if changed:
                    problems.append(f"other inputs changed: {changed[:3]}")
        verdict = "; ".join(problems) or "ok"
        self.lines.append(f"{self.idea.url:<12} {what[:150]} -> {verdict}")
        if problems:
            self.failures.append(f"{what[:150]}: {verdict}")

    def attempt(self, at: AppTest, interaction, what: str, **expect) -> AppTest:
        """Run one input and check the page; after an exception, go on from a fresh page."""
        try:
            interaction()
            shown(at)
        except Exception as error:  # the page left a state AppTest itself cannot read back
            if harness_limit(error):
                self.lines.append(f"{self.idea.url:<12} {what[:150]} -> not driven (AppTest cannot: {error})")
                return self.reset()
            self.tried += 1
            self.failures.append(f"{what}: the page broke ({type(error).__name__}: {str(error)[:150]})")
            self.lines.append(f"{self.idea.url:<12} {what[:150]} -> the page broke")
            return self.reset()
        self.check(at, what, **expect)
        return self.reset() if at.exception else at

    def widget_inputs(self, base: AppTest, only: set | None = None) -> None:
        """Sweep the inputs of `base` (only those in `only`, as (kind, ident), when given)."""
        def inputs(kind: str) -> list:
            return [w for w in widgets(base, kind) if only is None or (kind, ident(w)) in only]

        at = self.reset()
        swept = 0
        for kind in ("text_input", "text_area"):
            for widget in inputs(kind):
                swept += 1
                who = ident(widget)
                original = widget.value
                matrix = is_matrix_editor(base, widget.key)
                start = next(_text_rotation) * ROTATING_TEXT
                rest = TEXT_VALUES[ALWAYS_TEXT:]
                chosen = TEXT_VALUES[:ALWAYS_TEXT] + [rest[(start + i) % len(rest)] for i in range(ROTATING_TEXT)]
                if swept > FULL_TEXT_WIDGETS and not matrix:
                    chosen = TEXT_VALUES[:ALWAYS_TEXT]
                elif not matrix:
                    chosen = chosen + limit_values(widget.proto.max_chars)
                for name, value in chosen:
                    target = find(at, kind, who)
                    if target is None:
                        at = self.reset()
                        target = find(at, kind, who)
                    kept, before = snapshot(at, (kind, who)), results(at)
                    at = self.attempt(at, lambda: target.input(value).run(), f"{kind} {who[1]!r} <- {name}",
                                      before=before, need_sentence=matrix, kept=kept, skip=(kind, who))
                target = find(at, kind, who)
                if target is not None and not at.exception:
                    try:
                        target.input(original).run()
                    except Exception as error:
                        self.failures.append(f"{kind} {who[1]!r}: setting the original value back broke the page "
                                             f"({type(error).__name__})")
                        at = self.reset()
                        continue
                    self.tried += 1
                    if at.exception or at.error:
                        self.failures.append(f"{kind} {who[1]!r}: the original value back still shows "
                                             f"{(at.exception or at.error)[0].value[:150]!r}")
                        at = self.reset()
                else:
                    at = self.reset()
        for widget in inputs("number_input"):
            who = ident(widget)
            low = widget.min if widget.min is not None else -1e308
            high = widget.max if widget.max is not None else 1e308
            for name, value in (("largest allowed", high), ("smallest allowed", low)):
                target = find(at, "number_input", who)
                if target is None:
                    break
                kept, before = snapshot(at, ("number_input", who)), results(at)
                at = self.attempt(at, lambda: target.set_value(value).run(),
                                  f"number_input {who[1]!r} <- {name} ({value:g})", before=before, kept=kept,
                                  skip=("number_input", who))
        for widget in inputs("selectbox"):
            who = ident(widget)
            options = list(widget.options)
            picks = [i for i in (len(options) - 1,) if options and options[i] != widget.value]
            for index in dict.fromkeys(picks):
                target = find(at, "selectbox", who)
                if target is None:
                    break
                before = results(at)
                at = self.attempt(at, lambda: target.set_value(raw_option(target, options[index])).run(),
                                  f"selectbox {who[1]!r} <- option {index} ({options[index][:40]!r})", before=before)
        for widget in inputs("file_uploader"):
            who = ident(widget)
            for name, upload in upload_values(list(widget.allowed_type or [])):
                at = self.reset()
                target = find(at, "file_uploader", who)
                if target is None:
                    break
                self.attempt(at, lambda: target.set_value(upload).run(), f"file_uploader {who[1]!r} <- {name}",
                             need_sentence=name != "empty file")

    def hidden_sections(self, base: AppTest) -> None:
        """Flip every switch (radio, small selectbox, checkbox, toggle) to each other value, and sweep
        the inputs that only then appear (an upload behind a radio, k behind add-k smoothing)."""
        seen = {(kind, ident(w)) for kind in SWEPT_KINDS for w in widgets(base, kind)}
        for kind in SWITCH_KINDS:
            for switch in widgets(base, kind):
                who = ident(switch)
                if kind in ("radio", "selectbox"):
                    options = list(switch.options)
                    if kind == "selectbox" and len(options) > MAX_SWITCH_OPTIONS:
                        continue
                    values = [o for o in options if o != switch.value]
                else:
                    values = [not switch.value]
                for value in values:
                    def switched(kind=kind, who=who, value=value) -> AppTest:
                        at = fresh(self.idea.file)
                        widget = find(at, kind, who)
                        return at if widget is None else shown(widget.set_value(raw_option(widget, value)).run())

                    what = f"{kind} {who[1]!r} = {str(value)[:40]!r}"
                    try:
                        state = switched()
                    except Exception as error:
                        if harness_limit(error):  # e.g. options shown through a format_func
                            self.lines.append(f"{self.idea.url:<12} {what} -> not driven (AppTest cannot: {error})")
                            continue
                        self.failures.append(f"{what}: the page broke ({type(error).__name__})")
                        continue
                    self.check(state, what)
                    if state.exception:
                        continue
                    revealed = {(k, ident(w)) for k in SWEPT_KINDS for w in widgets(state, k)} - seen
                    if not revealed:
                        continue
                    seen |= revealed
                    self.lines.append(f"{self.idea.url:<12} {what} reveals {sorted(r[1][1] for r in revealed)}")
                    self.reset = switched
                    try:
                        self.widget_inputs(state, only=revealed)
                    finally:
                        self.reset = lambda: fresh(self.idea.file)

    def query_inputs(self, base: AppTest) -> None:
        keys = [k for k in base.query_params if not k.startswith("_")]
        if not keys:
            return
        by_key = {}  # widget key -> kind, for the widgets that show a URL parameter (key "<page>.<name>")
        for kind in STATE_KINDS:
            for widget in widgets(base, kind):
                if widget.key and widget.key.split(".", 1)[-1] in keys:
                    by_key[widget.key] = kind
        for value in QUERY_VALUES:
            query = {k: value for k in keys}
            at = fresh(self.idea.file, query)
            shown = f"?{'&'.join(f'{k}=' for k in keys)}{value[:20]!r}"
            self.check(at, f"URL {shown}")
            if at.exception:
                # find which parameter alone breaks the page
                for key in keys:
                    alone = fresh(self.idea.file, {key: value})
                    self.check(alone, f"URL ?{key}={value[:20]!r}")
                continue
            unaccepted = []
            for key, kind in by_key.items():
                widget = find(at, kind, ("key", key))
                if widget is None or not accepted(widget.value, value):
                    unaccepted.append(key)
            if unaccepted and not sentences(at):
                self.tried += 1
                self.failures.append(f"URL {shown}: {unaccepted} not used and no sentence says so")


def raw_option(widget, shown):
    """The value behind an option label: AppTest lists labels after format_func; a dict's .get
    (the usual format_func here) can be read backwards."""
    owner = getattr(getattr(widget, "format_func", None), "__self__", None)
    if isinstance(owner, dict):
        return {label: value for value, label in owner.items()}.get(shown, shown)
    return shown


def harness_limit(error: Exception) -> bool:
    """True when AppTest's own bookkeeping raised (e.g. a selectbox option whose value is 0 or None
    reads back as None), not the page: the page never ran with that input."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and "streamlit/testing/" in frames[-1].filename


def accepted(shown, given: str) -> bool:
    if isinstance(shown, bool):
        return given.strip().lower() in (("1", "true", "yes", "on") if shown else ("0", "false", "no", "off"))
    if isinstance(shown, (int, float)):
        try:
            return float(shown) == float(given)
        except ValueError:
            return False
    if isinstance(shown, (list, tuple)):
        return ",".join(str(v) for v in shown) == given
    return str(shown) == given


# --- the sweep --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record():
    lines: list[str] = []
    yield lines
    RECORD.parent.mkdir(exist_ok=True)
    RECORD.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("idea", ideas(), ids=lambda idea: idea.url)
def test_every_input_of_the_page_survives_nasty_values(idea, record):
    sweep = Sweep(idea)
    base = fresh(idea.file)
    assert not base.exception, base.exception[0].value
    sweep.widget_inputs(base)
    sweep.hidden_sections(base)
    sweep.query_inputs(base)
    record.extend(sweep.lines + [f"{idea.url:<12} {sweep.tried} inputs, {len(sweep.failures)} failures"])
    assert sweep.tried > 0
    assert not sweep.failures, f"{idea.title}: {len(sweep.failures)} of {sweep.tried} inputs failed:\n" + \
        "\n".join(sweep.failures)
