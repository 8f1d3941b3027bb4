"""Pure results every session of this server process shares: the same call with the same inputs runs once.

When the teacher moves a class ("Everyone follow me"), every following student's session runs the same page
with the same link values within a second or two: each would compute the same engine results.
`call` keeps a result per process, keyed by the function's name and a digest of its inputs' contents, for the
next session that asks; each caller gets its own copy (copy.deepcopy), so a page that changes what it got
changes nothing another sees. Bounded: SHARED_RESULTS_MAX entries (least recently used dropped), none over
SHARED_RESULT_MAX_BYTES. Inputs are read, never serialised: plain values, numpy arrays, and lists, tuples and
dicts of them. A call of a lambda or a nested function, or with any other input (a model, a lock), simply runs;
so does one whose result holds something we cannot size. An error is raised, never kept.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import threading
from collections import OrderedDict
from typing import Callable, TypeVar

import numpy as np

from engine import limits

T = TypeVar("T")

_KEPT: OrderedDict[bytes, object] = OrderedDict()  # key digest -> a copy of the result, which nobody else holds
_LOCK = threading.Lock()                           # script threads of many sessions read and write at once
_SCALARS = (type(None), bool, int, float, complex, str, bytes)


class _Unkeyable(Exception):
    """An input whose contents we do not read: the call is not shared."""


def _refuse(value):
    raise _Unkeyable


def _plain(value) -> str | None:
    """A container of plain values only (str, numbers, None, lists, tuples, dicts) written out exactly by repr
    (floats round-trip; tuple and list, int and float stay apart), checked by the json module first (both in C,
    several times quicker than walking it in Python); None for anything else inside."""
    try:
        json.dumps(value, default=_refuse)
    except (_Unkeyable, TypeError, ValueError, RecursionError):
        return None
    return repr(value)


def _feed(digest, value) -> None:
    """Feed a value's type and contents to the digest (equal contents, equal bytes; another type, other bytes)."""
    if isinstance(value, _SCALARS):
        digest.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise _Unkeyable
        digest.update(f"nd:{value.dtype.str}:{value.shape};".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, np.generic):
        _feed(digest, value.item())
        digest.update(value.dtype.str.encode())
    elif isinstance(value, (list, tuple, dict)) and (written := _plain(value)) is not None:
        digest.update(f"plain[{len(written)}]:".encode() + written.encode())
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}[{len(value)}];".encode())
        for item in value:
            _feed(digest, item)
    elif isinstance(value, dict):
        digest.update(f"dict[{len(value)}];".encode())
        for name, item in value.items():   # insertion order: a dict made another way is another key, never wrong
            _feed(digest, name)
            _feed(digest, item)
    else:
        raise _Unkeyable


def _key(fn: Callable, args: tuple, kwargs: dict) -> bytes | None:
    name = getattr(fn, "__qualname__", "<unknown>")
    if "<" in name:     # a lambda or a function made inside another: its name does not say what it computes
        return None
    digest = hashlib.blake2b(digest_size=20)
    try:
        _feed(digest, (getattr(fn, "__module__", None), name, args, sorted(kwargs.items())))
    except _Unkeyable:
        return None
    return digest.digest()


def _size(value, depth: int = 0) -> int | None:
    """About how many bytes a result holds; None for anything we cannot size (not kept)."""
    if depth > 32:
        return None
    if isinstance(value, np.ndarray):
        return None if value.dtype.hasobject else value.nbytes
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, (list, tuple, dict)) and (written := _plain(value)) is not None:
        return len(written)
    if isinstance(value, _SCALARS) or isinstance(value, np.generic):
        return 8
    if isinstance(value, dict):
        parts = [_size(part, depth + 1) for pair in value.items() for part in pair]
    elif isinstance(value, (list, tuple)):
        parts = [_size(item, depth + 1) for item in value]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [_size(getattr(value, field.name), depth + 1) for field in dataclasses.fields(value)]
    else:
        return None
    return None if None in parts else 8 + sum(parts)


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
    size = _size(result)
    if size is None or size > limits.SHARED_RESULT_MAX_BYTES:   # unknown or large: not kept
        return result
    try:
        kept = copy.deepcopy(result)
    except Exception:   # a result that does not copy: not shared
        return result
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
