"""The app's code runs no strings as code, loads no pickles and fetches nothing at run time.

Static: every Python file the app runs (app.py, gradio_app.py, gradio_tabs/, engine/, ui/, views/) is
parsed and searched for eval/exec/compile, pickle-family imports and loads (pickle, dill,
shelve, marshal, joblib, pandas.read_pickle, numpy.load(allow_pickle=True), torch.load
without weights_only=True), and calls that download (urlopen, requests, hf_hub_download,
nltk.download, tiktoken.get_encoding, ...). The runtime half, pages run with every
non-loopback connection refused, lives in tests/pages/test_bad_input_sweep.py.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_FILES = sorted({ROOT / "app.py", *ROOT.glob("gradio_app.py"), *(ROOT / "gradio_tabs").rglob("*.py"),
                    *(ROOT / "engine").rglob("*.py"), *(ROOT / "ui").rglob("*.py"), *(ROOT / "views").rglob("*.py")})

CODE_FROM_STRINGS = {"eval", "exec", "compile", "__import__"}
PICKLE_MODULES = {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "shelve", "marshal", "joblib"}
NETWORK_MODULES = {"requests", "httpx", "aiohttp", "urllib.request", "urllib3", "http.client", "ftplib",
                   "smtplib", "socket", "huggingface_hub", "gensim.downloader", "websocket", "websockets"}
DOWNLOAD_CALLS = {"urlopen", "urlretrieve", "hf_hub_download", "snapshot_download", "get_encoding",
                  "read_pickle", "download", "from_pretrained", "load_dataset"}
ALLOWED_NETWORK_IMPORTS = {"gradio_app.py": set()}  # gradio serves; it still may not fetch


def problems_in(source: str, name: str = "<string>") -> list[str]:
    """Every forbidden construct in one module's source, as 'line: what'."""
    found = []
    tree = ast.parse(source, filename=name)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom):
                modules += [f"{node.module}.{a.name}" for a in node.names]
            for module in modules:
                top = module.split(".")[0]
                if top in PICKLE_MODULES:
                    found.append(f"{node.lineno}: imports {module} (pickle family)")
                if module in NETWORK_MODULES or top in NETWORK_MODULES:
                    found.append(f"{node.lineno}: imports {module} (network)")
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            keywords = {k.arg: k.value for k in node.keywords}
            if isinstance(func, ast.Name) and called in CODE_FROM_STRINGS:
                found.append(f"{node.lineno}: calls {called}()")
            if called in DOWNLOAD_CALLS:
                found.append(f"{node.lineno}: calls {owner + '.' if owner else ''}{called}() (downloads or unpickles)")
            if called == "load" and owner in ("np", "numpy") and _is_true(keywords.get("allow_pickle")):
                found.append(f"{node.lineno}: numpy.load(allow_pickle=True)")
            if called == "load" and owner == "torch" and not _is_true(keywords.get("weights_only")):
                found.append(f"{node.lineno}: torch.load without weights_only=True")
            if called == "loads" and owner in PICKLE_MODULES:
                found.append(f"{node.lineno}: {owner}.loads()")
    return found


def _is_true(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def test_the_scanner_finds_what_it_looks_for():
    bad = ("import pickle\nfrom urllib.request import urlopen\nimport numpy as np, torch\n"
           "eval('1+1')\nexec('x=1')\nnp.load('a.npy', allow_pickle=True)\ntorch.load('m.pt')\n"
           "nltk.download('punkt')\ntiktoken.get_encoding('gpt2')\n")
    found = problems_in(bad)
    for what in ("pickle family", "network", "calls eval()", "calls exec()", "allow_pickle=True",
                 "torch.load without", "download()", "get_encoding()"):
        assert any(what in line for line in found), (what, found)
    good = "import numpy as np, torch\nnp.load('a.npy')\ntorch.load('m.pt', weights_only=True)\nmodel.eval()\n"
    assert problems_in(good) == []


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_eval_no_pickle_no_download(path):
    found = problems_in(path.read_text(), str(path))
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)
