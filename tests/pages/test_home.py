"""app.py: the home page lists the path of ideas."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.path import ideas

ROOT = Path(__file__).resolve().parents[2]


def test_home_renders_and_lists_every_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    for idea in ideas():
        assert (ROOT / idea.file).exists(), idea.file


def test_every_page_file_is_on_the_path():
    on_path = {Path(i.file).name for i in ideas()}
    files = {p.name for p in (ROOT / "views").glob("*.py") if not p.name.startswith("_")}
    assert files == on_path


# Pages that must never pay for torch (docs/ARCHITECTURE.md, layers): each is run in a fresh interpreter.
NUMPY_PAGES = ["app.py", "views/attention_calculator.py", "views/context_window.py"]


def test_start_and_numpy_pages_never_import_torch():
    import subprocess
    import sys

    probe = ("import sys; from streamlit.testing.v1 import AppTest\n"
             "for f in sys.argv[1:]:\n"
             "    AppTest.from_file(f, default_timeout=60).run()\n"
             "    assert 'torch' not in sys.modules, f + ' imported torch'\n")
    result = subprocess.run([sys.executable, "-c", probe, *[str(ROOT / f) for f in NUMPY_PAGES]],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]


def test_no_pages_folder_beside_app():
    """A pages/ folder next to app.py makes a fresh server run its first deep link in Streamlit's
    old multipage mode (the page alone, without app.py): the page files live in views/."""
    assert not (ROOT / "pages").exists()


def test_the_projector_switch_draws_every_chart_at_the_projector_size():
    """The sidebar switch (every page) makes chart text PROJECTOR_TEXT_SIZE (24 px: numbers read from the back of
    a hall); off, it is 13 px."""
    import json

    from engine.charts.style import PROJECTOR_TEXT_SIZE

    def largest_label(at) -> set[int]:
        sizes = set()
        for chart in at.get("vega_lite_chart"):
            config = json.loads(chart.proto.spec).get("config", {})
            sizes.add(config.get("axis", {}).get("labelFontSize"))
        return sizes

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("views/attention_calculator.py").run()
    assert largest_label(at) == {13}
    at.toggle(key="app.projector").set_value(True).run()
    assert not at.exception
    assert largest_label(at) == {PROJECTOR_TEXT_SIZE}


def test_the_path_follows_the_chapter_block_before_position():
    """The chapter builds the block (FFN, residuals, LayerNorm) before it turns to order and positional
    encoding: the Block builder comes before Position, and the next-page links follow."""
    from ui.path import following

    urls = [idea.url for idea in ideas()]
    assert urls.index("multi-head") < urls.index("block") < urls.index("position") < urls.index("generate")
    assert following("views/block_builder.py").url == "position"
    assert following("views/position.py").url == "generate"
    assert following("views/inside_the_model.py").url == "block"


def test_pages_beyond_the_chapter_say_so_in_the_sidebar_on_home_and_on_the_page():
    from ui.shell import BEYOND_THE_CHAPTER

    beyond = [idea for idea in ideas() if idea.beyond]
    assert {idea.url for idea in beyond} == {"heads", "inside"}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert captions.count(BEYOND_THE_CHAPTER) == 2       # once over them in the sidebar, once on the home page
    links = [link.label for link in at.main.get("page_link")]
    assert sum("(beyond the chapter)" in label for label in links) == 2
    for idea in beyond:
        page = AppTest.from_file(str(ROOT / idea.file), default_timeout=120).run()
        assert not page.exception
        assert any("Beyond the chapter." in c.value for c in page.caption), idea.file


def test_multi_head_heatmaps_grow_in_projector_mode():
    """On a projector the heads' cells grow to fill the main column (engine.charts.fitting): the default two heads
    of eight tokens, 40 px cells on a desktop, at least 1.4 times that in a 1280 px column (one under the other
    where their three-decimal numbers would shrink side by side), their numbers at the projector's text size."""
    import json

    from engine.charts.style import PROJECTOR_TEXT_SIZE

    def cells(at) -> tuple[set[float], int]:
        spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
        steps = {view["width"]["step"] for row in spec["vconcat"] for view in row.get("hconcat", [row])}
        return steps, spec["config"]["text"]["fontSize"]

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("views/multi_head.py").run()
    assert not at.exception
    assert cells(at) == ({40}, 13)
    at.toggle(key="app.projector").set_value(True).run()
    assert not at.exception
    steps, numbers = cells(at)
    assert min(steps) >= 56 and numbers == PROJECTOR_TEXT_SIZE
