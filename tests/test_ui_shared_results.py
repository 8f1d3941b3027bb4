"""ui.shared_results: a pure call with the same inputs runs once per process; each caller gets its own copy."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from engine import limits
from engine.attention.learning import learn_query_key
from engine.attention.mechanism import CHAPTER_TOKENS, CHAPTER_X, weights_by_sharpness
from ui import shared_results

CALLS: list[tuple] = []


def counted(x: np.ndarray, scale: float = 1.0) -> dict:
    CALLS.append((x.tobytes(), scale))
    return {"doubled": 2 * x * scale}


def refuses(value: int) -> int:
    CALLS.append((value,))
    raise ValueError(f"{value} is not allowed here.")


@pytest.fixture(autouse=True)
def fresh():
    shared_results.forget()
    CALLS.clear()
    yield
    shared_results.forget()


def test_the_same_inputs_run_once_and_each_caller_gets_its_own_copy():
    x = np.arange(6.0).reshape(2, 3)
    first = shared_results.call(counted, x, scale=2.0)
    second = shared_results.call(counted, x.copy(), scale=2.0)
    assert len(CALLS) == 1
    np.testing.assert_array_equal(first["doubled"], second["doubled"])
    second["doubled"][0, 0] = 99.0            # one session changing what it got
    third = shared_results.call(counted, x, scale=2.0)
    assert third["doubled"][0, 0] == 0.0 and first["doubled"][0, 0] == 0.0


def test_different_inputs_are_different_results():
    x = np.arange(6.0).reshape(2, 3)
    shared_results.call(counted, x, scale=1.0)
    shared_results.call(counted, x, scale=2.0)
    shared_results.call(counted, x.astype(np.float32), scale=1.0)   # same numbers, another dtype
    shared_results.call(counted, x.T.copy(), scale=1.0)             # same numbers, another shape
    assert len(CALLS) == 4


def test_an_error_is_raised_each_time_never_kept():
    for _ in range(2):
        with pytest.raises(ValueError, match="not allowed"):
            shared_results.call(refuses, 3)
    assert len(CALLS) == 2


def test_inputs_whose_contents_are_not_read_just_run():
    lock = threading.Lock()

    def held(lock: threading.Lock, n: int) -> int:
        CALLS.append((n,))
        return n + 1
    held.__qualname__ = "held"                      # a plain name, so only the lock keeps it from being shared
    assert [shared_results.call(held, lock, 1) for _ in range(2)] == [2, 2]
    assert len(CALLS) == 2 and not shared_results._KEPT


def test_lambdas_and_nested_functions_are_never_shared():
    # two lambdas have the same name: sharing by name would hand one the other's result
    assert shared_results.call(lambda: 1) == 1
    assert shared_results.call(lambda: 2) == 2

    def inner(n: int) -> int:
        return n * 10
    assert shared_results.call(inner, 1) == 10 and not shared_results._KEPT


def test_the_store_is_bounded(monkeypatch):
    monkeypatch.setattr(limits, "SHARED_RESULTS_MAX", 3)
    for scale in range(5):
        shared_results.call(counted, np.ones(2), scale=float(scale))
    assert len(shared_results._KEPT) == 3
    shared_results.call(counted, np.ones(2), scale=0.0)   # the oldest was dropped: computed again
    assert len(CALLS) == 6


def test_a_large_result_is_not_kept(monkeypatch):
    monkeypatch.setattr(limits, "SHARED_RESULT_MAX_BYTES", 100)
    shared_results.call(counted, np.ones(1000))
    shared_results.call(counted, np.ones(1000))
    assert len(CALLS) == 2 and not shared_results._KEPT


def test_engine_results_shared_equal_the_engine_s_own():
    sweep = weights_by_sharpness(CHAPTER_X, None, None, query=0, sharpnesses=(0.5, 1.0, 4.0), scale=True,
                                 causal=False)
    for _ in range(2):
        shared = shared_results.call(weights_by_sharpness, CHAPTER_X, None, None, query=0,
                                     sharpnesses=(0.5, 1.0, 4.0), scale=True, causal=False)
        np.testing.assert_array_equal(shared, sweep)
    run = learn_query_key(CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=5)
    again = shared_results.call(learn_query_key, CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=5)
    again = shared_results.call(learn_query_key, CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=5)
    assert [s.loss for s in again.steps] == [s.loss for s in run.steps]
    np.testing.assert_array_equal(again.steps[-1].W_q, run.steps[-1].W_q)


def test_the_pages_shared_results_are_kept_and_equal_inputs_of_another_container_are_another_key():
    shared_results.call(weights_by_sharpness, CHAPTER_X, None, None, query=0, sharpnesses=(0.5, 1.0),
                        scale=True, causal=False)
    shared_results.call(learn_query_key, CHAPTER_X, CHAPTER_TOKENS, 0, 3, steps=5)
    assert len(shared_results._KEPT) == 2          # an array, and a run of dataclasses holding arrays: both sized
    shared_results.call(counted, np.ones(2), scale=1.0)
    shared_results.call(counted, np.ones(2), scale=1)      # an int where a float was: another key, run again
    assert len(CALLS) == 2


def test_a_result_we_cannot_size_is_returned_not_kept():
    def opaque(n: int) -> object:
        CALLS.append((n,))
        return threading.Lock()
    opaque.__qualname__ = "opaque"
    shared_results.call(opaque, 1)
    shared_results.call(opaque, 1)
    assert len(CALLS) == 2 and not shared_results._KEPT
