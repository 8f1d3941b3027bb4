"""ui.loaders: one cache entry, and one copy in memory, per heavy object."""
from __future__ import annotations

import inspect

import ui.loaders as loaders


def cached_loaders():
    for name, value in vars(loaders).items():
        if callable(value) and hasattr(value, "clear") and getattr(value, "__module__", "") == loaders.__name__:
            yield name, value


def test_there_are_cached_loaders_to_check():
    assert {"tokenized", "ngram_counts", "held_out", "glove", "smollm2"} <= {name for name, _ in cached_loaders()}


def test_no_cached_loader_has_a_default_argument():
    # Streamlit keys its cache on the arguments as passed: a default left out and the same default
    # written out are two entries, each with its own copy (this once held the word counts twice).
    for name, loader in cached_loaders():
        defaults = [p.name for p in inspect.signature(loader).parameters.values() if p.default is not p.empty]
        assert not defaults, f"ui.loaders.{name} has defaults {defaults}: make every caller pass them"
    # without defaults a call that leaves an argument out is a TypeError, not a second copy

