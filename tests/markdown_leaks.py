"""Hostile text, and where a page would render it as more than text: a picture or link that a browser fetches or
follows, HTML, or a formula (issue 43). A page echoes what a student types or a link carries (a reading naming a
token, an error sentence quoting a value, a caption); every such echo goes through engine.markup.

`leaks(at, typed)` reads every element a page drew (AppTest's tree), parses each string Streamlit renders as
Markdown (text, alerts, captions, labels, help, radio options, expander and tab labels) with markdown-it and its
dollar-math rule (close to Streamlit's remark-gfm and remark-math), and lists what it finds made of the hostile text:
an image or link to the test's host, raw HTML, a formula holding typed text. st.html bodies must not hold a tag of
the typed text; st.latex formulas holding typed text are KaTeX-checked by the test that calls `formulas_with`.
"""
from __future__ import annotations

import re

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

HOST = "b.invalid"   # a name that never resolves (RFC 2606): a browser that tried to fetch it is caught by the test
HOSTILE = {
    "image": f"![a](http://{HOST}/c)",
    "html": f"<img src=//{HOST}/d>",
    "formula": r"$\frac{a}{$",
    "dollars": "$x$",
}
TOGETHER = " ".join(HOSTILE.values())    # one text with all of them, for a box that takes its length

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(dollarmath_plugin, allow_space=True,
                                                                            allow_digits=True, double_inline=True)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)   # verbatim: nothing in it is linked
_AUTOLINK = re.compile(r"(?:https?://|www\.)" + re.escape(HOST), re.IGNORECASE)   # GitHub's automatic links
# fields of an element that Streamlit does not render as Markdown (values, ids, code, specs, data)
_PLAIN_FIELDS = {"value", "default", "raw_value", "id", "form_id", "placeholder", "code_text", "spec", "data",
                 "datasets", "language", "icon", "formatted_value", "css_class", "key", "url", "url_path",
                 "page_script_hash", "element_type", "set_value", "string_value", "double_value", "int_value",
                 "string_trigger_value", "json_value", "arrow_value", "autocomplete", "type", "theme",
                 "selection_mode", "vega_lite_theme", "name", "page_name", "page", "src", "delta_path",
                 "accept_new_options", "alt", "mimetype", "file_id", "pdf_data", "raw_query_string", "body_html"}
# elements whose body is not Markdown: checked in their own way, or not at all (a chart's text is drawn as text)
_OWN_BODIES = {"code", "latex", "html", "vega_lite_chart", "arrow_vega_lite_chart", "arrow_data_frame",
               "dataframe", "table", "json", "text", "event", "arrow_table", "graphviz_chart", "image", "imgs",
               "download_button", "deck_gl_json_chart", "plotly_chart", "bokeh_chart", "empty"}
# selectbox and multiselect draw their options as plain text; radio and pills render theirs as Markdown
_PLAIN_OPTIONS = {"selectbox", "multiselect", "select_slider"}


def _strings(message, plain_options: bool):
    """Every (field, string) of a protobuf message, nested ones included, except fields that are not Markdown."""
    for field, value in message.ListFields():
        name = field.name
        if name in _PLAIN_FIELDS or (plain_options and name == "options"):
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, str):
                yield name, item
            elif hasattr(item, "ListFields"):
                yield from _strings(item, plain_options)


def _tokens(tokens):
    for token in tokens:
        yield token
        if token.children:
            yield from _tokens(token.children)


def rendered_leaks(markdown_text: str, typed: str) -> list[str]:
    """What of `typed` this Markdown renders as more than text: an image, a link, raw HTML or a formula."""
    found = []
    for token in _tokens(_PARSER.parse(markdown_text)):
        if token.type == "image" and HOST in str(token.attrs.get("src", "")):
            found.append(f"an image from {token.attrs['src']}")
        elif token.type == "link_open" and HOST in str(token.attrs.get("href", "")):
            found.append(f"a link to {token.attrs['href']}")
        elif token.type in ("html_inline", "html_block") and "<img" in token.content:
            found.append(f"HTML {token.content.strip()[:60]!r}")
        elif token.type.startswith("math") and _holds_typed(token.content, typed):
            found.append(f"a formula ${token.content[:60]}$")
        elif token.type == "inline" and HOST in typed and _AUTOLINK.search(
                _CODE_SPAN.sub("", token.content).replace("\\", "")):
            found.append("a web address linked by itself")   # the paragraph as typed; remark-gfm links it after
            # reading escapes (an escaped `http\://` is linked), so `\\` does not count, only what breaks the text
    return found


def _holds_typed(formula: str, typed: str) -> bool:
    """True when a formula's text is made of what was typed (the page's own formulas hold none of it)."""
    pieces = [piece for piece in re.split(r"[$\s]+", typed) if piece]
    return any(piece in formula for piece in pieces if len(piece) > 1 or piece == formula.strip())


def _elements(node):
    children = getattr(node, "children", None)
    if children:
        yield node
        for child in (children.values() if isinstance(children, dict) else children):
            yield from _elements(child)
    else:
        yield node


def leaks(at, typed: str) -> list[str]:
    """Everything on the page (an AppTest after a run) that renders part of `typed` as more than text."""
    found = []
    for element in _elements(at._tree):
        kind = getattr(element, "type", "")
        proto = getattr(element, "proto", None)
        if proto is None or not hasattr(proto, "ListFields"):
            continue
        if kind == "html":
            body = getattr(proto, "body", "")
            if "<img" in body and HOST in body:
                found.append(f"html: a tag from the typed text in {body[:80]!r}")
            continue
        if kind in _OWN_BODIES:
            fields = [(name, text) for name, text in _strings(proto, True) if name in ("label", "help", "caption")]
        else:
            fields = list(_strings(proto, kind in _PLAIN_OPTIONS))
        for name, text in fields:
            for leak in rendered_leaks(text, typed):
                found.append(f"{kind}.{name}: {leak} in {text[:100]!r}")
    return found


def formulas_with(at, typed: str) -> list[str]:
    """The st.latex formulas on the page that hold a piece of `typed` (each must still parse: tests/katex.py)."""
    pieces = [piece for piece in re.split(r"[$\s]+", typed) if len(piece) > 2]
    return [element.value for element in at.get("latex")
            if any(piece in element.value or piece.replace("\\", r"\textbackslash ") in element.value
                   for piece in pieces)]
