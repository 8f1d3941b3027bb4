"""Training slots shared by the processes of one machine (engine.machinery.machine_slots,
engine.transformer.training_jobs.TrainingGate).

Other processes are real ones: each imports engine.machinery.machine_slots alone (no torch), takes what it
can, says how many it got, and holds them until it is killed."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine import limits
from engine.machinery.machine_slots import LOCKS_ENV, MachineSlots, lock_folder
from engine.transformer.training_jobs import GATE, TrainingGate

ROOT = Path(__file__).resolve().parents[3]
HOLDER = """
import sys, time
from engine.machinery.machine_slots import MachineSlots
slots = MachineSlots(int(sys.argv[2]), sys.argv[1])
held = [s for s in (slots.try_acquire() for _ in range(int(sys.argv[3]))) if s is not None]
print(len(held), flush=True)
time.sleep(120)
"""


class Holder:
    """Another process that takes up to `want` of `count` slots in `folder` and keeps them."""

    def __init__(self, folder: Path, count: int, want: int):
        self.process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(count), str(want)],
                                        cwd=ROOT, stdout=subprocess.PIPE, text=True)
        self.held = int(self.process.stdout.readline())

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)


@pytest.fixture
def holders():
    started: list[Holder] = []

    def start(folder: Path, count: int, want: int) -> Holder:
        started.append(Holder(folder, count, want))
        return started[-1]

    yield start
    for holder in started:
        if holder.process.poll() is None:
            holder.kill()


def test_two_processes_hold_at_most_two_slots_together(tmp_path, holders):
    first = holders(tmp_path, 2, want=1)
    second = holders(tmp_path, 2, want=2)
    third = holders(tmp_path, 2, want=2)
    assert (first.held, second.held, third.held) == (1, 1, 0)
    assert MachineSlots(2, tmp_path).try_acquire() is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slot-0.lock", "slot-1.lock"]


def test_a_killed_holder_frees_its_slot(tmp_path, holders):
    holder = holders(tmp_path, 2, want=2)
    assert holder.held == 2
    here = MachineSlots(2, tmp_path)
    assert here.try_acquire() is None
    holder.kill()                                    # SIGKILL: no clean-up ran, the kernel dropped the locks
    assert {here.try_acquire(), here.try_acquire()} == {0, 1} and here.try_acquire() is None
    here.release(0)
    here.release(0)                                  # twice: nothing happens
    assert here.held == 1 and holders(tmp_path, 2, want=2).held == 1


def test_two_holders_in_one_process_also_count_twice(tmp_path):
    a, b = MachineSlots(2, tmp_path), MachineSlots(2, tmp_path)
    assert a.try_acquire() == 0 and b.try_acquire() == 1 and a.try_acquire() is None
    a.release(0)
    assert b.try_acquire() == 0


def test_the_lock_folder_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(LOCKS_ENV, str(tmp_path / "locks"))
    assert lock_folder() == tmp_path / "locks" and MachineSlots(1).folder == tmp_path / "locks"
    monkeypatch.delenv(LOCKS_ENV)
    assert lock_folder().name == "transformer-playground-locks"
    with pytest.raises(ValueError, match="at least one slot"):
        MachineSlots(0)


def test_the_app_gate_counts_per_machine():
    assert GATE.slots == limits.MAX_TRAININGS_PER_MACHINE == GATE.machine.count
    assert GATE.machine.folder == lock_folder()


def wait_in_thread(gate: TrainingGate, ticket: int, stop: threading.Event) -> dict:
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("ran", gate.wait_turn(ticket, stop)), daemon=True)
    thread.start()
    outcome["thread"] = thread
    return outcome


def test_the_gate_waits_in_line_while_other_processes_hold_the_machine(tmp_path, holders):
    holder = holders(tmp_path, 2, want=2)
    gate = TrainingGate(2, 4, MachineSlots(2, tmp_path))
    gate.join(1)
    gate.join(2)
    never = threading.Event()
    first = wait_in_thread(gate, 1, never)
    time.sleep(3 * gate.POLL_S)
    assert "ran" not in first and gate.position(1) == 1 and gate.position(2) == 2 and gate.running == 0
    holder.kill()
    first["thread"].join(5)
    assert first["ran"] is True and gate.position(2) == 1
    assert gate.wait_turn(2, never) and gate.running == 2
    assert holders(tmp_path, 2, want=2).held == 0          # this process holds both machine slots
    gate.leave(1)
    gate.leave(2)
    assert holders(tmp_path, 2, want=2).held == 2          # and gave both back


def test_a_run_stopped_while_waiting_for_the_machine_leaves_the_line(tmp_path, holders):
    holders(tmp_path, 1, want=1)
    gate = TrainingGate(2, 4, MachineSlots(1, tmp_path))
    gate.join(7)
    stop = threading.Event()
    waiting = wait_in_thread(gate, 7, stop)
    time.sleep(2 * gate.POLL_S)
    stop.set()
    waiting["thread"].join(5)
    assert waiting["ran"] is False and gate.position(7) == 0 and gate.running == 0
    assert gate.machine.held == 0


# ---- the line for heavy calls ----------------------------------------------------------------

def test_a_heavy_line_runs_count_at_once_queues_the_next_and_refuses_past_its_length(tmp_path):
    import threading

    from engine.machinery.machine_slots import MachineLine

    line = MachineLine(1, 1, "knock-outs", tmp_path)
    other = MachineLine(1, 1, "knock-outs", tmp_path)      # another process's view of the same machine
    places = []

    def waiter():
        with line.turn() as place:
            places.append(place)

    with other.turn() as first:                             # the machine's one slot is taken
        assert first == 0
        thread = threading.Thread(target=waiter)
        thread.start()
        for _ in range(200):
            if line.waiting == 1:
                break
            threading.Event().wait(0.01)
        assert line.waiting == 1                            # second: in line, not refused
        with pytest.raises(ValueError, match="1 knock-outs are being computed and 1 more are waiting"):
            with line.turn():
                pass
        assert not places
    thread.join(10)
    assert places == [1] and line.waiting == 0


def test_head_effects_take_their_turn_on_the_machine(monkeypatch, tmp_path):
    """The Inside page's knock-out ranking (a pass per head, 6-14 s on a busy server) is refused with the sentence
    when the machine's line is full, before any model work."""
    from engine.interpret import interventions
    from engine.machinery.machine_slots import MachineLine

    full = MachineLine(1, 0, "runs of the model per head or per patched cell", tmp_path)
    monkeypatch.setattr(interventions, "HEAVY_LINE", full)
    holder = MachineLine(1, 0, "x", tmp_path)
    with holder.turn():
        with pytest.raises(ValueError, match="The server is busy"):
            interventions.head_effects(None, "the cat", " sat")
        with pytest.raises(ValueError, match="The server is busy"):
            interventions.activation_patching(None, "a", "b", " c", " d")
