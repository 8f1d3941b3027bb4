"""Text a student or a link supplied, shown back inside Markdown or LaTeX exactly as it was typed.

Both front ends render sentences as Markdown (Streamlit's st.markdown, st.error, captions, labels and table cells;
Gradio's gr.Markdown), and Streamlit's Markdown also typesets `$...$` with KaTeX, turns `:red[...]` and
`:smile:` into colours and emoji, and links `http://...` and `www....` by itself. A typed `![a](http://host/t.png)`
echoed into such a sentence made the student's browser fetch the picture, and `$x$` in a box became a formula
inside the error sentence. Every text that did not come from the app itself goes through `markdown` before it
joins a sentence (a word, a token, a file name, a link value, an engine's error sentence as a whole), and
through `latex_text` before it joins a formula. Nothing it holds can then format, link, fetch or typeset:
it reads as typed.

- `markdown(text)`: every character that could start a Markdown construct is escaped with a backslash (CommonMark
  lets any ASCII punctuation be escaped, and the escaped character reads as itself), and a marker at the start of a
  line (a heading, a quote, a list); an invisible word joiner goes inside the `://` of a web address, the `www.` and
  after the `@` of an e-mail address (GitHub's automatic links are found after escapes are read, so no escape stops
  them) and after a colon before a word and a colon or bracket (Streamlit's `:smile:`, `:material/home:` and
  `:red[...]`), which nothing then reads as a link or a shortcode.
- `unmarked(text)`: the text as typed again (for paper: the handout prints the characters, not the escapes).
- `quoted(text, max_chars)`: 'text' for a sentence, escaped, cut at `max_chars` with an ellipsis.
- `said(token)`: a token as Python writes it (' Paris', '\\n'), escaped: a token whose spaces and line breaks matter.
- `code(text)`: the text as an inline code span (`...`) whatever backticks it holds.
- `latex_text(text)`: the text made safe inside LaTeX's \\text{...} (`$ _ % & # \\ { } ^ ~`).
- `html_text(text)`: the text made safe inside HTML (Gradio's error box reads its message as HTML).

The engine's own sentences that hold such text escape it where they put it in (`engine.attention.readings`, ...);
an engine error sentence is plain text, escaped whole where a front end shows it (`ui.page.run_engine`,
`gradio_tabs.common.engine_call`).
"""
from __future__ import annotations

import html
import re

WORD_JOINER = "\u2060"
# everything inline that formats, links or typesets (a link or picture needs a bracket, a formula a dollar, HTML an
# angle bracket): \ ` * _ [ ] < > $ ~ |
_INLINE = re.compile(r"([\\`*_\[\]<>$~|])")
# GitHub's automatic links are found in the text after escapes are read (remark-gfm finds them in text nodes): an
# escape cannot stop one, an invisible word joiner inside "://", "www." or after "@" does
_WEB = re.compile(r"(?<=[A-Za-z0-9]:)(?=//)|(?<=(?<![\w.])www)(?=\.)|(?<=@)", re.IGNORECASE)
_SHORTCODE = re.compile(r":(?=[\w+/-]+[:\[])")      # :smile: :material/home: :red[...]
# "# x", "- x", "+ x", "1. x", "1) x" at a line's start, and a line of = or - under another: the mark escaped
_LINE_START = re.compile(r"^([ \t]*\d*)([#+-]|(?<=\d)[.)])(?=[ \t]|$)|^([ \t]*)([=-])(?=[=-]*[ \t]*$)",
                         re.MULTILINE)
_ESCAPE = re.compile(r"\\([\\`*_\[\]<>$~|#+=.)-])")


def markdown(text: object) -> str:
    """`text` (anything: it is read as str) as it reads, inside any Markdown a front end renders."""
    text = _INLINE.sub(r"\\\1", str(text))
    text = _WEB.sub(WORD_JOINER, text)
    text = _SHORTCODE.sub(":" + WORD_JOINER, text)
    return _LINE_START.sub(lambda m: f"{m[1] or m[3] or ''}\\{m[2] or m[4]}", text)


def unmarked(text: str) -> str:
    """What `markdown` escaped, as typed again."""
    return _ESCAPE.sub(r"\1", text).replace(WORD_JOINER, "")


def quoted(text: object, max_chars: int | None = None) -> str:
    """'text' for a sentence: cut at `max_chars` characters (with an ellipsis), then escaped."""
    text = str(text)
    if max_chars is not None and len(text) > max_chars:
        text = text[:max_chars] + "…"
    return "'" + markdown(text) + "'"


def code(text: object) -> str:
    """`text` as an inline code span, verbatim: its fence is one backtick longer than any run of backticks inside
    it (a typed backtick cannot close it early and let the rest be read as Markdown); line breaks become spaces."""
    text = " ".join(str(text).splitlines())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def said(token: object) -> str:
    """A token quoted as Python writes it (' Paris', '\\n': its spaces and line breaks in view), escaped."""
    return markdown(repr(str(token)))


_LATEX = (("\\", r"\textbackslash "), ("{", r"\{"), ("}", r"\}"), ("_", r"\_"), ("^", r"\^{}"), ("$", r"\$"),
          ("&", r"\&"), ("#", r"\#"), ("%", r"\%"), ("~", r"\~{}"))


def latex_text(text: object) -> str:
    """`text` made safe inside LaTeX's \\text{...}: each of LaTeX's special characters as itself."""
    text = str(text)
    for char, escaped in _LATEX:
        text = text.replace(char, escaped)
    return text


def html_text(text: object) -> str:
    """`text` made safe as the text of an HTML element: no tag and no entity of its own (& < > escaped; quotes, which
    only matter inside an attribute, read as they are)."""
    return html.escape(str(text), quote=False)
