"""Trainings started from a page: a worker thread each, behind a gate shared by the whole machine.

- TrainingGate, GATE: at most `limits.MAX_TRAININGS_PER_MACHINE` runs at once on the machine, across every
  server process behind a load balancer (engine.machinery.machine_slots); the others wait in line, first come
  first served within their process, and know their place.
- yield_to_pages: a worker thread lowers its own CPU priority, so the pages of a class rerun first.
- TrainingJob, live_job: one run of engine.transformer.training.train in a worker thread: the page stays live,
  polls its progress and can stop it.

The training loop itself is engine.transformer.training; torch is imported only when a job is made.
"""
from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Callable

from engine import limits
from engine.i18n import N_, _
from engine.machinery.machine_slots import MachineSlots

if TYPE_CHECKING:
    from engine.transformer.config import TransformerConfig
    from engine.transformer.model import TransformerLM
    from engine.transformer.training import Progress, TrainConfig, TrainResult


class TrainingGate:
    """At most `slots` trainings at once; the rest wait first come, first served.

    Within the process a line of tickets; with `machine` (shared slots, `engine.machinery.machine_slots`)
    the first in line, once one of this process's `slots` is free, also needs a machine slot
    and polls for one every `POLL_S`, so all the processes of a machine together run at most
    `machine.count`. Without `machine` the limit holds for this process only.
    """

    POLL_S = 0.2

    def __init__(self, slots: int, max_waiting: int, machine: MachineSlots | None = None, what: str = N_("trainings")):
        self.slots, self.max_waiting, self.machine, self.what = slots, max_waiting, machine, what
        self._condition = threading.Condition()
        self._running: dict[int, int | None] = {}   # ticket -> machine slot it holds
        self._waiting: list[int] = []

    def join(self, ticket: int) -> None:
        with self._condition:
            if len(self._waiting) >= self.max_waiting:
                raise ValueError(_("{n} {what} are running and {waiting} are waiting, the most this server allows. "
                                   "Try again in a minute.", n=len(self._running), what=_(self.what),
                                   waiting=len(self._waiting)))
            self._waiting.append(ticket)

    def position(self, ticket: int) -> int:
        """0 when running or done; otherwise 1 for first in line, 2 for second, ..."""
        with self._condition:
            return self._waiting.index(ticket) + 1 if ticket in self._waiting else 0

    def wait_turn(self, ticket: int, stop: threading.Event) -> bool:
        """Block until this ticket may run (True) or its run was stopped while waiting (False)."""
        with self._condition:
            while True:
                if self._waiting[0] == ticket and len(self._running) < self.slots:
                    machine_slot = None if self.machine is None else self.machine.try_acquire()
                    if self.machine is None or machine_slot is not None:
                        self._waiting.pop(0)
                        self._running[ticket] = machine_slot
                        self._condition.notify_all()
                        return True
                if stop.is_set():
                    self._waiting.remove(ticket)
                    self._condition.notify_all()
                    return False
                self._condition.wait(timeout=self.POLL_S)

    def leave(self, ticket: int) -> None:
        with self._condition:
            machine_slot = self._running.pop(ticket, None)
            if machine_slot is not None:
                self.machine.release(machine_slot)
            self._condition.notify_all()

    @property
    def running(self) -> int:
        with self._condition:
            return len(self._running)


GATE = TrainingGate(limits.MAX_TRAININGS_PER_MACHINE, limits.MAX_WAITING_TRAININGS,
                    MachineSlots(limits.MAX_TRAININGS_PER_MACHINE))
TRAINING_NICENESS = 15  # Linux nice value of a page-started training thread (0 = as urgent as a page)


def yield_to_pages() -> None:
    """Lower the calling thread's CPU priority, so a class's page reruns go first on a busy server.

    Linux applies nice values per thread; torch runs a page-started training on this one
    thread (set_num_threads(1)). The run still has its wall-clock budget: on an idle server
    it loses nothing, on a busy one it makes fewer steps instead of slowing every page.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), TRAINING_NICENESS)
    except (AttributeError, OSError):  # not Linux, or not allowed: run at the usual priority
        pass


_tickets = iter(range(1, 1 << 62))
_ticket_lock = threading.Lock()


class TrainingJob:
    """One page-started run in a worker thread: state to poll, a stop button to press.

    state: "waiting" (in line), "running", "done" (budget used), "stopped", "failed".
    """

    def __init__(self, model: TransformerLM, train_ids, held_out_ids, config: TrainConfig,
                 gate: TrainingGate = GATE, probe: Callable[[TransformerLM, int], object] | None = None):
        from engine.transformer.training import check_trainable

        check_trainable(model.config, config)
        self.model, self.config, self.gate = model, config, gate
        self._train_ids, self._held_out_ids = train_ids, held_out_ids
        with _ticket_lock:
            self.ticket = next(_tickets)
        self.stop_event = threading.Event()
        self.history: list[Progress] = []
        self.probe, self.probes = probe, []      # probe's answers at each evaluation, as they come
        self.result: TrainResult | None = None
        self.error: str | None = None
        self.state = "waiting"
        gate.join(self.ticket)
        self._thread = threading.Thread(target=self._run, name=f"training-{self.ticket}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            from engine.transformer.training import train

            yield_to_pages()
            if not self.gate.wait_turn(self.ticket, self.stop_event):
                self.state = "stopped"
                return
            self.state = "running"
            try:
                self.result = train(self.model, self._train_ids, self._held_out_ids, self.config,
                                    stop=self.stop_event, on_progress=self.history.append,
                                    probe=self.probe, on_probe=self.probes.append)
            finally:
                self.gate.leave(self.ticket)
            self.state = "stopped" if self.result.stopped_by == "stop" else "done"
        except Exception as error:        # a page shows the sentence; the server keeps serving
            self.error = str(error)
            self.state = "failed"

    @property
    def queue_position(self) -> int:
        return self.gate.position(self.ticket)

    @property
    def finished(self) -> bool:
        return self.state in ("done", "stopped", "failed")

    def stop(self) -> None:
        self.stop_event.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


def live_job(config: TransformerConfig, vocab_size: int, train_ids, held_out_ids,
             schedule: TrainConfig, probe: Callable[[TransformerLM, int], object] | None = None,
             gate: TrainingGate = GATE) -> TrainingJob:
    """A fresh model of `config` (its vocabulary the tokenizer's), seeded, training in a worker thread behind
    `gate` (probed at each evaluation when a `probe` is given: see engine.transformer.training.train)."""
    import torch

    from engine.transformer.config import with_vocab
    from engine.transformer.model import TransformerLM
    from engine.transformer.training import check_trainable

    check_trainable(config, schedule)               # the sentence names the sizes as the student set them
    torch.manual_seed(schedule.seed)
    return TrainingJob(TransformerLM(with_vocab(config, vocab_size)), train_ids, held_out_ids, schedule,
                       gate=gate, probe=probe)
