"""Bring your own model in the head viewer: PLAYGROUND_MODELS names a folder of GGUF files, the page offers them."""
from __future__ import annotations

import pytest

from engine.pretrained.llama import DEFAULT_NAME
from tests.gguf_models import Shape, write_llama
from tests.pages.conftest import chart_rows, no_exception, unfold

PAGE = "views/head_viewer.py"


@pytest.fixture
def models(tmp_path, monkeypatch):
    """A folder with a small random model (2 layers x 4 heads) and a file that is not a Llama model."""
    write_llama(tmp_path / "tiny-llama.gguf", Shape(), tied=False, kind="Q8_0")
    write_llama(tmp_path / "not-llama.gguf", Shape(n_layer=1), architecture="gpt2")
    monkeypatch.setenv("PLAYGROUND_MODELS", str(tmp_path))
    return tmp_path


def _subheaders(at):
    return [s.value for s in at.subheader]


def _pictures(at) -> int:
    chart = at.get("vega_lite_chart")[0].proto
    return chart_rows(chart).num_rows   # the model view: one picture per head


def test_the_picker_offers_the_folders_models_and_picking_one_draws_its_grid(run_page, models):
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    picker = at.selectbox(key="heads.model")
    assert picker.options == [DEFAULT_NAME, "not-llama", "tiny-llama"] and picker.value == DEFAULT_NAME
    picker.set_value("tiny-llama").run()
    no_exception(at)
    assert not at.error
    assert "The model view: 2 layers x 4 heads" in _subheaders(at)
    assert "Layer 1, head 0: " in " ".join(_subheaders(at))       # the link's layer 16 is clipped to the last one
    assert _pictures(at) == 8
    assert at.title[0].value == "Head viewer: tiny-llama"
    assert at.query_params["model"] in (["tiny-llama"], "tiny-llama")
    unfold(at.number_input(key="heads.head").set_value(3).run())
    no_exception(at)
    assert "Layer 1, head 3: " in " ".join(_subheaders(at))
    code = next(block.value for block in at.code if "pretrained.load(" in block.value)
    assert str(models / "tiny-llama.gguf") in code


def test_a_link_opens_the_model_and_a_file_it_cannot_read_is_a_sentence(run_page, models):
    at = run_page(PAGE, query={"model": "tiny-llama", "layer": "0", "head": "2"}, timeout=300)
    no_exception(at)
    assert "Layer 0, head 2: " in " ".join(_subheaders(at)) and _pictures(at) == 8
    at.selectbox(key="heads.model").set_value("not-llama").run()
    no_exception(at)
    assert any("architecture is 'gpt2'" in e.value for e in at.error)
    assert "Further reading" in _subheaders(at)
    unknown = run_page(PAGE, query={"model": "no-such-model"}, timeout=300)
    no_exception(unknown)
    assert any("'model'" in w.value for w in unknown.warning)
    assert unknown.selectbox(key="heads.model").value == DEFAULT_NAME


def test_without_the_folder_there_is_no_picker(run_page, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_MODELS", raising=False)
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    assert not [s for s in at.selectbox if s.key == "heads.model"]


def test_the_inside_page_reads_a_brought_model_too(run_page, models):
    """Inside the model: the same picker; the logit lens and the copying probe run on the small model, and a
    target or head its tokenizer or sizes cannot give is a sentence, never a traceback."""
    at = run_page("views/inside_the_model.py", timeout=600)
    no_exception(at)
    picker = at.selectbox(key="inside.model")
    assert picker.options == [DEFAULT_NAME, "not-llama", "tiny-llama"]
    picker.set_value("tiny-llama").run()
    no_exception(at)
    assert at.query_params["model"] in (["tiny-llama"], "tiny-llama")
    assert any("logit lens" in header for header in _subheaders(at))
    unreadable = run_page("views/inside_the_model.py", query={"model": "not-llama"}, timeout=600)
    no_exception(unreadable)
    assert any("architecture is 'gpt2'" in e.value for e in unreadable.error)


def test_a_link_out_of_the_folder_is_left_out_with_a_sentence_and_odd_file_names_read_as_typed(run_page, tmp_path,
                                                                                              monkeypatch):
    """Issue 43: `x.gguf -> /etc/passwd` was listed and read; a file named `$x^{$ _%&#.gguf` broke the head viewer's
    title (a formula). Only the folder's own files are offered; the others get a sentence; a name reads as typed."""
    from tests.katex import MISSING, katex_errors
    from tests.markdown_leaks import leaks

    odd = "$x^{$ _%&#"
    write_llama(tmp_path / f"{odd}.gguf", Shape(), tied=False, kind="Q8_0")
    (tmp_path / "x.gguf").symlink_to("/etc/passwd")
    monkeypatch.setenv("PLAYGROUND_MODELS", str(tmp_path))
    at = run_page(PAGE, timeout=300)
    no_exception(at)
    picker = at.selectbox(key="heads.model")
    assert picker.options == [DEFAULT_NAME, odd]
    assert any("x.gguf in the models folder is a link to a file outside it" in c.value for c in at.caption)
    picker.set_value(odd).run()
    at = unfold(at)
    no_exception(at)
    assert not at.error
    assert at.title[0].value == r"Head viewer: \$x^{\$ \_%&#"
    assert not leaks(at, odd)
    if MISSING is None:
        formulas = [x.value.strip().removeprefix("$$").removesuffix("$$").strip() for x in at.get("latex")]
        assert not katex_errors(formulas)
