"""A slider of decimal numbers that prints them as the page's text does. Streamlit's slider prints its numbers with
sprintf, with a point in every language: a Spanish page read "temperatura 0.80" on the slider beside "0,80" in its
sentences. Where the reader's decimal sign is not a point, the same values are offered by a select slider whose
labels engine.numbers prints (0,80); the value it returns is the same float, so links, the class and the engine
read it as before."""
from __future__ import annotations

import math

import streamlit as st

from engine import numbers


def decimals(step: float) -> int:
    """How many decimals a slider of this step prints (0.05: 2, 0.25: 2, 0.1: 1)."""
    text = f"{step:.10f}".rstrip("0")
    return max(len(text.partition(".")[2]), 1)


def grid(low: float, high: float, step: float) -> list[float]:
    """Every value of a slider from `low` to `high` by `step`, rounded as a link would write it."""
    count = int(math.floor((high - low) / step + 1e-9))
    return [round(low + i * step, 10) for i in range(count + 1)]


def slider(where, label: str, low: float, high: float, *, step: float, key: str, **options):
    """`where.slider(label, low, high, step=step, key=key, **options)`, its numbers in the reader's decimal sign."""
    if numbers.localized("0.5") == "0.5":
        return where.slider(label, low, high, step=step, key=key, **options)
    values = grid(low, high, step)
    held = st.session_state.get(key)
    if held is not None and held not in values:      # a value off the grid (a link): the nearest on it
        st.session_state[key] = min(values, key=lambda value: abs(value - float(held)))
    digits = decimals(step)
    labels = {value: numbers.fixed(value, digits) for value in values}   # printed now, in the reader's language
    return where.select_slider(label, options=values, key=key, format_func=labels.__getitem__, **options)
