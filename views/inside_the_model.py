"""Inside the model: change something inside SmolLM2 and read what the output does (engine.interpret.interventions).

Each part computes through ui.inside_views (the warm-up calls the same functions with the page's examples); a part
that reruns alone (ui.page.section) is defined where it is drawn and handed what the page's last whole run found.
"""
from __future__ import annotations

import streamlit as st

from engine.interpret import readings
from engine.interpret.code import copying_code, effects_code, lens_code, patching_code
from engine import i18n, limits, numbers
from engine.i18n import N_, _, ngettext, pgettext
from engine.markup import said
from engine.charts.bars import next_token_bars
from engine.charts.heatmaps import layer_heatmap
from engine.charts.lines import loss_by_position, rank_by_layer
from engine.charts.points import attention_effect_scatter
from engine.charts.style import visible
from engine.pretrained import smollm2 as pretrained
from engine.pretrained.llama import DEFAULT_NAME
from engine.interpret.interventions import HeadEffects
from engine.interpret.readings import layer_name
from engine.chapter.inside import (COPY_LENGTHS, EFFECT_GROUP, EFFECTS, HEAD_OPTIONS, KNOCK_OUT, LENS, LENS_HEADING,
                                   MAX_ABLATED, MAX_CHARS, MAX_SEED, MODES, PAGE, PATCHING_HEADING, HeadScan)
from engine.numbers import enough_digits
from ui import challenges, charts, code, formula, inside_views, loaders, page, tables, url_state, warmup
from ui.pretrained_views import load_model, model_picker
from ui.session_slots import LIVE_MODEL, LIVE_MODEL_NOTE

LENS_K = readings.LENS_TOP_K             # tokens kept per cell of the logit lens (the tooltip shows two)
LENS_COLUMNS = 12                        # positions drawn in the lens heatmap (the last ones)
ROOM = 680                               # px of cells a full-width heatmap may take (main area at 1400 px)
TOP_K = readings.BARS_TOP_K              # bars, ranked heads
GROUP_SIZE = readings.EXAMPLE_GROUP_SIZE  # "the 5 heads with the largest effect"

KNOCK_OUT_PRESETS, PATCHING_PRESETS, OWN_PRESETS = (readings.KNOCK_OUT_EXAMPLES, readings.PATCHING_EXAMPLES,
                                                    readings.OWN_EXAMPLES)
SHIPPED, LIVE = N_("the shipped character model"), N_("your live model (Block builder)")   # shown as _(name)
P = PAGE.by_name


def label(name: str, **params) -> str:
    """A parameter's widget label in the reader's language (its placeholders filled from `params`)."""
    return _(P[name].label, **params)


STATE = url_state.PageState(PAGE)
# The sections that rerun alone (ui.page.section): every head knocked out alone and where it looks (part 2);
# activation patching (3); the copying probe (4); our own model (5); the challenges, which read the probe too.
PATCHING, COPYING, OWN, TRY = "inside.patching", "inside.copying", "inside.own", "inside.try"
# parts drawn outside a section that a class's open question veils: the lens, and the knock-out's named groups
# (LENS, KNOCK_OUT: the spec's)
EXACT_FOR = "exact_for"                  # in STATE: the (model, prompt, target, mode) a student asked to scan exactly


def load_preset(chooser: str, presets: dict, fields: tuple[str, ...]) -> None:
    values = presets.get(STATE.get(chooser))
    if values is not None:
        for field, value in zip(fields, values):
            STATE[field] = value


def knock_out_signature(picked: str) -> tuple:
    """What the exact scan of every head depends on: the model, the prompt, the target and the ablation."""
    return picked, STATE["ko_text"], STATE["ko_target"], STATE["mode"]


def load_patching_preset() -> None:
    """The patching example's on_change: its two prompts and answers, then a rerun of that section alone."""
    load_preset("patch_preset", PATCHING_PRESETS, ("clean", "corrupt", "clean_target", "corrupt_target"))
    page.only(STATE, PATCHING)()


def load_own_preset() -> None:
    """Our own model's example: its prompt and target, then a rerun of that section alone."""
    load_preset("own_preset", OWN_PRESETS, ("own_text", "own_target"))
    page.only(STATE, OWN)()


def fit(texts, n_columns: int, room: int = ROOM) -> tuple[int, int]:
    """(cell width in px, characters printed per cell): wide enough for the longest text at 13 px (about
    7 px a character), narrow enough that n_columns cells fit in `room`."""
    longest = max((len(str(t)) for t in texts), default=1)
    width = int(min(max(7 * longest + 12, 30), max(room // max(n_columns, 1), 30)))
    return width, max((width - 10) // 7, 1)


def short(token: str, chars: int) -> str:
    """A token as printed in a cell: spaces and line breaks visible, cut to `chars` characters."""
    shown = visible(str(token))
    return shown if len(shown) <= chars else shown[:max(chars - 1, 1)] + "…"


def column_labels(tokens, first: int = 0) -> list[str]:
    """Each position's token; with its position in front when a token repeats (characters do)."""
    shown = [visible(str(token)) for token in tokens]
    if len(set(shown)) == len(shown):
        return shown
    return [f"{first + i}: {token}" for i, token in enumerate(shown)]


def model_path(picked: str) -> str | None:
    """The GGUF file of a brought model, for the code's load line (None: SmolLM2, which loads by default)."""
    return None if picked == DEFAULT_NAME else str(pretrained.available_models()[picked])


def row_names(layers: list[str]) -> list[str]:
    return [f"{row}: {layer_name(name)}" for row, name in enumerate(layers)]


def lens_chart(lens, columns: slice, title: str):
    """The logit lens as a heatmap: P of the top token, the token printed in each cell."""
    top = lens.top_tokens[:, columns, 0]
    width, chars = fit([visible(str(t)) for t in top.ravel()], top.shape[1])
    return layer_heatmap(
        lens.top_probabilities[:, columns, 0], row_names(lens.layers),
        column_labels(lens.tokens[columns], range(len(lens.tokens))[columns].start),
        cell_text=[[short(token, chars) for token in row] for row in top], value_name=_("P(top token)"),
        domain=(0, 1), digits=3, title=title, x_title=_("position (the token read last)"),
        y_title=_("residual stream row"), cell_width=width, cell_height=20,
        extra={_("second"): lens.top_tokens[:, columns, 1], _("P(second)"): lens.top_probabilities[:, columns, 1]})


PARTS = {   # the page's parts, in order: anchor -> heading
    "logit-lens": LENS_HEADING,
    "knock-out-heads": N_("2. Knock out heads"),
    "activation-patching": PATCHING_HEADING,
    "copying": N_("4. Copying from context"),
    "your-own-model": N_("5. Your own model"),
}

page.header(PAGE)
PARTS = {anchor: _(heading) for anchor, heading in PARTS.items()}   # in the language page.header chose
page.beyond_the_chapter(__file__)
STATE.init()
st.markdown(_(
    "The Head viewer showed where each head of SmolLM2 looks. Where a head looks is a clue, not a proof: a head "
    "can stare at a token and change nothing. To find out what a part *does*, change it and watch the output. "
    "Four such experiments below read SmolLM2 from the inside; the last one turns them on a model of ours."))
if not i18n.is_source():   # said once, in the reader's language (English reads it from the prompts themselves)
    st.caption(_("SmolLM2 and our character model read English: the prompts, the tokens and the answers below stay "
                 "in English, as the models read and write them."))
page.contents(PARTS)   # a long page: its parts as links, so a lecturer jumps to the one being discussed

with st.sidebar:
    picked = model_picker(STATE, "model")      # SmolLM2, or a GGUF of PLAYGROUND_MODELS (ui.pretrained_views)
model = load_model(picked)

# --- 1. the logit lens ----------------------------------------------------------------------------------
st.subheader(PARTS["logit-lens"], anchor="logit-lens")
st.markdown(_(
    "Every block adds its output to a running sum, the residual stream x. After the last block, the model turns "
    "x into next-token probabilities with RMSNorm and W_vocab. Apply that same last step to x after *any* block "
    "and you read what the model would say if it stopped there."))
left, right = st.columns([3, 2])
left.text_input(label("text"), key=STATE.key("text"), max_chars=MAX_CHARS)
right.text_input(label("target"), key=STATE.key("target"),
                 max_chars=limits.TARGET_MAX_CHARS)
lens_error = st.container()
lens = reading = None
if model is not None:
    lens = page.run_engine(inside_views.lens, picked, STATE["text"], STATE["target"], where=lens_error)
if lens is not None and not page.veiled(LENS):
    reading = readings.read_lens(lens, STATE["target"])
    shown = slice(max(len(lens.tokens) - LENS_COLUMNS, 0), None)
    if len(lens.tokens) > LENS_COLUMNS:
        st.caption(_("The heatmap shows the last {shown} of the text's {positions} positions.", shown=LENS_COLUMNS,
                     positions=len(lens.tokens)))
    charts.show(lens_chart(lens, shown, _("Top next token after each row of the residual stream")))
    words_column, chart_column = st.columns([1, 1])
    with words_column:
        for sentence in reading.sentences:
            st.markdown(sentence)
        st.caption(_("Row 0 is the input embedding read back by the output matrix. SmolLM2 uses one matrix for both "
                     "(tied embeddings), so the embedding of a token reads back mostly as that token."))
    with chart_column:
        charts.show(rank_by_layer(reading.ranks, reading.probabilities, [layer_name(row) for row in lens.layers],
                                  token=reading.target_token,
                                  title=_("Rank of {target} after {token}", target=repr(reading.target_token),
                                          token=repr(reading.position_token))),
                    width="stretch")
    last = len(lens.layers) - 1
    formula.formula_with_numbers(
        r"P_r(w \mid t) = \mathrm{softmax}\big(W_{vocab}\,\mathrm{RMSNorm}(x_r(t))\big)_w",
        rf"P_{{{last}}}({formula.word(reading.target_token)}) = "
        rf"{formula.number(float(reading.probabilities[-1]))},\quad "
        rf"P_{{{last - 1}}}({formula.word(reading.target_token)}) = "
        rf"{formula.number(float(reading.probabilities[-2]))}",
        caption=_("x_r(t) is row r of the residual stream at position t: r = 0 after the embedding, r = l + 1 after "
                  "block l, so row {last} is what the model itself outputs.", last=last), stacked=True)
    code.show_code({"Python": lens_code(model_path(picked), STATE["text"], STATE["target"], LENS_K, lens=lens)},
                   name="lens")


# --- 2. knocking heads out -------------------------------------------------------------------------------
st.subheader(PARTS["knock-out-heads"], anchor="knock-out-heads")
st.markdown(_(
    "Knocking out a head replaces its output: by zero, or by its average output over the text (mean), so the "
    "rest of the model gets no information from it. If the prediction changes, the head was doing something for it."))
st.selectbox(_("Start from an example"), list(KNOCK_OUT_PRESETS), index=None, format_func=_,
             placeholder=_("Pick an example prompt..."), key=STATE.key("ko_preset"),
             on_change=lambda: load_preset("ko_preset", KNOCK_OUT_PRESETS, ("ko_text", "ko_target", "source")))
left, right = st.columns([3, 2])
left.text_input(label("ko_text", n=limits.HEAD_EFFECTS_MAX_TOKENS), key=STATE.key("ko_text"),
                max_chars=MAX_CHARS)
right.text_input(label("ko_target"), key=STATE.key("ko_target"), max_chars=limits.TARGET_MAX_CHARS)
knock_error = st.container()
scan = exact = effects = knocked = chosen = None
if model is not None:   # every head's effect estimated in one pass forward and back; exact (270 passes) on request
    scan = page.run_engine(inside_views.head_scan, picked, STATE["ko_text"], STATE["ko_target"], STATE["mode"],
                           where=knock_error)
if scan is not None and knock_out_signature(picked) in STATE.get(EXACT_FOR, ()):
    exact = page.run_engine(loaders.pretrained_head_effects, picked, STATE["ko_text"], STATE["ko_target"],
                            STATE["mode"], where=knock_error)
if scan is not None:
    effects = exact if exact is not None else scan.estimate
    groups = inside_views.head_groups(scan, effects)
    pick, mode_column = st.columns([3, 1])
    effect_label = readings.largest_effect_label(GROUP_SIZE, effects.estimated)   # estimated until checked below
    pick.multiselect(label("heads"), HEAD_OPTIONS,
                     key=STATE.key("heads"), placeholder=_("Pick heads or a group..."),
                     format_func=lambda option: effect_label if option == EFFECT_GROUP else _(option))
    mode_column.radio(label("mode"), MODES, key=STATE.key("mode"), horizontal=True, help=P["mode"].help,
                      format_func=readings.mode_name)
    if not page.veiled(KNOCK_OUT, note=False):   # the groups name the heads with the largest effects
        nobody = pgettext("heads", "none")
        st.caption(" · ".join(_("{group}: {heads}", group=effect_label if name == EFFECT_GROUP else _(name),
                                heads=", ".join(readings.head_label(*pair) for pair in heads) or nobody)
                              for name, heads in groups.items())
                   + _(". Types as the Head viewer names them on this prompt; induction is measured on a repeated "
                       "random sequence."))
    chosen = readings.chosen_heads(STATE["heads"], groups)
    knocked = page.run_engine(inside_views.knock_out, picked, STATE["ko_text"], STATE["ko_target"], chosen,
                              STATE["mode"])
    if knocked is not None:
        after = ngettext("without {n} head", "without {n} heads", len(chosen))
        charts.show(next_token_bars({_("intact"): knocked.before, after: knocked.after},
                                    title=_("P(next token) after {token}", token=repr(visible(effects.tokens[-1]))),
                                    width=300))
        st.markdown(knocked.sentence)


def every_head(picked: str, scan: HeadScan, exact: HeadEffects | None) -> None:
    """Every head knocked out alone (estimated, or exact once asked for) and where each looks, against what
    it does: a second read, folded in the section that draws it."""
    estimate = scan.estimate
    effects = exact if exact is not None else estimate
    n_heads, target = effects.effects.size, effects.target_token
    if exact is None:
        st.markdown(_(
            "**Every head, one at a time, estimated.** Knocking out each of the {n} heads in turn ({mode}) takes {n} "
            "passes of the model. One pass forward and one backward give an estimate: the gradient of ln P({target}) "
            "with respect to a head's output says how fast ln P changes as that output moves; times how far the "
            "knock-out moves it, summed over the positions, it is a straight-line guess of the change (attribution "
            "patching).", n=n_heads, mode=readings.mode_name(STATE["mode"]), target=said(target)))
        if st.button(_("Check it: knock out each head in turn ({n} passes, a few seconds)", n=n_heads),
                     key="inside.exact_button", icon=":material/fact_check:"):
            STATE.setdefault(EXACT_FOR, set()).add(knock_out_signature(picked))
            st.rerun()
    else:
        st.markdown(_("**Every head, one at a time.** Each of the {n} heads knocked out alone ({mode}): how much does "
                      "ln P({target}) change?", n=n_heads, mode=readings.mode_name(STATE["mode"]),
                      target=said(target)))
        agreement = readings.compare_rankings(estimate, exact, TOP_K)
        st.markdown(agreement.sentence)
        if agreement.disagreements:
            tables.table(agreement.disagreements, digits=2)
        st.caption(_("The estimate follows a straight line from the intact model; a softmax and {blocks} blocks bend "
                     "it. Where a head carries much of the answer, or others make up for it once it is gone, the line "
                     "misses the exact change.", blocks=effects.effects.shape[0]))
    tokens = effects.tokens
    STATE["source"] = min(int(STATE["source"]), len(tokens) - 1)
    weights = loaders.pretrained_heads(picked, STATE["ko_text"], limits.HEAD_VIEWER_MAX_TOKENS).weights
    comparison = page.run_engine(readings.attention_vs_effect, weights, effects, int(STATE["source"]), TOP_K)
    heat_column, table_column = st.columns([1, 2])
    with heat_column:
        charts.show(layer_heatmap(
            effects.effects, [_("layer {layer}", layer=layer) for layer in range(effects.effects.shape[0])],
            [str(head) for head in range(effects.effects.shape[1])], value_name=_("change in ln P"), diverging=True,
            numbers=False, cell_width=22, cell_height=18, x_title=_("head"), y_title="",
            label_angle=0, title=_("Knocked out alone") if exact is not None else _("Estimated, knocked out alone"),
            legend_orient="bottom"))
        st.caption(_("Orange: {target} loses without the head; blue: it gains (as on every page, orange is less and "
                     "blue is more).", target=said(effects.target_token)))
    with table_column:
        rows = readings.effect_rows(effects, TOP_K, types=scan.scored.types,
                                    attention=comparison.attention if comparison else None)
        top_layer, top_head, top_effect = effects.ranking(1)[0]
        if exact is None:
            tables.table(rows, digits=3)
            formula.formula_with_numbers(
                r"\hat\Delta_{l,j} = \sum_t \frac{\partial \ln P(\text{target})}{\partial z_{l,j}(t)} \cdot "
                r"\big(v_{l,j} - z_{l,j}(t)\big)",
                rf"\hat\Delta_{{{top_layer},{top_head}}} = {formula.number(top_effect)}",
                caption=_("z(t) is the output of head j of block l at position t (before W_O), v what it outputs "
                          "knocked out (0). Exact where ln P is a straight line in the heads' outputs.")
                if STATE["mode"] == "zero" else
                _("z(t) is the output of head j of block l at position t (before W_O), v what it outputs knocked out "
                  "(its mean over the prompt). Exact where ln P is a straight line in the heads' outputs."),
                stacked=True)
        else:
            places = readings.probability_places(rows)   # ln of the printed P's gives the printed change
            with_it, without_it = _("P with it"), _("P without it")
            tables.table(rows, formats=dict.fromkeys((with_it, without_it), f"%.{places}f"), digits=3)
            best = rows[0]
            formula.formula_with_numbers(
                r"\Delta_{l,j} = \ln P_{\setminus (l,j)}(\text{target}) - \ln P(\text{target})",
                rf"\Delta_{{{top_layer},{top_head}}} = \ln {formula.number(best[without_it], places)} - "
                rf"\ln {formula.number(best[with_it], places)} = {formula.number(top_effect)}",
                caption=_("P is the probability of {target} at the last position; P without (l, j) is the same with "
                          "head j of block l knocked out. Negative: the head helped the target. The probabilities "
                          "are printed to {places} decimals, enough for their logarithms to give the change to 3.",
                          target=said(effects.target_token), places=places), stacked=True)

    st.markdown(_("**Where a head looks against what it does.**"))
    source_labels = {t: f"{t}: {visible(token)}" for t, token in enumerate(tokens)}
    st.columns([2, 3])[0].selectbox(label("source"), list(source_labels),
                                    format_func=source_labels.get, key=STATE.key("source"),
                                    on_change=page.only(STATE, EFFECTS))
    if comparison is not None:
        scatter_column, words_column = st.columns([1, 1])
        with scatter_column:
            charts.show(attention_effect_scatter(comparison.attention, comparison.effects,
                                                 source=comparison.source_token, target=comparison.target_token,
                                                 by_attention=comparison.by_attention,
                                                 by_effect=comparison.by_effect))
        with words_column:
            st.markdown(comparison.sentence)
            st.caption(_("Attention is measured in one pass on the same prompt: the weight of the last position on "
                         "the source token, per head. A head can look hard and matter little (its value vector is "
                         "small, or later layers ignore what it writes), and a head can matter a lot while looking "
                         "elsewhere."))
            looks, matters = st.columns(2)
            tables.table([{_("looks hardest"): readings.head_label(*pair),
                           _("attention"): float(comparison.attention[pair])} for pair in comparison.by_attention],
                         digits=2, where=looks)
            change = _("change in ln P") if exact is not None else _("estimated change in ln P")
            tables.table([{_("matters most"): readings.head_label(*pair), change: float(comparison.effects[pair])}
                          for pair in comparison.by_effect], digits=2, where=matters)


@page.section(EFFECTS)
def effects_section(picked: str, scan: HeadScan, exact: HeadEffects | None,
                    chosen: tuple[tuple[int, int], ...]) -> None:
    """Every head knocked out alone and where it looks: what the source token changes. The prompt, the target,
    the heads and the mode rerun the whole page (the challenges read the knock-out too), which hands this the
    heads' scan, the exact scan where one was asked for, and the heads chosen."""
    box = page.folded(_("Every head knocked out alone, and where each one looks"), "inside.every_head",
                      icon=":material/grid_on:")
    if box.open:   # a second read: folded, so a first read of the page stays short
        with box:
            every_head(picked, scan, exact)
    code.show_code({"Python": effects_code(model_path(picked), STATE["ko_text"], STATE["ko_target"], list(chosen),
                                           STATE["mode"], TOP_K, model=lambda: loaders.pretrained_model(picked),
                                           estimate=scan.estimate, exact=exact)}, name="effects")


if scan is not None:
    effects_section(picked, scan, exact, chosen)


@page.section(PATCHING)
def patching_section(model, picked: str) -> None:
    """The two prompts, their answers and where a patch brings the clean answer back: all that its example,
    prompts and answers change (`model` None: it failed to load, and the page said why)."""
    st.selectbox(_("Start from an example"), list(PATCHING_PRESETS), index=None, format_func=_,
                 placeholder=_("Pick a pair of prompts..."), key=STATE.key("patch_preset"),
                 on_change=load_patching_preset)
    left, right = st.columns([3, 1])
    left.text_input(label("clean"), key=STATE.key("clean"), max_chars=MAX_CHARS, on_change=page.only(STATE, PATCHING))
    right.text_input(label("clean_target"), key=STATE.key("clean_target"), max_chars=limits.TARGET_MAX_CHARS,
                     on_change=page.only(STATE, PATCHING))
    left.text_input(label("corrupt"), key=STATE.key("corrupt"), max_chars=MAX_CHARS,
                    on_change=page.only(STATE, PATCHING))
    right.text_input(label("corrupt_target"), key=STATE.key("corrupt_target"), max_chars=limits.TARGET_MAX_CHARS,
                     on_change=page.only(STATE, PATCHING))
    patch_error = st.container()
    patched = None
    if model is not None:
        patched = page.run_engine(inside_views.patching, picked, STATE["clean"], STATE["corrupt"],
                                  STATE["clean_target"], STATE["corrupt_target"], where=patch_error)
    if patched is not None:
        route = readings.patching_route(patched)
        for sentence in route.sentences:
            st.markdown(sentence)
        columns = column_labels([c if c == k else f"{c} / {k}"
                                 for c, k in zip(patched.clean_tokens, patched.corrupt_tokens)])
        charts.show(layer_heatmap(
            patched.restored, row_names(patched.layers), columns, value_name=_("restored"), domain=(0, 1), digits=2,
            cell_width=fit(["-0.00"], len(columns))[0], cell_height=20,
            x_title=_("position patched (clean / corrupted)"), y_title=_("residual stream row"),
            title=_("Share of {clean} over {corrupt} brought back by one patch",
                    clean=repr(patched.clean_target_token), corrupt=repr(patched.corrupt_target_token))))
        row, last = route.handover_row, len(patched.clean_tokens) - 1
        differences = (float(patched.patched_logit_diff[row, last]), float(patched.clean_logit_diff),
                       float(patched.corrupt_logit_diff))
        places = enough_digits(readings.restored_share, *differences, least=2, result_digits=2)   # it divides out
        ld_patched, ld_clean, ld_corrupt = (formula.number(value, places) for value in differences)
        restored = formula.number(float(patched.restored[row, last]), 2)
        word = pgettext("formula", "restored")
        formula.formula_with_numbers(
            rf"\text{{{word}}}(r, t) = \frac{{LD_{{patched}} - LD_{{corrupt}}}}{{LD_{{clean}} - LD_{{corrupt}}}}",
            rf"\text{{{word}}}({row}, {last}) = \frac{{{ld_patched} - ({ld_corrupt})}}{{{ld_clean} - ({ld_corrupt})}}"
            rf" = {restored}",
            caption=_("LD is the logit difference logit[{clean}] - logit[{corrupt}] at the last position. 1: the clean "
                      "answer is fully back; 0: the patch changed nothing.", clean=said(patched.clean_target_token),
                      corrupt=said(patched.corrupt_target_token)), stacked=True)
        code.show_code({"Python": patching_code(model_path(picked), STATE["clean"], STATE["corrupt"],
                                                STATE["clean_target"], STATE["corrupt_target"], patched=patched)},
                       name="patching")


# --- 3. activation patching ------------------------------------------------------------------------------
st.subheader(PARTS["activation-patching"], anchor="activation-patching")
st.markdown(_(
    "Run two prompts that differ in one fact: a clean one and a corrupted one. Then run the corrupted prompt again, "
    "but copy in the clean run's x at one row and one position. Where that single patch brings the clean answer "
    "back, that spot of the residual stream carries the fact."))
patching_section(model, picked)


def copying_reading(model, picked: str):
    """The copying probe with and without the induction heads the sliders knock out (the sections that call it
    rerun alone when a slider moves); None without a model or after an error sentence."""
    if model is None:
        return None
    return page.run_engine(inside_views.copying, picked, int(STATE["k"]), int(STATE["length"]), int(STATE["seed"]))


@page.section(COPYING)
def copying_section(model, picked: str) -> None:
    """The loss of each next token read twice, with and without the knocked-out induction heads."""
    copying = copying_reading(model, picked)
    if copying is not None:
        chart_column, words_column = st.columns([3, 2])
        with chart_column:
            charts.show(loss_by_position(copying.bits_per_position, copying.stretches,
                                         title=_("Loss of each next token, the sequence read twice")), width="stretch")
        with words_column:
            for sentence in copying.sentences:
                st.markdown(sentence)
        box = page.folded(_("Each copy's loss in bits and in nats, and the formula"), "inside.copying_numbers",
                          icon=":material/table:")
        if box.open:   # the sentences beside the chart say the numbers; these are for a second read
            with box:
                nats = f"%.{copying.nats_places}f"   # nats / ln 2 gives the bits as printed
                tables.table(copying.rows, formats=dict.fromkeys((_("first copy, nats"), _("second copy, nats")), nats),
                             digits=2)
                formula.formula_with_numbers(
                    r"\text{loss}_t = -\log_2 P(w_{t+1} \mid w_{\le t})"
                    r"\ \text{bits} = \frac{-\ln P(w_{t+1} \mid w_{\le t})}{\ln 2}",
                    rf"\text{{second copy, mean}} = {formula.number(readings.bits(copying.intact.second_copy_loss), 2)}"
                    rf"\ \text{{bits}} = {formula.number(copying.intact.second_copy_loss, copying.nats_places)}"
                    r"\ \text{nats} / \ln 2",
                    caption=_("Each copy's mean leaves out its first token, which no copying can predict."),
                    stacked=True)
        knocked_heads = readings.top_heads(loaders.pretrained_induction_scores(picked), int(STATE["k"]))
        code.show_code({"Python": copying_code(model_path(picked), int(STATE["k"]), int(STATE["length"]),
                                               int(STATE["seed"]), heads=knocked_heads, copying=copying)},
                       name="copying")


# --- 4. the copying probe --------------------------------------------------------------------------------
st.subheader(PARTS["copying"], anchor="copying")
st.markdown(_(
    "A sequence of random tokens, then the same sequence again. The first time, nothing can be guessed. The second "
    "time, a model that copies (find the earlier copy of my token, predict what came after it) gets almost every "
    "token. The Head viewer found the heads that look in that way: induction heads. Knock them out and see whether "
    "the copying goes with them."))
sliders = st.columns(3)
sliders[0].slider(label("k"), 0, MAX_ABLATED,
                  key=STATE.key("k"), on_change=page.only(STATE, COPYING, TRY))
sliders[1].slider(label("length"), *COPY_LENGTHS, key=STATE.key("length"),
                  on_change=page.only(STATE, COPYING, TRY))
sliders[2].number_input(label("seed"), 0, MAX_SEED, key=STATE.key("seed"),
                        on_change=page.only(STATE, COPYING, TRY))
copying_section(model, picked)


@page.section(OWN)
def own_section(live) -> None:
    """Our own model read from the inside: what its model, example, prompt and target change. `live`: the
    session's model from the Block builder (ui.session_slots.LIVE_MODEL), None before one is trained."""
    models = [SHIPPED] + ([LIVE] if live is not None else [])
    if STATE.get("own_model") not in models:
        STATE["own_model"] = SHIPPED
    shipped_config = loaders.shipped_transformer()[0].model.config
    st.markdown(_(
        "The same tools work on the small character-level transformer we ship ({blocks} blocks x {heads} heads, "
        "trained on the plays): read its layers and knock out each head on a prompt of at most {chars} characters.",
        blocks=shipped_config.n_layers, heads=shipped_config.n_heads, chars=limits.HEAD_EFFECTS_MAX_TOKENS))
    box = page.folded(_("Read our model's layers and knock out its heads"), "inside.own",
                      icon=":material/model_training:")
    if not box.open:   # a fifth experiment, on another model: for a second read
        return
    with box:
        st.radio(_("Model"), models, key=STATE.key("own_model"), horizontal=True, format_func=_,
                 on_change=page.only(STATE, OWN))
        if live is None:
            st.caption(_(LIVE_MODEL_NOTE))
        st.selectbox(_("Start from an example"), list(OWN_PRESETS), index=None, format_func=_,
                     placeholder=_("Pick a Shakespeare prompt..."), key=STATE.key("own_preset"),
                     on_change=load_own_preset)
        left, right = st.columns([3, 2])
        left.text_input(label("own_text"), key=STATE.key("own_text"), max_chars=limits.HEAD_EFFECTS_MAX_TOKENS,
                        on_change=page.only(STATE, OWN))
        right.text_input(label("own_target"), key=STATE.key("own_target"), max_chars=limits.TARGET_MAX_CHARS,
                         on_change=page.only(STATE, OWN))
        own_error = st.container()
        own_text, own_target = STATE["own_text"], STATE["own_target"]
        own_live = live if STATE["own_model"] == LIVE else None
        found = page.run_engine(inside_views.own_model, own_text, own_target, own_live,
                                STATE.setdefault("own_results", {}), where=own_error)
        own_lens, own_effects = found if found is not None else (None, None)
        if own_lens is not None and own_effects is not None:
            own_reading = readings.read_lens(own_lens, own_target)
            charts.show(lens_chart(own_lens, slice(None), _("Top next character after each row")))
            heads_column, words_column = st.columns([2, 3])
            with heads_column:
                charts.show(layer_heatmap(
                    own_effects.effects,
                    [_("layer {layer}", layer=layer) for layer in range(own_effects.effects.shape[0])],
                    [f"H{head}" for head in range(own_effects.effects.shape[1])], value_name=_("change in ln P"),
                    diverging=True, digits=2, cell_width=52, cell_height=28, x_title=_("head"),
                    y_title="", label_angle=0, legend_orient="bottom",
                    title=_("Each head knocked out alone: {target}", target=repr(own_effects.target_token))), share=0.4)
            with words_column:
                for sentence in own_reading.sentences[:2]:
                    st.markdown(sentence)
                effects_top = readings.effect_rows(own_effects, 3)
                st.markdown(_("The heads it needs most here: {heads}.", heads=", ".join(
                    f"{row[_('head')]} (P {numbers.fixed(row[_('P with it')], 3)} -> "
                    f"{numbers.fixed(row[_('P without it')], 3)})" for row in effects_top)))


# --- 5. a model of ours ----------------------------------------------------------------------------------
st.subheader(PARTS["your-own-model"], anchor="your-own-model")
own_section(LIVE_MODEL.get())


# --- try this, reading, next ------------------------------------------------------------------------------
late_target = reading is not None and reading.first_top_row is not None and \
    reading.first_top_row < len(reading.layers) - 1
previous_token_knocked = effects is not None and "all previous-token heads" in STATE["heads"] and \
    knocked is not None and knocked.rank_after > 0


@page.section(TRY)
def try_section(model, picked: str, late_target: bool, previous_token_knocked: bool) -> None:
    """The challenges: the copying sliders rerun this too; what the lens and the knock-out found comes from the
    last whole run (their widgets rerun the whole page)."""
    copying = copying_reading(model, picked)
    copying_broken = copying is not None and 0 < int(STATE["k"]) <= 4 and \
        readings.bits(copying.ablated.second_copy_loss) > 7
    challenges.try_this([
        challenges.Challenge(_("In the logit lens, find a text and a target that become the top prediction *before* "
                               "the last block."), done=late_target,
                             hint=_("Facts settle earlier than word games: try '{text}' with '{target}'.",
                                    text=readings.EIFFEL, target=" Paris"),
                             solution={STATE.key("text"): readings.EIFFEL, STATE.key("target"): " Paris"}),
        challenges.Challenge(_("Knock out all previous-token heads and make the target lose its first place."),
                             done=previous_token_knocked,
                             hint=_("Load '{example}' and pick the group '{group}'.", example=readings.MARY,
                                    group=_("all previous-token heads")),
                             solution=dict(zip([STATE.key(f) for f in ("ko_text", "ko_target", "source")],
                                               KNOCK_OUT_PRESETS["Mary had a little (5 tokens)"]))
                             | {STATE.key("heads"): ["all previous-token heads"]}),
        challenges.Challenge(_("Make the second copy cost more than 7 bits per token with at most 4 induction heads "
                               "knocked out."), done=copying_broken,
                             hint=_("Move the first slider one head at a time, down to 4, and watch the orange line."),
                             solution={STATE.key("k"): 4}),
    ])


try_section(model, picked, late_target, previous_token_knocked)

STATE.mirror()
page.further_reading(PAGE.reading)
page.next_idea(__file__)
warmup.prefetch(warmup.INSIDE)
