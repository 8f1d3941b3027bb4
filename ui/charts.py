"""Drawing the engine's charts (plain Vega-Lite specs, or Altair objects).

Streamlit's st.altair_chart validates the whole Vega-Lite spec against its JSON schema on
every rerun (tens of ms per chart on this machine). The builders in engine/charts/ are
validated once in the tests instead, so here the spec is drawn without validation.

Streamlit moves a spec's top-level data (data.values, datasets) into Arrow. Given rows
(a list of dicts) it builds a pandas DataFrame first, about a millisecond per chart even
for a few rows; an Arrow table built here from the columns costs a tenth of that.

Sizes: every builder draws its chart for a desktop's column (engine.charts.style.text_config(), 13 px text).
`show` fits it to this session's screen (ui.screen.layout(): the main column's width as the browser reports
it, projector mode's text): stacked and shrunk on a phone, grown to fill a projector's column
(engine.charts.fitting). The handout and the downloads keep the desktop's sizes.
"""
from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING, Callable

import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util

from engine import i18n, numbers
from engine.charts import handout as paper_handout
from engine.charts import text
from engine.charts.fitting import fitted
from engine.charts.style import TEXT_SIZE, Layout, right_to_left_marked, with_text
from engine.i18n import _, ngettext
from ui import page, recording, screen

if TYPE_CHECKING:  # the app's charts are plain specs: importing Altair (half a second, 27 MB) is not needed
    import altair as alt


def arrow_rows(rows):
    """Rows (a list of dicts) as an Arrow table with every key any row has; anything else, or rows
    whose columns Arrow cannot type (a column mixing text and numbers), unchanged."""
    if not isinstance(rows, list) or not rows or not all(isinstance(row, dict) for row in rows):
        return rows
    columns = dict.fromkeys(key for row in rows for key in row)
    try:
        return pa.table({str(key): [row.get(key) for row in rows] for key in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return rows


def as_arrow(spec: dict) -> dict:
    """The spec with its top-level data rows as Arrow tables (a shallow copy; the spec is not changed)."""
    spec = dict(spec)
    data = spec.get("data")
    if isinstance(data, dict) and "values" in data:
        spec["data"] = data | {"values": arrow_rows(data["values"])}
    if isinstance(spec.get("datasets"), dict):
        spec["datasets"] = {name: arrow_rows(rows) for name, rows in spec["datasets"].items()}
    return spec


NESTED_VIEWS = ("layer", "hconcat", "vconcat", "concat")   # lists of views inside a view
HOISTED = "_nested"   # the names of datasets hoisted out of nested views: `_nested.layer.1`, ...


def hoisted(spec: dict) -> dict:
    """The spec with the rows of its nested views (a layer's own data, each panel of a concatenation, a facet's or
    repeat's inner `spec`) moved into top-level named datasets as Arrow tables, each view naming its dataset by its
    place in the spec (a shallow copy; the spec is not changed). Streamlit sends datasets apart from the spec's JSON,
    and its browser code keeps a chart's Vega view and only swaps its data when the JSON and the row counts are as
    they were: a change of numbers alone then redraws marks instead of compiling and building the chart again."""
    datasets = dict(spec.get("datasets") or {})

    def visit(view: dict, place: str, top: bool) -> dict:
        out = view
        data = view.get("data")
        if not top and isinstance(data, dict) and set(data) == {"values"}:
            rows = arrow_rows(data["values"])
            name = f"{HOISTED}{place}"
            if isinstance(rows, pa.Table) and name not in datasets:
                datasets[name] = rows
                out = out | {"data": {"name": name}}
        for part in NESTED_VIEWS:
            if isinstance(view.get(part), list):
                out = out | {part: [visit(inner, f"{place}.{part}.{i}", False) if isinstance(inner, dict) else inner
                                    for i, inner in enumerate(view[part])]}
        if isinstance(view.get("spec"), dict):
            out = out | {"spec": visit(view["spec"], f"{place}.spec", False)}
        return out

    before = len(datasets)
    spec = visit(spec, "", True)
    if len(datasets) == before:
        return spec
    data = spec.get("data")
    if isinstance(data, dict) and "values" in data and HOISTED not in datasets:
        # the top-level rows named too: Streamlit's browser code puts unnamed rows into a chart's only named
        # dataset, where there is one (every view then drew the top-level rows)
        datasets[HOISTED] = data["values"]
        spec = spec | {"data": {key: value for key, value in data.items() if key != "values"} | {"name": HOISTED}}
    return spec | {"datasets": datasets}


def prepared(chart: alt.TopLevelMixin | dict) -> dict:
    """The spec with its top-level rows already serialised to Arrow IPC bytes (moved into named
    datasets, which Streamlit passes on as they are): for a spec cached with st.cache_resource and
    drawn on every rerun, thousands of cells then cost nothing to convert again. Read-only: share it."""
    original = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    spec = as_arrow(original) | {TEXT_KEY: (i18n.current().code, *chart_text(original))}
    datasets = dict(spec.get("datasets", {}))
    data = spec.get("data")
    if isinstance(data, dict) and "values" in data:
        datasets["values"] = data["values"]
        spec["data"] = {key: value for key, value in data.items() if key != "values"} | {"name": "values"}
    spec["datasets"] = {name: dataframe_util.convert_arrow_table_to_arrow_bytes(rows) if isinstance(rows, pa.Table)
                        else rows for name, rows in datasets.items()}
    return spec


# "svg" or "canvas": the renderer Vega draws with (the browser tests measure SVG text); unset, Streamlit's
# choice: SVG, or canvas for a chart of more than 2,000 data rows
RENDERER_VARIABLE = "PLAYGROUND_CHART_RENDERER"


def renderer_options(spec: dict) -> dict:
    """The spec asking Vega for the renderer named by $PLAYGROUND_CHART_RENDERER, if it names one."""
    renderer = os.environ.get(RENDERER_VARIABLE, "")
    if renderer not in ("svg", "canvas"):
        return spec
    usermeta = dict(spec.get("usermeta") or {})
    usermeta["embedOptions"] = {**(usermeta.get("embedOptions") or {}), "renderer": renderer}
    return spec | {"usermeta": usermeta}


def single_view(spec: dict) -> bool:
    """One view (a mark or a layer of marks), not a facet, concatenation or repeat."""
    return not any(key in spec for key in ("facet", "hconcat", "vconcat", "concat", "repeat", "spec")) \
        and not any(channel in spec.get("encoding", {}) for channel in ("row", "column", "facet"))


def in_column() -> bool:
    """Whether the chart being drawn sits in one of st.columns (whose share of the main column Streamlit does not
    tell)."""
    try:
        container = st._main._active_dg
    except Exception:   # no session
        return False
    while container is not None:
        if getattr(container, "_block_type", None) == "column":
            return True
        container = getattr(container, "_parent", None)
    return False


IN_COLUMN_SHARE = 1 / 3   # the part of the main column a chart in one of st.columns counts on, on a projector (the
# narrowest the pages give a chart; one in a wider column says so with share=)


def layout(share: float | None = None, font_size: int | None = None) -> Layout:
    """The layout a chart drawn here gets: this session's screen (ui.screen.layout), at `share` of the main column
    where given. In one of st.columns with no share given, its place is not known beyond a phone (where Streamlit
    stacks the columns): it keeps its builder's sizes, with the screen's text; on a projector, whose larger text
    needs the rows and bars to grow with it, it counts on IN_COLUMN_SHARE of the column. `font_size` replaces the
    text size."""
    chosen = screen.layout(share)
    if share is None and not chosen.narrow and chosen.width is not None and in_column():
        chosen = chosen.share(IN_COLUMN_SHARE) if chosen.grow > 1 else Layout(None, chosen.text)
    return chosen if font_size is None else Layout(chosen.width, font_size, chosen.grow, chosen.narrow)


def autosized(spec: dict, width: str) -> dict:
    """The spec with the autosize a one-view chart needs where it sets none.

    Streamlit's default for one view, "fit", squeezes a chart with a legend or title into its height and pushed
    titles out of view: fit the width only, keep the height the builder asked for. Vega-Lite cannot fit a width
    counted in steps (one per bar or cell): it squeezed such a chart into its plot's height, title above the top
    edge; that one keeps its own size."""
    if "autosize" in spec or not single_view(spec):
        return spec
    fits = width == "stretch" or isinstance(spec.get("width"), (int, float))
    return spec | {"autosize": {"type": "fit-x", "contains": "padding"} if fits else {"type": "pad"}}


def show(chart: alt.TopLevelMixin | dict, *, width: str = "content", key: str | None = None,
         font_size: int | None = None, share: float | None = None, **selection) -> None:
    """Draw an engine chart (Altair object or plain Vega-Lite spec): width 'content' keeps its own
    size, 'stretch' fills the column; fitted to this session's screen (`layout`: `share` is the part of the
    main column its place takes, where it sits in one of st.columns), its text at `font_size` px (None: the
    screen's). `selection` (on_select=, selection_mode=) goes to st.vega_lite_chart."""
    spec = chart if isinstance(chart, dict) else chart.to_dict(validate=False)
    kept = spec.get(TEXT_KEY)   # made by `prepared` in the language of the session that made it: this one's?
    words = kept[1:] if kept and kept[0] == i18n.current().code else None
    spec = {name: value for name, value in spec.items() if name != TEXT_KEY}   # a prepared spec stays as it is
    words = words or chart_text(spec)
    spec = localized(spec)
    spec.setdefault("description", words[0])   # Vega makes it the chart's aria-label
    drawn = renderer_options(autosized(fitted(spec, layout(share, font_size), stretch=width == "stretch"), width))
    if i18n.current().direction == "rtl":
        drawn = right_to_left_marked(drawn)   # titles beginning with a formula keep their words in order
    element = st.vega_lite_chart(hoisted(as_arrow(drawn)), width=width, key=key, **selection)
    st.html(words[1])
    desktop = autosized(with_text(spec, TEXT_SIZE), width)   # paper and downloads: the desktop's, whatever the screen
    recording.add(paper_handout.Chart(desktop, words[0]))   # for the page's handout (rows back from Arrow only then)
    downloads(desktop, key or _position(element))


def localized(spec: dict) -> dict:
    """The spec with the reader's number signs as Vega-Lite's `config.locale` (engine.numbers.vega_locale: 0,298 on
    a Spanish chart's axes, labels and tooltips); as it was for a language that writes numbers as English does.
    Every chart drawn goes through here (`show`), its handout and downloads too."""
    locale = numbers.vega_locale()
    if locale is None:
        return spec
    return spec | {"config": (spec.get("config") or {}) | {"locale": locale}}


def _position(element) -> str:
    """Where an element sits on the page (Streamlit's delta path: unique, and the same on every rerun of
    the same layout), to name a chart's download box when the page gave the chart no key."""
    try:
        return "-".join(str(step) for step in element._cursor.delta_path)
    except Exception:  # no cursor (a bare script): one name, the box still works
        return "chart"


def plain(spec: dict) -> dict:
    """The spec with rows wherever `prepared` left Arrow IPC bytes (the server draws plain rows)."""
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict) or not any(isinstance(rows, bytes) for rows in datasets.values()):
        return spec
    return spec | {"datasets": {name: pa.ipc.open_stream(rows).read_all().to_pylist() if isinstance(rows, bytes)
                                else rows for name, rows in datasets.items()}}


def _made(make: Callable[[dict], bytes | str], spec: dict) -> Callable[[], bytes | str]:
    """The download's file, made when the reader clicks (never on a rerun). A failure reaches the reader
    as Streamlit's download error, carrying the engine's sentence; the page itself is untouched."""
    return lambda: make(plain(spec))


DOWNLOADS_SWITCH = "PLAYGROUND_DOWNLOADS"   # "0": no Download boxes, no handout (a kiosk; bench.browser --downloads)


def downloads_offered() -> bool:
    """Whether this server offers the charts' Download boxes and the page's handout (on unless switched off)."""
    return os.environ.get(DOWNLOADS_SWITCH, "1").strip().lower() not in ("0", "off", "no")


def downloads(spec: dict, name: str) -> None:
    """A folded "Download" box under a chart: SVG, PNG (2x, white) and the Data table as CSV, drawn on the
    server from this spec (engine.charts.export) only when a button is clicked."""
    from engine.charts import export

    if not downloads_offered():
        return
    box = page.folded(_("Download"), f"download.{name}", icon=":material/download:")
    if not box.open:
        return
    with box:
        try:
            rows = plain(spec)
            export.check(rows)
        except ValueError as error:
            st.caption(str(error))
            return
        except Exception:  # a failed export never breaks the page
            st.caption(_("This chart cannot be downloaded."))
            return
        stem = export.file_stem(spec)
        kinds = [("SVG", export.svg, "svg", "image/svg+xml"), ("PNG", export.png, "png", "image/png")]
        if text.table(rows, limit=0)[0]:   # a chart with no rows (a picture) has no CSV
            kinds.append(("CSV", export.csv_text, "csv", "text/csv"))
        columns = st.columns(3)
        for column, (label, make, suffix, mime) in zip(columns, kinds):
            column.download_button(label, _made(make, spec), file_name=f"{stem}.{suffix}", mime=mime,
                                   key=f"download.{name}.{suffix}", on_click="ignore",
                                   icon=":material/download:", width="stretch")


TEXT_KEY = "_playground_text"   # (language, summary, Data table HTML) that `prepared` made once, read by `show`


def chart_text(spec: dict) -> tuple[str, str]:
    """The chart as text (engine.charts.text): its one-sentence summary, and a collapsed "Data" table of
    its numbers that a screen reader (or anyone) can open."""
    sentence = text.summary(spec)
    columns, cells, left_out = text.table(spec, reader=True)
    if not cells:
        return sentence, f"<p class='chart-summary'>{html.escape(sentence)}</p>"
    head = "".join(f"<th scope='col'>{html.escape(text.header(spec, c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>" for row in cells)
    more = ngettext("... and {n} more row.", "... and {n} more rows.", left_out, n=numbers.grouped(left_out))
    more = f"<p>{html.escape(more)}</p>" if left_out else ""
    data = html.escape(_("Data"))
    return sentence, (f"<details class='chart-data'><summary>{data}</summary><p>{html.escape(sentence)}</p>"
                      f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}</details>")
