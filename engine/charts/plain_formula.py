"""A formula as the pages write it (LaTeX, for KaTeX in the browser) turned into one or more lines of plain
Unicode text, for a handout that a PDF writer without a TeX engine prints: alpha_ij becomes "α_ij",
\\frac{a}{b} "a/b", a bmatrix "[0.298 0.203 0.206 0.293]", each line of an aligned block a line of its own.

Only the LaTeX the pages use is known (tests/engine/charts/test_handout.py reads every formula a page records); an
unknown command prints as its name, never as a backslash.
"""
from __future__ import annotations

import re

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "theta": "θ",
    "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω",
    "Delta": "Δ", "Sigma": "Σ", "Omega": "Ω",
    "cdot": "·", "times": "×", "cdots": "⋯", "dots": "…", "ldots": "…", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "partial": "∂", "infty": "∞", "in": "∈", "setminus": "∖", "pm": "±", "sim": "∼", "odot": "⊙", "mid": "|",
    "top": "ᵀ", "sum": "Σ", "prod": "Π", "lfloor": "⌊", "rfloor": "⌋", "lVert": "‖", "rVert": "‖",
    "propto": "∝", "quad": "  ", "qquad": "    ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ",
    "{": "{", "}": "}", "_": "_", "%": "%", "&": "&", "#": "#", "$": "$", "textbackslash": "\\",
}
FUNCTIONS = {"exp", "log", "ln", "cos", "sin", "max", "min", "arg", "softmax"}   # printed as their names
DROPPED = {"left", "right", "big", "Big", "bigg", "Bigg", "textstyle", "displaystyle", "limits", "nolimits"}
ACCENTS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "vec": "\u20d7"}
TEXT = {"text", "mathrm", "operatorname", "mathbf", "mathit", "textbf", "textit", "mathsf", "mathtt", "texttt",
        "boldsymbol"}
SUPERSCRIPTS = str.maketrans("0123456789-+()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾")
MATRICES = {"bmatrix": "[]", "pmatrix": "()", "matrix": "", "vmatrix": "||", "Bmatrix": "{}"}
_SIMPLE = re.compile(r"[\w.·√\u0300-\u036f]+")


class _Reader:
    def __init__(self, latex: str) -> None:
        self.text = latex
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def command(self) -> str:
        """The name after a backslash (letters, or one other character)."""
        start = self.at
        while self.at < len(self.text) and self.text[self.at].isalpha():
            self.at += 1
        if self.at == start and self.at < len(self.text):
            self.at += 1
        return self.text[start:self.at]

    def skip_spaces(self) -> None:
        while self.peek() == " ":
            self.at += 1

    def argument(self, env: str = "") -> str:
        """One argument: a {group}, a command, or one character."""
        self.skip_spaces()
        char = self.peek()
        if char == "{":
            self.at += 1
            return self.until("}", env)
        if char == "\\":
            self.at += 1
            return self.one_command(self.command(), env)
        self.at += 1
        return char

    def raw_group(self) -> str:
        """A {group} as written (for \\begin{name}, \\text{...})."""
        self.skip_spaces()
        if self.peek() != "{":
            return ""
        depth, start = 0, self.at
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "\\":
                self.at += 2
                continue
            depth += (char == "{") - (char == "}")
            self.at += 1
            if depth == 0:
                return self.text[start + 1:self.at - 1]
        return self.text[start + 1:]

    def until(self, stop: str, env: str = "") -> str:
        """Everything up to `stop` ("}" closes a group, "end" a \\begin), converted."""
        out: list[str] = []
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "}" and stop == "}":
                self.at += 1
                break
            self.at += 1
            if char == "\\":
                name = self.command()
                if name == "end":
                    self.raw_group()
                    if stop == "end":
                        break
                    continue
                if name == "\\":
                    out.append(_ROW_BREAK if env else "\n")
                    continue
                out.append(self.one_command(name, env))
            elif char == "{":
                out.append(self.until("}", env))
            elif char == "&":
                out.append(_CELL if env in MATRICES else "")
            elif char == "_":
                sub = self.argument(env)
                out.append("_" + (sub if _SIMPLE.fullmatch(sub) else f"({sub})"))
            elif char == "^":
                sup = self.argument(env)
                if sup in ("T", "ᵀ", "⊤"):
                    out.append("ᵀ")
                elif re.fullmatch(r"[-+0-9]+", sup):
                    out.append(sup.translate(SUPERSCRIPTS))
                else:
                    out.append("^" + (sup if _SIMPLE.fullmatch(sup) else f"({sup})"))
            elif char == "~":
                out.append(" ")
            else:
                out.append(char)
        return "".join(out)

    def limits(self, env: str) -> str:
        """A sum's limits, _{k=1}^{T}, as "_(k=1..T)" (its ^T is the upper limit, not a transpose)."""
        below = above = ""
        for mark in ("_", "^"):
            self.skip_spaces()
            if self.peek() == mark:
                self.at += 1
                if mark == "_":
                    below = self.argument(env)
                else:
                    above = self.argument(env)
        if not below and not above:
            return ""
        span = f"{below}..{above}" if above else below
        return "_" + (span if _SIMPLE.fullmatch(span) else f"({span})") + " "

    def one_command(self, name: str, env: str) -> str:
        if name in ("frac", "tfrac", "dfrac"):
            top, bottom = self.argument(env), self.argument(env)
            return f"{_wrapped(top)}/{_wrapped(bottom)}"
        if name == "sqrt":
            return "√" + _wrapped(self.argument(env))
        if name in TEXT:
            return _text(self.raw_group())
        if name in ACCENTS:
            body = self.argument(env)
            return body[:1] + ACCENTS[name] + body[1:] if body else ""
        if name == "underbrace":
            body = self.argument(env)
            self.skip_spaces()
            if self.peek() == "_":
                self.at += 1
                self.argument(env)
            return body
        if name == "overset":
            self.argument(env)
            return self.argument(env)
        if name == "begin":
            kind = self.raw_group()
            if kind == "array":
                self.raw_group()
            body = self.until("end", kind)
            if kind in MATRICES:
                rows = [" ".join(cell.split()) for cell in body.split(_ROW_BREAK)]
                brackets = MATRICES[kind] or "  "
                return brackets[0].strip() + "; ".join(row.replace(_CELL, " ").strip() for row in rows if row.strip()) \
                    + brackets[1].strip()
            return body.replace(_ROW_BREAK, "\n").replace(_CELL, " ")
        if name in ("sum", "prod"):
            return SYMBOLS[name] + self.limits(env)
        if name in DROPPED:
            return ""
        if name in SYMBOLS:
            return SYMBOLS[name]
        if name in FUNCTIONS:
            return name + " "
        return name


_ROW_BREAK = "\x00row\x00"
_CELL = "\x00cell\x00"


def _text(raw: str) -> str:
    """The inside of \\text{...}: the escapes ui.formula.latex_text writes, undone."""
    return re.sub(r"\\(textbackslash ?|[{}_$&#%~^]|\^\{\})", lambda m: "\\" if m.group(1).startswith("textb")
                  else m.group(1)[0], raw).replace("^{}", "^")


def _wrapped(part: str) -> str:
    """A fraction's or root's part: in parentheses unless it is one simple term."""
    part = part.strip()
    return part if _SIMPLE.fullmatch(part) else f"({part})"


def plain(latex: str) -> list[str]:
    """The formula as lines of plain text (an aligned block gives one line per row)."""
    text = _Reader(latex).until("")
    text = re.sub(r"\b(" + "|".join(FUNCTIONS) + r") (?=\()", r"\1", text)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return [line for line in lines if line]
