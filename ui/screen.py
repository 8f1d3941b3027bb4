"""How wide the reader's screen is, for the charts: the browser reports the width of the page's main column
and the session keeps it, so every chart is fitted to its place (engine.charts.fitting) on a phone, a
desktop and a projector.

The server cannot see the browser (st.context has no viewport). A tiny components-v2 element (no iframe: its
script runs in the page itself) measures the main column, rounds it down to a step of COLUMN_STEPS, and sends
that step back, once the page's run has ended and the page has been still for QUIET_MS (a rerun asked for while
the browser still drew the run's widgets came back with them empty), only when it differs from the one the server
already has: a phone's first page reruns once, and then only a change of width that crosses a step (turning the
phone, opening the sidebar) reruns the page. A browser whose column is what the server assumes until told (at
least AS_BUILT_PX on a desktop, a 1920 px projector's in projector mode) sends nothing, so a desktop's and a
projector's first page run once.

Until the browser has spoken (the first run of a session, AppTest, a bare script), the column is unknown and
every chart keeps the size its builder gave it, which is the desktop's and the handout's.
"""
from __future__ import annotations

import streamlit as st

from engine.charts.style import DESKTOP, PROJECTOR_COLUMN_PX, Layout, layout_for
from ui.projector import PROJECTOR_KEY
from ui.url_state import WIDTH_REPORTED_KEY

COLUMN_KEY = "app.column"     # session: px of the main column, as the browser last reported it (rounded down)
RESEND_KEY = WIDTH_REPORTED_KEY  # session: the browser has just reported a new width (this run is the rerun it asked)
REPORTER_KEY = "app_screen"   # the reporting element's key (ui.shell hides its box: .st-key-app_screen)
# px the reported width is rounded down to: every 10 px on a phone or a tablet, then about 8 % apart, so that a
# chart sized for the step fits the column and fills at least 92 % of it
COLUMN_STEPS = list(range(200, 700, 10)) + [round(700 * 1.08 ** k, -1) for k in range(0, 22)]
# px: a main column at least this wide holds every chart as its builder drew it (the widest, the head viewer's model
# view and Position's encodings, are about 905 px; a 1400 px screen's column is 940): a desktop that wide sends nothing
AS_BUILT_PX = 910
QUIET_MS = 500   # the page must be still this long (its run over, nothing redrawn) before the width is sent

_SCRIPT = """
export default function (component) {
  const { data, setStateValue } = component;
  const screen = window.__playgroundScreen || (window.__playgroundScreen = {});
  screen.known = data.known;                  // the step the server has now
  screen.steps = data.steps;
  screen.send = setStateValue;                // this mount's sender (a rerun mounts the element again)
  const app = () => document.querySelector("[data-testid='stApp']");
  const step = () => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!main) return null;
    const style = getComputedStyle(main);
    const width = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    screen.width = width;
    const below = screen.steps.filter((s) => s <= width);
    return below.length ? below[below.length - 1] : screen.steps[0];
  };
  screen.assumed = data.assumed;
  // settled: nothing (more) to send for this page: the server has the width, or assumes it (the browser tests wait
  // for it before they measure: tests/e2e/helpers.open_page)
  screen.settled = false;
  screen.report = () => {
    const now = step();
    if (now === null) return;
    if (now === screen.known) { screen.settled = true; return; }
    if (now === screen.sent) return;          // asked for: the run it asked for mounts this element again
    const width = screen.width;
    if (screen.known === null && screen.sent === undefined && width >= screen.assumed.from
        && (screen.assumed.below === null || width < screen.assumed.below)) {   // what the server assumes
      screen.settled = true;
      return;
    }
    // never while the page's script runs or the browser still draws what it sent: a rerun asked for then lost the
    // values that run set in its widgets, which came back empty; once the run has ended and the page is still
    if (app() && app().getAttribute("data-test-script-state") !== "notRunning") return;
    screen.settled = false;
    screen.sent = now;
    screen.send("column", now);
  };
  if (!screen.observer) {                     // once per tab, reporting through the latest mount
    let timer = null;
    const later = () => { clearTimeout(timer); timer = setTimeout(() => screen.report(), QUIET_MS); };
    screen.later = later;
    screen.observer = new ResizeObserver(later);
    screen.runs = new MutationObserver(later);   // the script's state, the page's elements: a report waits till still
    screen.watch = () => {
      const main = document.querySelector("[data-testid='stMainBlockContainer']");
      if (main && main !== screen.watched) {
        if (screen.watched) screen.observer.unobserve(screen.watched);
        screen.observer.observe(main);
        screen.watched = main;
      }
      if (app() && app() !== screen.watchedApp) {
        screen.runs.disconnect();
        screen.runs.observe(app(), {attributes: true, childList: true, subtree: true});
        screen.watchedApp = app();
      }
    };
  }
  screen.watch();
  screen.later();
}
""".replace("QUIET_MS", str(QUIET_MS))

_reporter = st.components.v2.component("playground_screen", js=_SCRIPT)


def _remember() -> None:
    reported = st.session_state.get(REPORTER_KEY)
    column = getattr(reported, "column", None) if reported is not None else None
    if column is None and isinstance(reported, dict):
        column = reported.get("column")
    if isinstance(column, (int, float)) and column > 0:
        st.session_state[COLUMN_KEY] = int(column)
        st.session_state[RESEND_KEY] = True


def report() -> None:
    """The element that reports the main column's width (app.py draws it before the page, on every run)."""
    known = st.session_state.get(COLUMN_KEY)
    # what the server draws for until told: a projector's column in projector mode, else the charts as built, which
    # a column of AS_BUILT_PX or more holds; a browser whose column is so reports nothing (no second run)
    assumed = {"from": PROJECTOR_COLUMN_PX, "below": round(PROJECTOR_COLUMN_PX * 1.1)} if projector() \
        else {"from": AS_BUILT_PX, "below": None}
    _reporter(key=REPORTER_KEY, data={"known": known, "steps": COLUMN_STEPS, "assumed": assumed},
              on_column_change=_remember, width="stretch", height=0)


def column() -> int | None:
    """px of this session's main column, as its browser last reported it; None before it has (or outside a
    session)."""
    try:
        value = st.session_state.get(COLUMN_KEY)
    except Exception:   # no session (a bare script, a test): not known
        return None
    return int(value) if isinstance(value, (int, float)) and value > 0 else None


def projector() -> bool:
    """Whether this session is in projector mode (ui.shell's switch, or ?present=1)."""
    try:
        return bool(st.session_state.get(PROJECTOR_KEY))
    except Exception:   # no session: not on a projector
        return False


def layout(share: float | None = None) -> Layout:
    """The layout a chart is drawn in on this session's screen: the main column's width (times `share` where the
    chart sits in a column of the page that takes that share of it; on a phone Streamlit stacks columns, so the
    whole width), the text size, and on a projector how far it may grow. DESKTOP where nothing is known."""
    width, on_projector = column(), projector()
    if width is None and not on_projector:
        return DESKTOP
    chosen = layout_for(width, on_projector)
    return chosen.share(share) if share is not None and not chosen.narrow else chosen
