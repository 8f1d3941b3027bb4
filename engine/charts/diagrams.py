"""Diagrams that are not Vega-Lite: the Block builder's data flow, laid out here and written as SVG.

The stack has a fixed topology: one column of boxes from token ids to the softmax, the block's boxes
inside a dashed frame "repeated N times", the shape on each arrow, and (residual on) two dashed arrows
that carry a sublayer's input around it to its add. The switches only show or hide boxes (positions,
rotary, final LayerNorm), change their text and add or drop the residual arrows, so the layout is a few
sums, not a graph layout: no Graphviz, and the same picture on every machine.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.charts.palette import BLACK, BLUE, GREY_33, ORANGE, PALE_BLUE, PALE_ORANGE
from engine.charts.style import MIN_TEXT_SIZE, text_width
from engine.i18n import _, ngettext
from engine.numbers import grouped

if TYPE_CHECKING:  # engine.transformer.model imports torch; the diagram only reads a stage's fields
    from engine.transformer.config import Stage

FONT = "Helvetica, Arial, Liberation Sans, sans-serif"
BOX_FONT_PX = 14            # the boxes' text
LABEL_FONT_PX = 13          # shapes on the arrows, the frame's title, "residual"
LINE_PX = 17                # one line of a box
PAD_X, PAD_Y = 10, 6        # text to a box's border
MAX_LINE_PX = 420           # a formula longer than this wraps at a space
MIN_LINE_PX = 120           # ... and no narrower, however narrow the column (fitted_layout)
WRAP_STEP_PX = 20           # fitted_layout narrows the lines this much at a time
GAP_PX = 34                 # an arrow between two boxes, its shape beside it
FRAME_HEAD_PX = 28          # the block's frame, above its first box: the title
FRAME_PAD_PX = 12           # the frame around the block's boxes
TITLE_INSET_PX = 10         # the frame's title from its left side
LANE_PX = 22                # a residual arrow runs this far right of the widest box it passes
MARGIN_PX = 8
ARROW_HEAD_PX = 8
CORNER_PX = 8
# the sublayers whose add a residual arrow feeds, and the box each arrow leaves from (None: the block's input)
RESIDUALS = (("attention sublayer", None), ("feed-forward sublayer", "attention sublayer"))

ARABIC_EM = 0.6              # an Arabic letter's advance, of the font size (Noto Sans Arabic's run about 0.5)


def _width(text: str, font_px: float) -> float:
    """The width of a line in px: Helvetica's for Latin letters (text_width, which counts any other letter as the
    widest, room enough for Chinese and Korean); Arabic letters, joined and narrower, at ARABIC_EM."""
    arabic = sum(1 for c in text if "\u0600" <= c <= "\u06ff")
    if not arabic:
        return text_width(text, font_px)
    rest = "".join(c for c in text if not "\u0600" <= c <= "\u06ff")
    return text_width(rest, font_px) + arabic * ARABIC_EM * font_px


def _wrapped(text: str, font_px: float = BOX_FONT_PX, max_px: float = MAX_LINE_PX) -> list[str]:
    """The text in lines of at most max_px (a single word longer than that keeps a line of its own)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and _width(f"{lines[-1]} {word}", font_px) <= max_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(grouped(n) for n in shape) + ")"   # grouped as the parameters below them (50.257 in es)


@dataclass(frozen=True)
class Box:
    """One stage's box: its lines of text, top-left corner and size (px)."""
    name: str
    lines: tuple[str, ...]
    x: float
    y: float
    width: float
    height: float
    in_block: bool

    @property
    def bottom(self) -> float:
        return self.y + self.height

    @property
    def right(self) -> float:
        return self.x + self.width


@dataclass(frozen=True)
class Arrow:
    """The arrow from one box down to the next, with the shape of what it carries."""
    x: float
    top: float
    bottom: float
    label: str
    label_y: float          # the label's baseline; it starts just right of the arrow


@dataclass(frozen=True)
class Residual:
    """A residual arrow: leaves the main arrow at (x, start_y), runs down at lane_x, ends on target's right side."""
    x: float
    start_y: float
    lane_x: float
    end_y: float
    end_x: float
    target: str


@dataclass(frozen=True)
class Frame:
    """The block's dashed frame and its title."""
    x: float
    y: float
    width: float
    height: float
    title: str


@dataclass(frozen=True)
class BlockLayout:
    """Everything the diagram draws, placed; width and height of the whole picture (px)."""
    width: float
    height: float
    boxes: tuple[Box, ...]
    arrows: tuple[Arrow, ...]
    frame: Frame | None
    residuals: tuple[Residual, ...]
    residual_label: str = "residual"    # the word beside each residual arrow, in the reader's language


def block_layout(stages: list[Stage], n_layers: int, residual: bool, *, max_line_px: float = MAX_LINE_PX
                 ) -> BlockLayout:
    """One column of boxes, top to bottom, centred; the block's boxes framed; residual arrows on the right. Every
    word in the reader's language (a stage's title; its formula as the stage wrote it); a box's lines wrap at
    `max_line_px` (at a space)."""
    texts = [(*_wrapped(s.title or s.name, max_px=max_line_px), *_wrapped(s.formula, max_px=max_line_px),
              *(_wrapped(ngettext("{n} parameter", "{n} parameters", s.parameters, n=grouped(s.parameters)),
                         max_px=max_line_px) if s.parameters else []))
             for s in stages]
    widths = [max(_width(line, BOX_FONT_PX) for line in lines) + 2 * PAD_X for lines in texts]
    inside = [i for i, s in enumerate(stages) if s.in_block]
    names = [s.name for s in stages]
    drawn = [(target, source) for target, source in RESIDUALS
             if residual and inside and target in names and (source is None or source in names)]
    title = ngettext("block, repeated N = {n} time", "block, repeated N = {n} times", n_layers)
    residual_word = _("residual")

    # vertical: boxes and gaps; the gap into the block holds the frame's title, the gap out of it its bottom pad
    tops, y = [], MARGIN_PX
    frame_top = frame_bottom = 0.0
    for i in range(len(stages)):
        if i:
            y += GAP_PX
            if inside and i == inside[0]:
                frame_top = y
                y += FRAME_HEAD_PX
            if inside and i == inside[-1] + 1:
                y += FRAME_PAD_PX
        tops.append(y)
        y += len(texts[i]) * LINE_PX + 2 * PAD_Y
    if inside:
        frame_bottom = tops[inside[-1]] + len(texts[inside[-1]]) * LINE_PX + 2 * PAD_Y + FRAME_PAD_PX
    height = y + MARGIN_PX

    # horizontal: the column's centre leaves room for the widest box, and for the frame around the block's boxes
    half = max(widths) / 2
    block_half = max((widths[i] / 2 for i in inside), default=0) + FRAME_PAD_PX
    # the frame's title sits top left, clear of the arrow down the middle
    block_left = max(block_half, TITLE_INSET_PX + _width(title, LABEL_FONT_PX) + 6) if inside else 0
    centre = MARGIN_PX + max(half, block_left)
    boxes = tuple(Box(names[i], texts[i], centre - widths[i] / 2, tops[i], widths[i],
                      len(texts[i]) * LINE_PX + 2 * PAD_Y, stages[i].in_block) for i in range(len(stages)))
    by_name = {box.name: box for box in boxes}

    arrows = []
    for i in range(len(stages) - 1):
        top, bottom = boxes[i].bottom, boxes[i + 1].y
        label = _shape(stages[i].shape)
        # the label sits in the middle of the arrow's free part: below a residual's branch, above the frame
        free_top = top + (8 if any(source == names[i] for _, source in drawn) else 0)
        free_bottom = frame_top if inside and i + 1 == inside[0] else bottom
        arrows.append(Arrow(centre, top, bottom, label, (free_top + free_bottom) / 2 + LABEL_FONT_PX * 0.35))

    residuals = []
    right = max(box.right for box in boxes)
    for target, source in drawn:
        if source is None:   # the block's input: where the arrow into the block crosses the frame's title line
            start = frame_top + FRAME_HEAD_PX / 2
            passed = [boxes[i] for i in inside if boxes[i].y < by_name[target].y] + [by_name[target]]
        else:
            start = by_name[source].bottom + 5
            passed = [box for box in boxes if by_name[source].bottom < box.y <= by_name[target].y]
        lane = max(box.right for box in passed) + LANE_PX
        end = by_name[target]
        residuals.append(Residual(centre, start, lane, end.y + end.height / 2, end.right, target))
        right = max(right, lane + 6 + _width(residual_word, LABEL_FONT_PX))
    right = max([right] + [a.x + 6 + _width(a.label, LABEL_FONT_PX) for a in arrows])
    frame = None
    if inside:
        frame_right = max([boxes[i].right for i in inside] + [r.lane_x + 6 + _width(residual_word, LABEL_FONT_PX)
                                                              for r in residuals]) + FRAME_PAD_PX
        frame = Frame(centre - block_left, frame_top, frame_right - (centre - block_left), frame_bottom - frame_top,
                      title)
        right = max(right, frame_right)
    return BlockLayout(round(right + MARGIN_PX), round(height), boxes, tuple(arrows), frame, tuple(residuals),
                       residual_word)


def fitted_layout(stages: list[Stage], n_layers: int, residual: bool, column_px: float | None) -> BlockLayout:
    """The layout for a column `column_px` wide (None: not known, the layout as built), where the picture is scaled
    to the column's width: its boxes' lines wrap narrower, step by WRAP_STEP_PX down to MIN_LINE_PX, until the
    smallest text scaled down to the column is still MIN_TEXT_SIZE px (Arabic on a 390 px phone: 13 px labels in a
    586 px picture drawn 350 px wide were under 8 px)."""
    layout = block_layout(stages, n_layers, residual)
    if column_px is None:
        return layout
    widest = column_px * min(BOX_FONT_PX, LABEL_FONT_PX) / MIN_TEXT_SIZE   # px the picture may take, drawn at scale
    line_px = MAX_LINE_PX
    while layout.width > widest and line_px > MIN_LINE_PX:
        line_px = max(line_px - WRAP_STEP_PX, MIN_LINE_PX)
        layout = block_layout(stages, n_layers, residual, max_line_px=line_px)
    return layout


def _text(x: float, y: float, text: str, font_px: float, anchor: str = "middle", fill: str = BLACK) -> str:
    """One line of text; textLength holds it to Helvetica's width where the browser draws another font. A line with
    letters beyond ASCII (Chinese, Korean, Arabic, an accent) is drawn at its font's own width: text_width counts
    each such letter as the widest, room enough, and holding Arabic to that length would stretch it."""
    fitted = (f' textLength="{_width(text, font_px):.1f}" lengthAdjust="spacingAndGlyphs"' if text.isascii()
              else "")
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{font_px}" text-anchor="{anchor}" fill="{fill}"{fitted}>'
            f'{html.escape(text)}</text>')


def _head(x: float, y: float, direction: str, colour: str) -> str:
    """A filled arrow head whose tip is (x, y), pointing down or left."""
    h, w = ARROW_HEAD_PX, ARROW_HEAD_PX / 2
    points = ([(x, y), (x - w, y - h), (x + w, y - h)] if direction == "down"
              else [(x, y), (x + h, y - w), (x + h, y + w)])
    return f'<polygon points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in points)}" fill="{colour}"/>'


def block_svg(layout: BlockLayout) -> str:
    """The layout as an SVG document."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{layout.width}" height="{layout.height}" '
             f'viewBox="0 0 {layout.width} {layout.height}" font-family="{FONT}">',
             f'<rect width="{layout.width}" height="{layout.height}" fill="white"/>']
    if layout.frame is not None:
        f = layout.frame
        parts += [f'<rect x="{f.x:.1f}" y="{f.y:.1f}" width="{f.width:.1f}" height="{f.height:.1f}" rx="{CORNER_PX}" '
                  f'fill="none" stroke="{ORANGE}" stroke-dasharray="5,2"/>',
                  _text(f.x + TITLE_INSET_PX, f.y + FRAME_HEAD_PX / 2 + LABEL_FONT_PX * 0.35, f.title, LABEL_FONT_PX,
                        "start")]
    for a in layout.arrows:
        parts += [f'<path d="M{a.x:.1f},{a.top:.1f} V{a.bottom - ARROW_HEAD_PX:.1f}" stroke="{GREY_33}" fill="none"/>',
                  _head(a.x, a.bottom, "down", GREY_33), _text(a.x + 6, a.label_y, a.label, LABEL_FONT_PX, "start")]
    for r in layout.residuals:
        c = CORNER_PX
        parts += [f'<circle cx="{r.x:.1f}" cy="{r.start_y:.1f}" r="3" fill="{ORANGE}"/>',
                  f'<path d="M{r.x:.1f},{r.start_y:.1f} H{r.lane_x - c:.1f} Q{r.lane_x:.1f},{r.start_y:.1f} '
                  f'{r.lane_x:.1f},{r.start_y + c:.1f} V{r.end_y - c:.1f} Q{r.lane_x:.1f},{r.end_y:.1f} '
                  f'{r.lane_x - c:.1f},{r.end_y:.1f} H{r.end_x + ARROW_HEAD_PX:.1f}" stroke="{ORANGE}" '
                  'stroke-dasharray="5,3" fill="none"/>',
                  _head(r.end_x, r.end_y, "left", ORANGE),
                  _text(r.lane_x + 6, (r.start_y + r.end_y) / 2 + LABEL_FONT_PX * 0.35, layout.residual_label,
                        LABEL_FONT_PX, "start")]
    for b in layout.boxes:
        fill, stroke = (PALE_ORANGE, ORANGE) if b.in_block else (PALE_BLUE, BLUE)
        parts.append(f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.width:.1f}" height="{b.height:.1f}" '
                     f'rx="{CORNER_PX}" fill="{fill}" stroke="{stroke}"/>')
        centre = b.x + b.width / 2
        parts += [_text(centre, b.y + PAD_Y + (k + 0.5) * LINE_PX + BOX_FONT_PX * 0.35, line, BOX_FONT_PX)
                  for k, line in enumerate(b.lines)]
    parts.append("</svg>")
    return "\n".join(parts)


def block_diagram(stages: list[Stage], n_layers: int, residual: bool, *, column_px: float | None = None) -> str:
    """SVG: one box per stage, the shape on each arrow, the block drawn once inside 'repeated N times'; fitted to a
    column `column_px` wide where it is known (fitted_layout)."""
    return block_svg(fitted_layout(stages, n_layers, residual, column_px))
