"""LaTeX checked by the KaTeX that Streamlit ships (its own bundle, run with node): the formulas a page draws
parse, or come back with KaTeX's error (the red text a student would see)."""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import streamlit

BUNDLE = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("katex.*.js"))
NODE = shutil.which("node")
MISSING = ("node is not installed (Debian: nodejs)" if NODE is None else
           "Streamlit's KaTeX bundle was not found" if not BUNDLE else None)

_SCRIPT = """
import katex from "./katex.mjs";
import { readFileSync } from "node:fs";
const formulas = JSON.parse(readFileSync(0, "utf8"));
const errors = formulas.map((formula) => {
  try { katex.renderToString(formula, {displayMode: true, throwOnError: true, strict: "ignore"}); return null; }
  catch (error) { return String(error.message); }
});
process.stdout.write(JSON.stringify(errors));
"""


def katex_errors(formulas: list[str]) -> dict[str, str]:
    """{formula: KaTeX's error} for each formula that does not parse (an empty dict when all do)."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(BUNDLE[-1], Path(folder) / "katex.mjs")
        (Path(folder) / "check.mjs").write_text(_SCRIPT)
        done = subprocess.run([NODE, "check.mjs"], cwd=folder, input=json.dumps(formulas), capture_output=True,
                              text=True, timeout=300, check=True)
    return {formula: error for formula, error in zip(formulas, json.loads(done.stdout)) if error}
