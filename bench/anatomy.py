"""A page's anatomy, counted from what Streamlit sends: how many elements of each kind a change leaves
alone, redraws unchanged, and redraws changed; bench.browser reads it off the websocket while it measures
a page, and bench/floor_page.py builds a page with nothing of ours that has the same anatomy.

A kind is the element's type in Streamlit's protocol (`markdown`, `vega_lite_chart`, `slider`; a block's
type for a container: `flex_container`, `column`, `expandable`), `latex` for a formula (a Markdown element
of type LATEX), prefixed `sidebar.` in the sidebar. A change's anatomy compares the deltas of the page's last
whole run before the change with those of the runs the change started: an element whose path the change
sends again is redrawn (changed when its content hash differs), every other one stays. A change that reruns
the whole page redraws every element (`whole`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

LATEX = 4                 # streamlit.proto.Markdown_pb2.Markdown.Type.LATEX
SIDEBAR_ROOT = 1          # a delta path's first index: 0 the main area, 1 the sidebar
SIDEBAR = "sidebar."
BLOCKS = {"vertical", "horizontal", "column", "expandable", "form", "tab_container", "tab", "chat_message",
          "popover", "dialog", "flex_container", "transparent", "grid_container"}   # Block_pb2's kinds


@dataclass
class Anatomy:
    """Counts by kind: what a change leaves, redraws as it was, and redraws changed."""
    keep: Counter = field(default_factory=Counter)
    same: Counter = field(default_factory=Counter)
    changed: Counter = field(default_factory=Counter)
    whole: bool = False   # the change reran the whole page, not sections
    sent_bytes: int = 0   # the change's deltas as sent (a cached element sent again is a short reference)
    widget: str = "checkbox"   # the changed widget's kind (set by bench.browser; the floor's switch stands for it)

    def query(self) -> str:
        """bench/floor_page.py's link for this anatomy."""
        parts = [f"{name}={counts_text(counts)}" for name, counts in
                 (("keep", self.keep), ("same", self.same), ("changed", self.changed)) if counts]
        return "?" + "&".join(parts + [f"whole={int(self.whole)}", f"widget={self.widget}"])

    def describe(self) -> str:
        """One line: the totals, and the redrawn elements by kind (the most first)."""
        redrawn = self.same + self.changed
        kinds = ", ".join(f"{n} {kind}" for kind, n in redrawn.most_common())
        run = "whole page" if self.whole else "sections"
        return (f"{sum(self.keep.values())} kept, {sum(redrawn.values())} redrawn ({run}; "
                f"{sum(self.changed.values())} changed; {self.sent_bytes / 1000:.0f} kB): {kinds}")


def counts_text(counts: Counter) -> str:
    """`kind:n,kind:n` in a stable order (a link's value)."""
    return ",".join(f"{kind}:{n}" for kind, n in sorted(counts.items()) if n > 0)


def parse_counts(text: str) -> Counter:
    """The inverse of counts_text; a malformed pair is skipped (a hand-typed link)."""
    counts = Counter()
    for pair in text.split(","):
        kind, _, n = pair.partition(":")
        if kind and n.isdigit():
            counts[kind] += int(n)
    return counts


def kind_of(message) -> str | None:
    """The kind of a delta ForwardMsg (None for anything else, or a delta that draws nothing)."""
    delta = message.delta
    which = delta.WhichOneof("type")
    if which == "new_element":
        kind = delta.new_element.WhichOneof("type")
        if kind == "markdown" and delta.new_element.markdown.element_type == LATEX:
            kind = "latex"
    elif which == "add_block":
        kind = delta.add_block.WhichOneof("type") or "vertical"
    else:
        return None
    return (SIDEBAR if list(message.metadata.delta_path)[:1] == [SIDEBAR_ROOT] else "") + kind


def runs(messages: list, by_hash: dict[str, str] | None = None) -> list[tuple[bool, dict]]:
    """The script runs in a stream of ForwardMsgs, in order: (whether it was a whole run, path -> (kind,
    content hash) of every element it drew). A cached element sent again as a reference (`ref_hash`) takes
    the kind of the message it refers to (`by_hash`, content hash -> kind, carries what earlier messages
    taught). Deltas before any `new_session` are one whole run."""
    by_hash = {} if by_hash is None else by_hash
    found: list[tuple[bool, dict]] = []
    for message in messages:
        which = message.WhichOneof("type")
        if which == "new_session":
            found.append((not message.metadata.run.fragment_ids, {}))
        elif which in ("delta", "ref_hash"):
            if not found:             # a stream caught mid-run, or AppTest's (deltas only): one whole run
                found.append((True, {}))
            if which == "delta":
                kind = kind_of(message)
                if kind is None:
                    continue
                by_hash[message.hash] = kind
                content = message.hash
            else:
                content = message.ref_hash
                kind = by_hash.get(content, "unknown")
            found[-1][1][tuple(message.metadata.delta_path)] = (kind, content)
    return found


def of_change(before: list, after: list) -> Anatomy:
    """The anatomy of one change: `before`, the messages up to the change (the page's last whole run there
    is the page as it stood); `after`, the messages the change brought."""
    by_hash: dict[str, str] = {}
    page: dict | None = None
    for whole, drawn in runs(before, by_hash):   # the last whole run, then the sections that reran since
        if drawn:
            page = dict(drawn) if whole or page is None else redraw(page, drawn)
    if page is None:
        raise ValueError("no run of the page before the change")
    change_runs = [(whole, drawn) for whole, drawn in runs(after, by_hash) if drawn]
    redrawn: dict = {}
    for _, drawn in change_runs:
        redrawn.update(drawn)
    anatomy = Anatomy(whole=any(whole for whole, _ in change_runs),
                      sent_bytes=sum(m.ByteSize() for m in after if m.WhichOneof("type") in ("delta", "ref_hash")))
    for path, (kind, content) in redrawn.items():
        (anatomy.same if page.get(path) == (kind, content) else anatomy.changed)[kind] += 1
    if not anatomy.whole:
        for path, (kind, _) in redraw(page, redrawn).items():
            if path not in redrawn:
                anatomy.keep[kind] += 1
    return anatomy


def redraw(page: dict, drawn: dict) -> dict:
    """The page (path -> (kind, content)) after a section run drew `drawn`: a block drawn again drops what
    it held and was not drawn again."""
    cleared = [path for path, (kind, _) in drawn.items() if kind.removeprefix(SIDEBAR) in BLOCKS]
    kept = {path: element for path, element in page.items() if not any(path[:len(c)] == c for c in cleared)}
    return kept | drawn
