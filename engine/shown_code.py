"""'Show the code': a program and what it prints, both made in the engine.

A page shows a short program that redoes its numbers and, under it, what the program prints. A web student
cannot run it, so the printout is shown; it is neither typed by hand nor made by running the program's text (the
app runs no string as code: tests/test_code_safety.py). Each part's code module builds the program and, beside it,
computes its printout with the same engine calls and the same numpy lines, in the same order, and formats it as
Python's print does. tests/pages/test_code_output.py runs every program a page shows and compares what it prints
with the printout shown, character for character.

A printout is computed only when asked for (`Program.printout` is a function): a closed "Show the code" box costs
nothing, and the page caches each printout by the program's text (the printout is a function of it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

# numpy's own print options: a printout must not depend on options some other module set in this process
NUMPY_PRINT = {"edgeitems": 3, "threshold": 1000, "floatmode": "maxprec", "precision": 8, "suppress": False,
               "linewidth": 75, "nanstr": "nan", "infstr": "inf", "sign": "-", "formatter": None, "legacy": False}


@dataclass(frozen=True)
class Program:
    """A program as a page shows it. `printout()` is what running it prints; None where that cannot be known without
    running it (a training run), and then `why` says so."""
    source: str
    printout: Callable[[], str] | None = None
    why: str = ""
    key: str = ""   # what the printout reads that the source does not show (an uploaded file's digest)


class Printout:
    """print() into a string, as Python's print writes its arguments (str of each, joined by a space, a line
    break after), with numpy's default print options."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def print(self, *values, sep: str = " ", end: str = "\n") -> None:
        with np.printoptions(**NUMPY_PRINT):
            self._parts.append(sep.join(str(value) for value in values) + end)

    @property
    def text(self) -> str:
        return "".join(self._parts)
