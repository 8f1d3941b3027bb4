"""No text a student types or a link carries is ever rendered as a picture, a link, HTML or a formula (issue 43).

Every page of ui.path, every text box it shows (main area and sidebar, and those a switch reveals) and every value
its link carries gets the hostile texts of tests/markdown_leaks.py: `![a](http://b.invalid/c)`,
`<img src=//b.invalid/d>`, `$\\frac{a}{$` and `$x$` (all four at once where the box takes that many characters).
Whatever the page then draws is read back (AppTest) and parsed as Streamlit renders it: no image or link to that
host, no raw HTML, no formula holding typed text, and every st.latex formula still parses in KaTeX. A matrix editor
also gets each hostile text as a row's label (labels are echoed in the pages' readings). The browser's view of the
same, with every request recorded, is tests/e2e/test_echoed_text.py.
"""
from __future__ import annotations

import itertools

import pytest
from streamlit.testing.v1 import AppTest

from tests.katex import MISSING as KATEX_MISSING, katex_errors
from tests.markdown_leaks import HOSTILE, TOGETHER, leaks
from tests.netguard import offline
from tests.pages.conftest import ROOT, shown
from ui.path import ideas

TIMEOUT = 180
SWITCH_KINDS = ("radio", "selectbox", "checkbox", "toggle")
MAX_SWITCH_OPTIONS = 8
TEXT_KINDS = ("text_input", "text_area")


def fresh(file: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / file), default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def ident(widget) -> tuple[str, str]:
    return ("key", widget.key) if widget.key else ("label", widget.label)


def find(at: AppTest, kind: str, who):
    return next((w for w in getattr(at, kind) if ident(w) == who), None)


def hostile_values(widget) -> list[str]:
    """All four at once where the box takes them, else each that fits (a 24-character label box takes each)."""
    limit = widget.proto.max_chars or 0
    if not limit or limit >= len(TOGETHER):
        return [TOGETHER]
    return [value for value in HOSTILE.values() if len(value) <= limit] or [TOGETHER[:limit]]


def labelled(matrix_text: str, label: str) -> str:
    """A typed matrix whose first row is named `label` (the page's readings name tokens by their labels)."""
    lines = matrix_text.splitlines()
    first = lines[0].rpartition(":")[2] if ":" in lines[0] else lines[0]
    return "\n".join([f"{label}: {first.strip()}", *lines[1:]])


class Echoes:
    """What one page rendered of the hostile texts, input by input."""

    def __init__(self, idea):
        self.idea = idea
        self.found: list[str] = []
        self.formulas: set[str] = set()
        self.tried = 0

    def look(self, at: AppTest, what: str, typed: str) -> None:
        self.tried += 1
        if at.exception:
            self.found.append(f"{what}: exception {at.exception[0].value.splitlines()[0][:160]}")
            return
        self.found += [f"{what}: {leak}" for leak in leaks(at, typed)]
        self.formulas.update(element.value.strip().removeprefix("$$").removesuffix("$$").strip()
                             for element in at.get("latex"))

    def boxes(self, reset, only=None) -> None:
        base = reset()
        for kind in TEXT_KINDS:
            for widget in list(getattr(base, kind)):
                who = ident(widget)
                if only is not None and (kind, who) not in only:
                    continue
                values = hostile_values(widget)
                if widget.key and f"{widget.key}__last_good" in base.session_state:   # a matrix editor
                    values += [labelled(widget.value, label) for label in HOSTILE.values()]
                for value in values:
                    at = reset()
                    target = find(at, kind, who)
                    if target is None:
                        continue
                    target.input(value).run()
                    self.look(shown(at), f"{kind} {who[1]!r} <- {value[:60]!r}", value)

    def switches(self, base: AppTest) -> None:
        """Every switch flipped, and the text boxes only it reveals swept too."""
        seen = {(kind, ident(w)) for kind in TEXT_KINDS for w in getattr(base, kind)}
        for kind in SWITCH_KINDS:
            for switch in list(getattr(base, kind)):
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
                        if widget is None:
                            return at
                        owner = getattr(getattr(widget, "format_func", None), "__self__", None)
                        raw = ({label: v for v, label in owner.items()}.get(value, value)
                               if isinstance(owner, dict) else value)
                        return shown(widget.set_value(raw).run())
                    try:
                        state = switched()
                    except Exception:     # AppTest cannot drive this switch (tests/pages/test_bad_input_sweep.py)
                        continue
                    revealed = {(k, ident(w)) for k in TEXT_KINDS for w in getattr(state, k)} - seen
                    if revealed and not state.exception:
                        seen |= revealed
                        self.boxes(switched, only=revealed)

    def link(self, base: AppTest) -> None:
        names = [name for name in base.query_params if not name.startswith("_")]
        for value in HOSTILE.values():
            if names:
                self.look(fresh(self.idea.file, {name: value for name in names}), f"link ?*={value!r}", value)


@pytest.mark.parametrize("idea", ideas(), ids=lambda idea: idea.url)
def test_nothing_typed_or_linked_renders_as_more_than_text(idea):
    echoes = Echoes(idea)
    with offline() as attempts:
        base = fresh(idea.file)
        assert not base.exception, base.exception[0].value
        echoes.boxes(lambda: fresh(idea.file))
        echoes.switches(base)
        echoes.link(base)
    assert echoes.tried > 0
    assert not attempts, f"the page tried to reach the network: {attempts}"
    assert not echoes.found, f"{idea.title}: {len(echoes.found)} echoes render as more than text:\n" + \
        "\n".join(echoes.found[:40])
    if KATEX_MISSING is None:
        broken = katex_errors(sorted(echoes.formulas))
        assert not broken, f"{idea.title}: formulas KaTeX cannot draw: {list(itertools.islice(broken.items(), 5))}"


def test_the_checker_sees_each_hostile_text_rendered():
    """The checker itself: each hostile text unescaped is found, escaped it is not."""
    from engine.markup import markdown
    from tests.markdown_leaks import rendered_leaks

    for name, value in HOSTILE.items():
        assert rendered_leaks(f"The value **{value}** was read.", value), name
        assert not rendered_leaks(f"The value **{markdown(value)}** was read.", value), name


@pytest.mark.parametrize(("file", "kind", "key", "value"), [
    ("views/attention_calculator.py", "text_area", "attention.x", "$x$"),
    ("views/context_window.py", "text_area", "context.x", "$x$"),
    ("views/inside_the_model.py", "text_input", "inside.target", "$x$"),
], ids=["calculator", "context", "inside"])
def test_dollars_typed_into_a_box_stay_dollars_in_the_error_sentence(file, kind, key, value):
    """Issue 38: `$x$` typed into a box became a formula inside the error sentence that quotes it."""
    at = fresh(file)
    next(w for w in getattr(at, kind) if w.key == key).input(value).run()
    at = shown(at)
    assert not at.exception
    assert at.error, "the page said nothing about the value it could not use"
    sentence = at.error[0].value
    assert r"\$x\$" in sentence, sentence
    assert not leaks(at, value)
