"""The Inside-the-model page's examples and choices, without torch (engine.chapter.inside reads them at import;
engine.interpret.readings re-exports them for the code that reads them there)."""
from __future__ import annotations

from engine.i18n import N_, _

MODES = ("zero", "mean")      # how a knocked-out head is replaced (engine.interpret.interventions)
# a group's and an example's name is a link's value; the page shows it as _(name)
GROUP_PATTERNS = {N_("all previous-token heads"): "previous-token", N_("all induction heads"): "induction"}


def head_label(layer: int, head: int) -> str:
    """(17, 4) -> 'L17H4'."""
    return f"L{int(layer)}H{int(head)}"


def every_head_label(n_layers: int, n_heads: int) -> list[str]:
    """'L0H0', 'L0H1', ... layer by layer."""
    return [head_label(layer, head) for layer in range(n_layers) for head in range(n_heads)]


def largest_effect_group(k: int) -> str:
    """The group's name as a link and the page's choices keep it (head_groups' key): English, whatever the reader's
    language (readings.largest_effect_label is what the page shows)."""
    return f"the {k} heads with the largest effect"


def shown_choice(name: str) -> str:
    """A group's or an example's name (a link's value) as the page shows it; a head's label (L17H4) as it is."""
    return _(name)


# --- the page's examples (each patching pair has equal token counts: tests/engine checks it) ---------------

MARY = "Mary had a little"
NAMES = "When Mary and John went to the store, John gave a drink to"
EIFFEL = "The Eiffel Tower is in the city of"
LENS_EXAMPLE = (MARY, " lamb")
KNOCK_OUT_EXAMPLES = {      # prompt, target, source position (what the last token should read)
    N_("Who gets the drink? (names, 15 tokens)"): (NAMES, " Mary", 2),
    N_("Mary had a little (5 tokens)"): (MARY, " lamb", 1),
    N_("The Eiffel Tower (10 tokens)"): (EIFFEL, " Paris", 3),
}
PATCHING_EXAMPLES = {       # clean, corrupted, clean target, corrupted target
    N_("Eiffel Tower -> Colosseum (10 tokens)"): (EIFFEL, "The Colosseum is in the city of", " Paris", " Rome"),
    N_("Capital of France -> Italy (6 tokens)"): ("The capital of France is", "The capital of Italy is", " Paris",
                                                  " Rome"),
    N_("Who gets the drink? John -> Mary (15 tokens)"): (
        NAMES, "When Mary and John went to the store, Mary gave a drink to", " Mary", " John"),
}
COPYING_EXAMPLE = (30, 1, 5)   # random tokens per copy, seed, induction heads knocked out
OWN_EXAMPLES = {            # a Shakespeare prompt of at most 24 characters and the character after it
    N_("To be, or not to b -> e"): ("To be, or not to b", "e"),
    N_("And the king and the ki -> n (copying)"): ("And the king and the ki", "n"),
}
EXAMPLE_GROUP_SIZE = 5         # the knock-out example's group: the 5 heads with the largest effect
LENS_TOP_K = 3                 # tokens the page keeps per cell of a logit lens
BARS_TOP_K = 10                # next tokens drawn before and after a knock-out
