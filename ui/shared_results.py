"""Pure results every session of this server process shares: the same call with the same inputs runs once.

When the teacher moves a class ("Everyone follow me"), every following student's session runs the same page
with the same link values within a second or two: each would compute the same engine results and chart texts.
`call` keeps a result per process, keyed by the function and its pickled inputs, for the next session that asks;
each caller gets its own copy (copy.deepcopy), so a page that changes what it got changes nothing another sees.
Bounded: SHARED_RESULTS_MAX entries (least recently used dropped), none over SHARED_RESULT_MAX_BYTES.
A call of a lambda or a nested function, or whose inputs or result do not pickle (a model), simply
runs; an error is raised, never kept.
"""
from __future__ import annotations

import copy
import hashlib
import pickle
import threading
from collections import OrderedDict
from typing import Callable, TypeVar

from engine import limits

T = TypeVar("T")

_KEPT: OrderedDict[bytes, object] = OrderedDict()  # key digest -> a copy of the result, which nobody else holds
_LOCK = threading.Lock()                           # script threads of many sessions read and write at once


def _key(fn: Callable, args: tuple, kwargs: dict) -> bytes | None:
    name = getattr(fn, "__qualname__", "<unknown>")
    if "<" in name:     # a lambda or a function made inside another: its name does not say what it computes
        return None
    try:
        inputs = pickle.dumps((fn.__module__, name, args, sorted(kwargs.items())),
                              protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:   # an input that does not pickle (a lambda, a lock): not shared
        return None
    return hashlib.blake2b(inputs, digest_size=20).digest()


def call(fn: Callable[..., T], *args, **kwargs) -> T:
    """fn(*args, **kwargs), computed once per process for the same inputs (fn must be pure: its result depends
    on its arguments only); the caller's own copy."""
    key = _key(fn, args, kwargs)
    if key is None:
        return fn(*args, **kwargs)
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is not None:
            _KEPT.move_to_end(key)
    if kept is not None:
        return copy.deepcopy(kept)
    result = fn(*args, **kwargs)
    try:
        size = len(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))   # its size only
        kept = copy.deepcopy(result)
    except Exception:   # a result that does not pickle or copy: not shared
        return result
    if size <= limits.SHARED_RESULT_MAX_BYTES:
        with _LOCK:
            _KEPT[key] = kept
            _KEPT.move_to_end(key)
            while len(_KEPT) > limits.SHARED_RESULTS_MAX:
                _KEPT.popitem(last=False)
    return result


def forget() -> None:
    """Drop every kept result (tests)."""
    with _LOCK:
        _KEPT.clear()
