"""engine.transformer.training_jobs: the gate queues, jobs train in worker threads behind it and yield the CPU to
page reruns (the gate with other processes holding the machine's slots: test_machine_slots.py)."""
from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np
import pytest
import torch

from engine import limits
from engine.transformer.training_jobs import (
    GATE, TRAINING_NICENESS, TrainingGate, TrainingJob, live_job, yield_to_pages
)
from engine.transformer.config import PRESETS, TransformerConfig
from engine.transformer.model import TransformerLM
from engine.transformer.training import TrainConfig

CONFIG = TransformerConfig(vocab_size=5, context_length=16, d_model=32, n_heads=4, d_ff=64, n_layers=2,
                           layer_norm="pre", positional="learned", final_norm=True)


def pattern_ids(n: int, seed: int = 0) -> np.ndarray:
    """'abcd' repeated with the odd random letter (as in test_training.py)."""
    rng = np.random.default_rng(seed)
    ids = np.tile(np.arange(4), n // 4 + 1)[:n]
    ids[rng.random(n) < 0.05] = 4
    return ids


def model(seed: int = 0) -> TransformerLM:
    torch.manual_seed(seed)
    return TransformerLM(CONFIG)


def test_the_gate_queues_and_lets_waiting_runs_leave():
    gate = TrainingGate(slots=1, max_waiting=2)
    never = threading.Event()
    gate.join(1)
    assert gate.position(1) == 1
    assert gate.wait_turn(1, never) and gate.position(1) == 0 and gate.running == 1
    gate.join(2)
    gate.join(3)
    assert (gate.position(2), gate.position(3)) == (1, 2)
    with pytest.raises(ValueError, match="Try again"):
        gate.join(4)
    cancelled = threading.Event()
    cancelled.set()
    assert gate.wait_turn(3, cancelled) is False and gate.position(2) == 1
    gate.leave(1)
    assert gate.wait_turn(2, never) and gate.running == 1


def test_jobs_run_in_worker_threads_behind_the_gate():
    gate = TrainingGate(slots=1, max_waiting=4)
    slow = TrainConfig(max_steps=20_000, eval_every=10_000, eval_batches=1, batch_size=2)
    first = TrainingJob(model(), pattern_ids(3000), pattern_ids(500, 1), slow, gate=gate)
    second = TrainingJob(model(1), pattern_ids(3000), pattern_ids(500, 1),
                         TrainConfig(max_steps=3, eval_every=3, eval_batches=1), gate=gate)
    deadline = time.time() + 10
    while first.state != "running" and time.time() < deadline:
        time.sleep(0.01)
    assert first.state == "running" and second.state == "waiting" and second.queue_position == 1
    first.stop()
    first.join(10)
    second.join(10)
    assert first.state == "stopped" and first.result.stopped_by == "stop"
    assert second.state == "done" and second.result.steps[-1] == 3 and gate.running == 0
    assert GATE.slots == GATE.machine.count == limits.MAX_TRAININGS_PER_MACHINE


def test_a_live_job_is_a_fresh_seeded_model_of_the_tokenizers_vocabulary():
    schedule = TrainConfig(max_steps=2, eval_every=2, eval_batches=1, seed=3)
    gate = TrainingGate(slots=2, max_waiting=4)
    jobs = []
    for _ in range(2):   # one after the other: the seed is torch's global one
        jobs.append(live_job(CONFIG, 7, pattern_ids(500), pattern_ids(200, 1), schedule, gate=gate))
        jobs[-1].join(30)
    first, second = jobs
    for job in jobs:
        assert job.state == "done" and job.result.steps[-1] == 2 and job.model.config.vocab_size == 7
    torch.testing.assert_close(first.model.token_embedding.weight, second.model.token_embedding.weight,
                               rtol=0, atol=0)
    assert gate.running == 0
    with pytest.raises(ValueError, match="limited to"):
        live_job(PRESETS["GPT-2 small"], 50257, pattern_ids(500), pattern_ids(200, 1), TrainConfig(), gate=gate)


def test_page_trainings_yield_the_cpu_to_page_reruns_on_linux():
    seen = {}

    def worker():
        yield_to_pages()
        seen["worker"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before  # only that thread
    if sys.platform.startswith("linux"):
        assert seen["worker"] >= min(before + TRAINING_NICENESS, 19)
