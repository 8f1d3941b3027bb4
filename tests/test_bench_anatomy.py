"""A page's anatomy is counted from the messages Streamlit sends (bench/anatomy.py), and bench/floor_page.py
builds a page with the anatomy its link names: counted back from its own messages, it is the same (AppTest,
no browser)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest, local_script_runner

from bench.anatomy import Anatomy, counts_text, of_change, parse_counts, runs

FLOOR_PAGE = str(Path(__file__).resolve().parents[1] / "bench" / "floor_page.py")


def new_session(*fragments: str) -> ForwardMsg:
    message = ForwardMsg()
    message.new_session.name = "run"
    message.metadata.run.fragment_ids.extend(fragments)
    return message


def delta(path: list[int], kind: str, content: str) -> ForwardMsg:
    message = ForwardMsg()
    message.metadata.delta_path.extend(path)
    if kind == "flex_container":
        message.delta.add_block.flex_container.SetInParent()
    elif kind == "latex":
        message.delta.new_element.markdown.body = content
        message.delta.new_element.markdown.element_type = 4
    else:
        getattr(message.delta.new_element, kind).SetInParent()
    message.hash = f"{kind}:{content}"
    return message


def reference(path: list[int], to: str) -> ForwardMsg:
    message = ForwardMsg()
    message.metadata.delta_path.extend(path)
    message.ref_hash = to
    return message


def test_a_change_is_counted_from_the_deltas_it_brought():
    page = [new_session(), delta([0, 0], "heading", "title"), delta([0, 1], "markdown", "prose"),
            delta([0, 2], "flex_container", "section"), delta([0, 2, 0], "latex", "a=1"),
            delta([0, 2, 1], "vega_lite_chart", "old"), delta([0, 2, 2], "markdown", "gone"),
            delta([1, 0], "imgs", "qr")]
    change = [new_session("section", "qr"), delta([0, 2], "flex_container", "section"),
              delta([0, 2, 0], "latex", "a=1"), delta([0, 2, 1], "vega_lite_chart", "new"),
              reference([1, 0], "imgs:qr")]
    anatomy = of_change(page, change)
    assert anatomy.keep == Counter(heading=1, markdown=1)   # the markdown the section dropped is not kept
    assert anatomy.same == Counter({"flex_container": 1, "latex": 1, "sidebar.imgs": 1})
    assert anatomy.changed == Counter(vega_lite_chart=1) and not anatomy.whole
    assert "2 kept, 4 redrawn (sections; 1 changed; 0 kB)" in anatomy.describe()
    assert anatomy.sent_bytes == sum(message.ByteSize() for message in change[1:])
    whole = of_change(page, [new_session(), *change[1:]])
    assert whole.whole and not whole.keep


def test_the_page_before_a_change_is_its_last_whole_run_and_the_sections_run_since():
    earlier = [new_session(), delta([0, 0], "heading", "t"), delta([0, 1], "markdown", "old")]
    later = [new_session(), delta([0, 0], "markdown", "m"), delta([0, 1], "flex_container", "s"),
             delta([0, 1, 0], "latex", "a"), new_session("s"), delta([0, 1], "flex_container", "s"),
             delta([0, 1, 1], "latex", "b")]
    assert [whole for whole, _ in runs(earlier + later)] == [True, True, False]
    change = of_change(earlier + later, [new_session("s"), delta([0, 1], "flex_container", "s"),
                                         delta([0, 1, 1], "latex", "b")])
    assert (change.keep, change.same, change.changed) == (Counter(markdown=1), Counter(flex_container=1, latex=1),
                                                          Counter())   # latex a went when its section reran
    with pytest.raises(ValueError):
        of_change([new_session("s")], [])


def test_counts_survive_a_link():
    counts = Counter({"markdown": 12, "sidebar.imgs": 1, "latex": 0})
    assert parse_counts(counts_text(counts)) == +counts
    assert parse_counts("markdown:2,bad,:3,latex:x") == Counter(markdown=2)


@pytest.fixture
def sent(monkeypatch) -> list[list]:
    """The ForwardMsgs of each AppTest run (AppTest keeps only the deltas)."""
    runs_seen: list[list] = []
    parse = local_script_runner.parse_tree_from_messages

    def keep(messages):
        runs_seen.append(list(messages))
        return parse(messages)
    monkeypatch.setattr(local_script_runner, "parse_tree_from_messages", keep)
    return runs_seen


# a page like ours: prose and formulas that stay, a section of formulas beside numbers and a chart, the
# sidebar's QR code redrawn with it, a slider in the sidebar that changes the section
ASKED = Anatomy(keep=Counter({"heading": 4, "markdown": 12, "latex": 2, "expandable": 2, "flex_container": 2,
                              "column": 4, "page_link": 1, "sidebar.slider": 1, "sidebar.markdown": 2}),
                same=Counter({"flex_container": 3, "column": 4, "markdown": 3, "heading": 1, "expandable": 1,
                              "sidebar.flex_container": 1}),
                changed=Counter({"latex": 4, "vega_lite_chart": 2, "html": 2, "table": 1, "slider": 1,
                                 "sidebar.imgs": 1}),
                widget="sidebar.slider")


@pytest.mark.parametrize("whole", [False, True])
def test_the_floor_page_has_the_anatomy_its_link_names(sent, whole):
    asked = Anatomy(ASKED.keep.copy(), ASKED.same.copy(), ASKED.changed.copy(), whole=whole, widget=ASKED.widget)
    at = AppTest.from_file(FLOOR_PAGE, default_timeout=30)
    at.query_params.update(dict(parse_qsl(asked.query().lstrip("?"))))
    at.run()
    assert not at.exception
    drawn = Counter(kind for kind, _ in runs(sent[-1])[0][1].values())
    everything = asked.keep + asked.same + asked.changed
    everything["sidebar.slider"] -= 1       # the floor's switch (a toggle) stands for the page's slider
    everything["sidebar.checkbox"] += 1
    assert drawn == +everything
    before = sent[-1]
    at.toggle[0].set_value(True).run()
    change = of_change(before, sent[-1])    # AppTest sends only what the change drew
    if whole:
        asked.same += asked.keep
        asked.same["sidebar.slider"] -= 1
        asked.same["sidebar.checkbox"] += 1
    assert (change.same, change.changed) == (+asked.same, asked.changed)


def test_server_time_spans_a_change_s_script_runs():
    from bench.browser import server_ms

    finished = ForwardMsg()
    finished.script_finished = 0
    stream = [delta([0, 0], "markdown", "old"), new_session(), finished, new_session("s"),
              delta([0, 0], "markdown", "m"), finished]
    arrived = [0.0, 1.000, 1.010, 1.020, 1.030, 1.250]
    assert server_ms(stream, arrived, 1) == pytest.approx(250)
    assert server_ms(stream, arrived, 5) is None
