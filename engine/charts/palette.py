"""Every colour the app draws with, defined once: charts, pictures, the block diagram and the pages' HTML.
Colour-blind safe: the blue / orange pair for two things compared, Okabe & Ito's colours beyond two,
viridis and blues for magnitudes, pale orange - white - blue for attention weights against the uniform 1/T;
every colour also has a label or a tooltip."""
from __future__ import annotations

import numpy as np

# The pair every comparison uses: distinguishable with the common colour blindnesses.
BLUE = "#1f6fb4"
ORANGE = "#e08214"
PAIR_COLOURS = [BLUE, ORANGE]

# Okabe & Ito's palette (their blue and orange give way to the pair above where categories are drawn).
OKABE_ORANGE = "#e69f00"
SKY_BLUE = "#56b4e9"
BLUISH_GREEN = "#009e73"
YELLOW = "#f0e442"
OKABE_BLUE = "#0072b2"
VERMILLION = "#d55e00"
REDDISH_PURPLE = "#cc79a7"
BLACK = "#000000"
CATEGORY_COLOURS = [BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW, BLACK]

# Greys, named by their lightness in per cent (GREY is the middle one).
GREY_7 = "#111111"    # text on a token chip
GREY_20 = "#333333"   # a token chip's id
GREY_25 = "#404040"   # text beside a grey line
GREY_27 = "#444444"   # a note above a block of text
GREY_30 = "#4d4d4d"   # the sixth run
GREY_33 = "#555555"   # the block diagram's arrows, "... and more tokens"
GREY = "#7f7f7f"      # baselines, words that are neither, a third bar
GREY_54 = "#8a8a8a"   # a token chip's border
GREY_70 = "#b3b3b3"   # heads of no one type
GREY_74 = "#bdbdbd"   # guide lines (the zoomed ladder's stems)
GREY_87 = "#dddddd"   # the border of a block of text
GREY_97 = "#f7f7f7"   # behind a block of text

# Runs, and kinds of model on the ladder: distinguishable without red/green alone (ColorBrewer's green,
# purple and red after the pair).
GREEN = "#2ca25f"
PURPLE = "#7b3294"
RED = "#d7191c"
RUN_COLOURS = [BLUE, ORANGE, GREEN, PURPLE, RED, GREY_30]

# Head types (engine.interpret.heads.TYPES) in Okabe & Ito's colours; the type is also written in every tooltip.
# Induction is sky blue, not vermillion: vermillion and orange (previous-token) nearly merge for deuteranopes
# (CIE Lab distance 18 under Machado et al.'s simulation; sky blue and orange: over 85 for every kind).
TYPE_COLOURS = {
    "previous-token": OKABE_ORANGE,
    "first-token": OKABE_BLUE,
    "self": BLUISH_GREEN,
    "broad": REDDISH_PURPLE,
    "induction": SKY_BLUE,
    "mixed": GREY_70,
}

# Light tints: boxes of the block diagram, token chips (black text stays readable on each).
PALE_BLUE = "#eef4fb"
PALE_ORANGE = "#fdf0e1"
BLUE_TINT = "#cfe3f5"
ORANGE_TINT = "#fbdcc0"
GREEN_TINT = "#c9ecdf"
PURPLE_TINT = "#f2d7e7"
SKY_TINT = "#d8ecf8"
VERMILLION_TINT = "#f5d3c1"
CHIP_TINTS = [BLUE_TINT, ORANGE_TINT, GREEN_TINT, PURPLE_TINT, SKY_TINT, VERMILLION_TINT]

WHITE = "#ffffff"
MASKED = "#ebebeb"   # the future a causal head cannot see
# Attention weights against the uniform weight 1/T of their row (engine.charts.heatmaps.uniform_shades):
# below it orange, at it white, above it blue; full blue is weight 1, and weight 0 is a pale orange, quiet: a weight
# of 0 is attention withheld, and drawn as loud as a weight of 1 a row of zeros read as "strong" (the protein's
# heatmap, mostly zeros, came out a wall of orange round its few blue cells).
QUIET_ORANGE = ORANGE_TINT
UNIFORM_SCALE = [QUIET_ORANGE, WHITE, BLUE]
# A signed change (a head knocked out: the change in ln P; a patch: the share restored): orange where it fell,
# white at 0, blue where it rose, the meaning the pair has on every page (blue more, orange less).
CHANGE_SCALE = [ORANGE, WHITE, BLUE]
# Viridis at ten evenly spaced points (matplotlib's table); linear between them is close to the original.
VIRIDIS = np.array([[68, 1, 84], [72, 40, 120], [62, 73, 137], [49, 104, 142], [38, 130, 142],
                    [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]]) / 255
# Vega colour schemes that are dark at their low end: numbers printed there are white.
DARK_LOW_SCHEMES = {"viridis", "magma", "inferno", "plasma", "cividis", "darkblue", "darkgreen", "darkgold", "darkred"}


def rgb(colour: str) -> np.ndarray:
    """'#rrggbb' -> its red, green and blue, 0..255, as floats."""
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)


def relative_luminance(colour) -> float | np.ndarray:
    """WCAG's relative luminance of '#rrggbb' or of (..., 3) RGB values 0..255: 0 black, 1 white."""
    channels = (rgb(colour) if isinstance(colour, str) else np.asarray(colour, dtype=float)) / 255
    linear = np.where(channels <= 0.03928, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def ink(colour) -> str:
    """"black" or "white", whichever contrasts more with a cell of this colour (WCAG contrast ratio): the
    colour of a number printed in it."""
    lum = float(relative_luminance(colour))
    return "white" if (1.05 / (lum + 0.05)) > ((lum + 0.05) / 0.05) else "black"
