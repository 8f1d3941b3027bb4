"""Every "Show the code" box shows what its program prints, and that is what running the program prints.

The code panels printed nothing and sent students to "notebooks/....py in the repository", which a web student does
not have. Now each program has its printout under it (engine.shown_code.Program), worked out in the engine with the
program's own calls, never by running the shown text (tests/test_code_safety.py). Here each program a page shows is
run as it stands, and its printout compared with the one on the page, character for character; and the box offers
the part's notebook as a Jupyter file.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import ROOT, no_exception, unfold

PRINTS = "What it prints:"
CASES = [   # (page, link values): the first view, and a second where the program takes another branch
    ("attention_calculator", {}),
    ("attention_calculator", {"proj": "1", "causal": "1", "query": "2", "sharp": "2"}),
    ("context_window", {}),
    ("context_window", {"k": "2", "scaled": "0", "query": "3"}),
    ("multi_head", {}),
    ("multi_head", {"weights": "random", "h": "4", "causal": "1", "seed": "3"}),
    ("position", {}),
    ("position", {"enc": "learned", "proj": "1", "seed": "3", "strength": "0.5", "causal": "1"}),
    ("position", {"enc": "sinusoidal"}),
    ("beyond_words", {}),
    ("beyond_words", {"kind": "audio"}),
    ("beyond_words", {"kind": "protein"}),
    ("embeddings", {}),
    ("embeddings", {"method": "3cosmul", "vocab": "10000"}),
    ("tokens", {}),
    ("tokens", {"level": "characters", "n": "4", "smoothing": "add-k"}),
    ("ngram", {}),
    ("ngram", {"source": "Macbeth", "level": "characters", "n": "5", "temperature": "0.5", "prompt": "Macbeth:"}),
    ("generate", {"gen_length": "40"}),
]
SMOLLM2 = [("head_viewer", {}), ("head_viewer", {"layer": "18", "head": "6"}), ("inside_the_model", {})]


def in_order(node):
    """The page's elements in the order it drew them."""
    children = getattr(node, "children", None)
    if children:
        for key in sorted(children):
            yield from in_order(children[key])
    else:
        yield node


def programs_and_printouts(at: AppTest) -> list[tuple[str, str]]:
    """(program, printout shown under it) for every program the page's open code boxes show with a printout."""
    elements = list(in_order(at._tree))
    pairs = []
    for i, element in enumerate(elements):
        if getattr(element, "type", None) == "caption" and element.value == PRINTS:
            before, after = elements[i - 1], elements[i + 1]
            assert before.type == "code" and after.type == "code", (before, after)
            pairs.append((before.value, after.value))
    return pairs


def run_program(source: str) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(source, "<the program shown>", "exec"), {"__name__": "__shown__"})
    return printed.getvalue()


def opened(page: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "views" / f"{page}.py"), default_timeout=600)
    for key, value in query.items():
        at.query_params[key] = value
    at = unfold(at.run())
    no_exception(at)
    return at


def check(at: AppTest, at_least: int = 1) -> list[tuple[str, str]]:
    pairs = programs_and_printouts(at)
    assert len(pairs) >= at_least, "no program with its printout"
    for source, shown in pairs:
        assert run_program(source).removesuffix("\n") == shown, source   # st.code keeps all but the last break
    return pairs


@pytest.mark.parametrize(("page", "query"), CASES, ids=[f"{page}-{i}" for i, (page, _) in enumerate(CASES)])
def test_each_program_prints_what_the_page_shows_under_it(page, query):
    check(opened(page, query))


@pytest.mark.usefixtures("smollm2_installed")
@pytest.mark.parametrize(("page", "query"), SMOLLM2, ids=[f"{page}-{i}" for i, (page, _) in enumerate(SMOLLM2)])
def test_smollm2_programs_print_what_the_page_shows(page, query):
    check(opened(page, query), at_least=4 if page == "inside_the_model" else 1)


@pytest.mark.usefixtures("smollm2_installed")
def test_the_knock_out_program_prints_the_exact_ranking_once_the_page_ran_it():
    at = opened("inside_the_model", {})
    at.button(key="inside.exact_button").click().run()
    at = unfold(at.run())
    no_exception(at)
    effects = [(source, shown) for source, shown in check(at, at_least=4) if "head_effects" in source]
    assert len(effects) == 1 and len(effects[0][1].splitlines()) == 3     # P, the estimate, the exact ranking


def test_the_chapters_worked_example_prints_its_weights():
    """The chapter prints [0.298 0.203 0.206 0.293] for crane: the calculator's printout says so."""
    pairs = check(opened("attention_calculator", {}))
    assert pairs[0][1].splitlines()[0] == "[0.298 0.203 0.206 0.293]"


def test_a_training_program_says_why_it_is_not_run_and_what_it_prints():
    at = opened("block_builder", {})
    assert not programs_and_printouts(at)
    why = next(caption.value for caption in at.caption if caption.value.startswith("It trains a model for up to"))
    from engine.transformer.config import count_parameters

    source = next(block.value for block in at.code if "count_parameters(config).total" in block.value)
    namespace: dict = {}
    config_line = next(line for line in source.splitlines() if line.startswith("config = "))
    exec(compile("from engine.transformer.config import TransformerConfig\n" + config_line, "<config>", "exec"),
         namespace)
    assert f"prints {count_parameters(namespace['config']).total} (count_parameters" in why


@pytest.mark.parametrize(("page", "notebook"), [("attention_calculator", "attention"), ("ngram", "language_modelling"),
                                                ("position", "transformer")])
def test_the_box_offers_the_parts_notebook_as_a_jupyter_file(page, notebook):
    """No more "notebooks/....py in the repository": the notebook itself, as an .ipynb to download."""
    from ui.code import notebook_file

    at = opened(page, {})
    buttons = [element for element in in_order(at._tree) if getattr(element, "type", None) == "download_button"
               and "notebook" in element.proto.label]
    assert [button.proto.label for button in buttons] == [f"Download the notebook {notebook}.ipynb"]
    assert "in the repository" not in "\n".join(caption.value for caption in at.caption)
    made = json.loads(notebook_file(f"notebooks/{notebook}.py"))
    assert made["nbformat"] == 4 and {cell["cell_type"] for cell in made["cells"]} == {"markdown", "code"}
    source = (ROOT / "notebooks" / f"{notebook}.py").read_text()
    first_code = next(cell for cell in made["cells"] if cell["cell_type"] == "code")
    assert "".join(first_code["source"]).splitlines()[0] in source
