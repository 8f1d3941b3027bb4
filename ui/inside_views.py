"""The Inside-the-model page's computations, one function per part, through the page's caches (ui.loaders); where a
part is more than one engine call, engine.chapter.inside holds it (the page's spec) and this passes it the caches.

The page calls them with its state; the warm-up (ui.warmup) calls the same functions with the page's examples
(engine.interpret.readings), so what it fills is exactly what a student's first view reads. Each goes through the
cached loaders (ui.loaders), so a second call with the same values costs nothing; a ValueError carries the engine's
sentence for the page to show (ui.page.run_engine).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.chapter import inside
from engine.interpret import readings
from ui import loaders

if TYPE_CHECKING:
    from engine.chapter.inside import HeadScan
    from engine.interpret.interventions import LogitLens
    from engine.interpret.readings import CopyingComparison, KnockOut
    from engine.transformer.language_model import TransformerLanguageModel


def lens(picked: str, text: str, target: str) -> LogitLens:
    """Part 1: the logit lens of the pretrained model called `picked` on `text`, following `target`."""
    return loaders.pretrained_logit_lens(picked, text, target, readings.LENS_TOP_K)


def head_scan(picked: str, text: str, target: str, mode: str) -> HeadScan:
    """Part 2's first computation (engine.chapter.inside.head_scan) through the page's caches."""
    return inside.head_scan(loaders, picked, text, target, mode)


head_groups = inside.head_groups   # the groups a student can knock out at once


def knock_out(picked: str, text: str, target: str, chosen: tuple[tuple[int, int], ...], mode: str) -> KnockOut:
    """Part 2's bars (engine.chapter.inside.knock_out) through the page's caches."""
    return inside.knock_out(loaders, picked, text, target, chosen, mode)


def patching(picked: str, clean: str, corrupt: str, clean_target: str, corrupt_target: str):
    """Part 3: every row x position of the clean run patched into the corrupted one."""
    return loaders.pretrained_patching(picked, clean, corrupt, clean_target, corrupt_target)


def copying(picked: str, knocked_out: int, length: int, seed: int) -> CopyingComparison:
    """Part 4 (engine.chapter.inside.copying) through the page's caches."""
    return inside.copying(loaders, picked, knocked_out, length, seed)


def own_model(text: str, target: str, live: TransformerLanguageModel | None = None, kept: dict | None = None):
    """Part 5: (logit lens, every head knocked out alone) on a model of ours: the shipped character model (cached
    for every session), or the session's live model (kept in `kept`, the page's, for its latest prompt only)."""
    if live is None:
        return (loaders.shipped_logit_lens(text, target, readings.LENS_TOP_K),
                loaders.shipped_head_effects(text, target, "zero"))
    from engine.interpret import interventions

    signature = (id(live), text, target)
    if kept is None or signature not in kept:
        found = (interventions.logit_lens(live, text, k=readings.LENS_TOP_K, target=target),
                 interventions.head_effects(live, text, target))
        if kept is None:
            return found
        kept.clear()
        kept[signature] = found
    return kept[signature]


def example_knock_out(picked: str, text: str, target: str) -> None:
    """Part 2 on one example as the page opens it: the scan, then its group of largest effects knocked out (zero)."""
    scan = head_scan(picked, text, target, "zero")
    groups = head_groups(scan, scan.estimate)
    knock_out(picked, text, target, readings.chosen_heads([readings.largest_effect_group(
        readings.EXAMPLE_GROUP_SIZE)], groups), "zero")


def first_view(picked: str) -> None:
    """What the page computes when it opens on its default examples, part by part in page order."""
    text, target, _ = next(iter(readings.KNOCK_OUT_EXAMPLES.values()))
    lens(picked, *readings.LENS_EXAMPLE)
    example_knock_out(picked, text, target)
    patching(picked, *next(iter(readings.PATCHING_EXAMPLES.values())))
    length, seed, knocked_out = readings.COPYING_EXAMPLE
    copying(picked, knocked_out, length, seed)
    own_model(*next(iter(readings.OWN_EXAMPLES.values())))
