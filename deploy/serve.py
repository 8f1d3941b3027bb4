"""A lecture hall on one machine: N `streamlit run app.py` processes behind HAProxy.

    python -m deploy.serve --processes 2 [--port 8501] [--first-backend-port 8601] [--address 0.0.0.0]

Starts the processes on 127.0.0.1:<first-backend-port + i> with the app's settings (as the
Dockerfile runs it, and without watching files), each forked from one parent that has already
imported the libraries and loaded the shared data (`deploy.preload`, Python's multiprocessing
fork server), so the processes share those pages instead of holding a copy each (--no-preload:
plain `streamlit run` processes). It waits until each answers its health check,
then runs HAProxy in the foreground on the public port (configuration: `deploy.haproxy`). A
process that dies is started again RESTART_DELAY_S later: by then HAProxy's health check has
taken it out and its students, reconnecting, are on the live (warm) processes; the new one
takes newcomers.
Ctrl-C or SIGTERM stops everything; children also get SIGTERM if this process is killed.
With --processes 1 there is nothing to balance: one Streamlit listens on the public port.
On a laptop `streamlit run app.py` stays the way to run the app.
The processes get this process's environment: with PLAYGROUND_REDIS_URL set they share classes
through Redis, else through SQLite in the data folder (PLAYGROUND_DATA), which every process of
this machine opens (engine.classroom).

`Farm` is the same as a context manager, for the benchmarks (bench/load.py) and the tests.
"""
from __future__ import annotations

import argparse
import ctypes
import http.client
import multiprocessing
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from deploy import haproxy

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 90.0
STOP_GRACE_S = 15.0
RESTART_DELAY_S = 10.0   # a backend that died is started again this long after it was found dead


def streamlit_command(port: int, address: str = LOOPBACK) -> list[str]:
    """`streamlit run app.py` as the Dockerfile runs it, on this address and port."""
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
            "--server.address", address, "--server.headless", "true", "--server.fileWatcherType", "none",
            "--browser.gatherUsageStats", "false"]


def _parent_death_signal():
    """For Popen's preexec_fn: the child gets SIGTERM when this process dies (Linux), so a killed
    server leaves no orphans. Looked up before the fork, so the child only makes one call."""
    try:
        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return lambda: prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG


def start(command: list[str], env: dict[str, str] | None = None, stdout=subprocess.DEVNULL,
          stderr=None) -> subprocess.Popen:
    """Start a child of this server, in the app's folder, that dies with it."""
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=stdout, stderr=stderr,
                            preexec_fn=_parent_death_signal())


def _run_streamlit(command: list[str], env: dict[str, str], stderr: str | None) -> None:
    """A backend forked from the fork server (deploy.preload already imported): `streamlit run` in it."""
    die_with_parent = _parent_death_signal()          # the fork server: it exits with deploy.serve
    if die_with_parent is not None:
        die_with_parent()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(ROOT)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    if stderr is not None:
        os.dup2(os.open(stderr, os.O_WRONLY | os.O_APPEND), 2)
    from streamlit.web import cli

    cli.main(args=command[command.index("run"):], prog_name="streamlit")


def _opened_path(stream) -> str | None:
    """A path a forked backend can open to write into `stream` (a file object or descriptor this process
    holds, named or not): /proc/<this pid>/fd/<fd>. The fork server's children inherit none of our files."""
    if stream is None:
        return None
    fd = stream if isinstance(stream, int) else stream.fileno()
    return f"/proc/{os.getpid()}/fd/{fd}"


class Forked:
    """A backend forked from the preloaded fork server, with the part of Popen's interface Farm uses."""

    _context = None

    def __init__(self, command: list[str], env: dict[str, str], stderr: str | None = None):
        if Forked._context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["deploy.preload"])
            saved = dict(os.environ)
            os.environ.update(env)                       # the fork server (started now) loads with env's cache
            try:
                from multiprocessing import forkserver

                forkserver.ensure_running()
            finally:
                os.environ.clear()
                os.environ.update(saved)
            Forked._context = context
        self.process = Forked._context.Process(target=_run_streamlit, args=(command, env, stderr),
                                               name=f"streamlit {command[command.index('--server.port') + 1]}")
        self.process.start()
        self.pid = self.process.pid

    @staticmethod
    def shutdown() -> None:
        """Stop the fork server (its backends stopped first); the next Forked starts a fresh one."""
        if Forked._context is not None:
            from multiprocessing import forkserver

            forkserver._forkserver._stop()
            Forked._context = None

    @staticmethod
    def server_pid() -> int | None:
        """The fork server's process id (the parent of every Forked backend), or None before the first."""
        if Forked._context is None:
            return None
        from multiprocessing import forkserver

        return forkserver._forkserver._forkserver_pid

    @property
    def returncode(self) -> int | None:
        return self.process.exitcode

    def poll(self) -> int | None:
        return self.process.exitcode

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()

    def wait(self, timeout: float | None = None) -> int:
        self.process.join(timeout)
        if self.process.exitcode is None:
            raise subprocess.TimeoutExpired(f"streamlit (pid {self.pid})", timeout)
        return self.process.exitcode


def healthy(url: str, timeout: float = 2.0) -> bool:
    """Does the process at `url` (one of ours, on this machine) answer its health check?"""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=timeout)
    try:
        connection.request("GET", haproxy.HEALTH)
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def wait_healthy(url: str, process: subprocess.Popen, what: str, timeout: float = START_TIMEOUT_S) -> None:
    """Wait until `url` answers its health check; RuntimeError with a sentence if the process
    exits or the time runs out."""
    deadline = time.monotonic() + timeout
    while not healthy(url):
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode} before answering at {url}.")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer its health check at {url} within {timeout:.0f} s.")
        time.sleep(0.2)


def stop(processes: list[subprocess.Popen], grace: float = STOP_GRACE_S) -> None:
    """SIGTERM to every process still running, then SIGKILL to those still there after `grace` s."""
    live = [p for p in processes if p.poll() is None]
    for process in live:
        process.terminate()
    deadline = time.monotonic() + grace
    for process in live:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@dataclass
class Backend:
    port: int
    process: subprocess.Popen | Forked
    dead_since: float | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"


class Farm:
    """N Streamlit processes on loopback behind HAProxy on `port`; one process: no HAProxy.

    with Farm(2, port=8501) as farm:
        farm.url, farm.backends[0].port, farm.backends[0].process.pid
    """

    def __init__(self, processes: int, port: int = 8501, first_backend_port: int = 8601,
                 address: str = "0.0.0.0", env: dict[str, str] | None = None, access_log=None,
                 backend_stderr=None, preload: bool = True):
        if processes < 1:
            raise ValueError(f"At least one process is needed; {processes} were asked for.")
        if processes > 1:
            haproxy.binary()                         # HAProxyMissing with its sentence, before starting anything
            ports = [first_backend_port + i for i in range(processes)]
            if port in ports:
                raise ValueError(f"The public port {port} is also a backend port ({ports[0]}-{ports[-1]}).")
        self.processes, self.port, self.address = processes, port, address
        self.ports = [port] if processes == 1 else [first_backend_port + i for i in range(processes)]
        # one cookie secret for all: a cookie one process signed stays valid on another after a redispatch
        self.env = dict(env if env is not None else os.environ)
        self.env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
        self.access_log, self.backend_stderr = access_log, backend_stderr
        self.preload = preload and processes > 1      # one process shares with nobody: plain streamlit run
        self.backends: list[Backend] = []
        self.proxy: subprocess.Popen | None = None
        self._folder: tempfile.TemporaryDirectory | None = None

    @property
    def url(self) -> str:
        host = LOOPBACK if self.address in ("0.0.0.0", "", "::") else self.address
        return f"http://{host}:{self.port}"

    def _start_backend(self, port: int) -> Backend:
        address = self.address if self.processes == 1 else LOOPBACK
        if self.preload:
            return Backend(port, Forked(streamlit_command(port, address), self.env, _opened_path(self.backend_stderr)))
        return Backend(port, start(streamlit_command(port, address), self.env, stderr=self.backend_stderr))

    def __enter__(self) -> "Farm":
        try:
            self.backends = [self._start_backend(port) for port in self.ports]
            for i, backend in enumerate(self.backends, 1):
                wait_healthy(backend.url, backend.process, f"Streamlit process {i} (port {backend.port})")
            if self.processes > 1:
                self._folder = tempfile.TemporaryDirectory(prefix="playground-haproxy-")
                config = Path(self._folder.name) / "haproxy.cfg"
                config.write_text(haproxy.render([f"{LOOPBACK}:{b.port}" for b in self.backends],
                                                 bind=f"{self.address}:{self.port}",
                                                 access_log=self.access_log is not None))
                self.proxy = start([haproxy.binary(), "-db", "-f", str(config)], self.env,
                                   stdout=self.access_log if self.access_log is not None else subprocess.DEVNULL)
                wait_healthy(self.url, self.proxy, f"HAProxy (port {self.port})", timeout=30)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        stop(([self.proxy] if self.proxy else []) + [b.process for b in self.backends])
        if self.preload:
            Forked.shutdown()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def server_pids(self) -> list[int]:
        """The Streamlit processes' ids (HAProxy's is self.proxy.pid)."""
        return [b.process.pid for b in self.backends]

    def fork_server_pid(self) -> int | None:
        """The preloaded parent the Streamlit processes were forked from (its memory is theirs too), or None."""
        return Forked.server_pid() if self.preload else None

    def restart_dead(self, delay: float = RESTART_DELAY_S) -> list[int]:
        """Start again each backend found dead at least `delay` s ago; returns their ports.
        HAProxy's health check takes them back once they answer."""
        restarted = []
        now = time.monotonic()
        for i, backend in enumerate(self.backends):
            if backend.process.poll() is None:
                continue
            if backend.dead_since is None:
                backend.dead_since = now
            elif now - backend.dead_since >= delay:
                self.backends[i] = self._start_backend(backend.port)
                restarted.append(backend.port)
        return restarted

    def serve_forever(self, poll_s: float = 1.0) -> int:
        """Keep the backends running until HAProxy (or the only process) exits; its exit status."""
        front = self.proxy or self.backends[0].process
        while front.poll() is None:
            for port in self.restart_dead() if self.proxy else []:
                print(f"The Streamlit process on port {port} had stopped; started it again.", file=sys.stderr)
            time.sleep(poll_s)
        return front.returncode


def _raise_exit(signum, frame) -> None:
    raise SystemExit(128 + signum)


def class_store_sentence(env: dict[str, str]) -> str:
    """Where the processes keep their classes, as `engine.classroom.stores.open_store` will choose."""
    from engine.classroom import stores
    url = env.get(stores.REDIS_URL_ENV, "").strip()
    if url:
        return f"Classes are shared through Redis at {url.split('@')[-1]} ({stores.REDIS_URL_ENV})."
    return (f"Classes are shared through SQLite at {stores.data_folder(env) / 'classes.sqlite3'} (every process "
            f"of this machine; set {stores.REDIS_URL_ENV} for several machines).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the app to a lecture hall: N Streamlit processes "
                                                 "behind HAProxy on one port.")
    parser.add_argument("--processes", type=int, default=2, help="Streamlit processes (default 2; about one per core)")
    parser.add_argument("--port", type=int, default=8501, help="the public port (default 8501)")
    parser.add_argument("--first-backend-port", type=int, default=8601,
                        help="the processes listen on 127.0.0.1 from this port up (default 8601)")
    parser.add_argument("--address", default="0.0.0.0", help="the public address (default 0.0.0.0: every interface)")
    parser.add_argument("--access-log", action="store_true", help="print every request HAProxy passes on")
    parser.add_argument("--no-preload", action="store_true",
                        help="start each process with its own imports and data (no shared fork server)")
    args = parser.parse_args(argv)
    try:
        farm = Farm(args.processes, args.port, args.first_backend_port, args.address,
                    access_log=sys.stdout if args.access_log else None, preload=not args.no_preload)
    except (haproxy.HAProxyMissing, ValueError) as error:
        print(error, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _raise_exit)      # unwinds through the Farm, which stops every child
    signal.signal(signal.SIGHUP, _raise_exit)
    try:
        with farm:
            print(f"Serving {args.processes} Streamlit process{'es' if args.processes > 1 else ''} at {farm.url} "
                  f"(students on the same network: this machine's address, port {args.port}); Ctrl-C stops all. "
                  + class_store_sentence(farm.env), flush=True)
            return farm.serve_forever()
    except KeyboardInterrupt:
        return 130
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
