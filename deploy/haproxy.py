"""The HAProxy configuration that puts N Streamlit processes behind one port.

    python -m deploy.haproxy --backend 127.0.0.1:8601 --backend 127.0.0.1:8602 [--bind :8501]
    python -m deploy.haproxy --compose > deploy/haproxy.cfg      # the file deploy/compose.yaml mounts

What a Streamlit session needs from a balancer, and the lines that give it:
- one process per browser for the whole visit: a Streamlit session lives in one process's
  memory, and the page, its websocket (`/_stcore/stream`), uploads (`/_stcore/upload_file`) and
  media (`/media`) must all reach it. A room sits behind one NAT address, so stickiness is a
  cookie HAProxy inserts (`cookie ... insert indirect nocache`, `cookie sN` per server), never
  a hash of the source address.
- new browsers to the least busy process: `balance leastconn` (each open tab holds one
  websocket, so connections count students).
- the websocket: HTTP/1.1's upgrade passes through `mode http`; once upgraded the connection
  is a tunnel, idle up to `timeout tunnel` (1 h: a student reading a page sends nothing).
- a class's events route: a long poll parks up to CLASS_EVENTS_PARK_S, under `timeout server` and
  `timeout client` (60 s); tests/test_deploy.py checks the margin.
- a dead or restarting process: `option httpchk GET /_stcore/health` every 2 s takes it out
  (a busy one has `timeout check` to answer: it is slow, not gone),
  and `option redispatch` sends a cookie naming it to a live one (the page's state is in its
  URL, so the student lands on the same page with the same values).
Uses only syntax of HAProxy 2.6 (Debian 12's package; the compose file's image is 2.6 too).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

COOKIE = "PLAYGROUND_SERVER"
HEALTH = "/_stcore/health"
COMPOSE_BACKENDS = ("app-1:8501", "app-2:8501")
COMPOSE_RESOLVER = "127.0.0.11:53"      # Docker's embedded DNS: a restarted container may get a new address
INSTALL = "apt-get install -y haproxy"
SBIN = "/usr/sbin:/usr/local/sbin"      # where Debian puts haproxy: not on every user's PATH


class HAProxyMissing(RuntimeError):
    """No `haproxy` on the PATH."""


def binary() -> str:
    """The path of `haproxy`, or HAProxyMissing with a sentence saying what to do."""
    path = shutil.which("haproxy") or shutil.which("haproxy", path=SBIN)
    if path is None:
        raise HAProxyMissing("HAProxy is not installed, and it is what puts several processes behind one port: "
                             f"install it ({INSTALL} on Debian or Ubuntu), or serve one process with "
                             "`streamlit run app.py`.")
    return path


def render(backends: list[str] | tuple[str, ...], bind: str = ":8501", access_log: bool = False,
           resolver: str | None = None) -> str:
    """The configuration text: `backends` are host:port addresses, served as s1, s2, ... in order."""
    if not backends:
        raise ValueError("HAProxy needs at least one backend address (host:port).")
    log = "    log stdout format raw local0\n" if access_log else ""
    log_defaults = "    log global\n    option httplog\n" if access_log else ""
    resolvers = "" if resolver is None else (
        "\nresolvers docker\n"
        f"    nameserver dns {resolver}\n"
        "    hold valid 10s\n")
    by_name = "" if resolver is None else " resolvers docker init-addr last,libc,none"
    servers = "".join(f"    server s{i} {address} cookie s{i}\n" for i, address in enumerate(backends, 1))
    return f"""\
# Written by deploy/haproxy.py (python -m deploy.haproxy --help): {len(backends)} Streamlit processes behind one port.
global
    maxconn 4096
{log}
defaults
    mode http
{log_defaults}    option dontlognull
    option forwardfor
    # a cookie naming a process that is down (or a failed connection) goes to a live one
    option redispatch
    retries 3
    timeout connect 5s
    # a class's events (/api/class/CODE/events, ui.class_events) park a request up to
    # CLASS_EVENTS_PARK_S (25 s) before answering: these must stay above it. Each answer is a
    # whole short response (a long poll, not a stream), so nothing waits in a buffer.
    timeout client 60s
    timeout server 60s
    timeout http-request 10s
    timeout queue 30s
    # an upgraded websocket (/_stcore/stream) is a tunnel: a student may read a page for long
    timeout tunnel 1h
    timeout client-fin 30s
    timeout server-fin 30s
{resolvers}
frontend public
    bind {bind}
    default_backend streamlit

backend streamlit
    balance leastconn
    # one process per browser (a class shares one NAT address: no source hashing); the page,
    # its websocket, uploads and /media all follow the cookie to the process holding the session
    cookie {COOKIE} insert indirect nocache httponly
    option httpchk GET {HEALTH}
    http-check expect status 200
    # a busy process answers its health check late, not never: without this a check had `inter` (2 s) for all of
    # it, and a room of 1,000 woken at once on 2 cores took every process out ("no server available", 503); a dead
    # one still refuses the connection at once
    timeout check 10s
    default-server check inter 2s fall 2 rise 2{by_name}
{servers}"""


def check(path: str | Path) -> subprocess.CompletedProcess:
    """`haproxy -c -f path`: its exit status and messages."""
    return subprocess.run([binary(), "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)


def version() -> str:
    """HAProxy's version number, say '2.6.12'."""
    first = subprocess.run([binary(), "-v"], capture_output=True, text=True, timeout=30).stdout.split()
    return first[2].split("-")[0] if len(first) > 2 else ""


def compose_config() -> str:
    """The configuration deploy/compose.yaml mounts: its two app services, by name."""
    return render(COMPOSE_BACKENDS, bind=":8501", resolver=COMPOSE_RESOLVER)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Print an HAProxy configuration for N Streamlit processes.")
    parser.add_argument("--backend", action="append", default=[], metavar="HOST:PORT",
                        help="a Streamlit process, once per process (served as s1, s2, ... in this order)")
    parser.add_argument("--bind", default=":8501", help="the public address (default ':8501', every interface)")
    parser.add_argument("--access-log", action="store_true", help="log every request to standard output")
    parser.add_argument("--compose", action="store_true", help="the configuration deploy/compose.yaml mounts")
    args = parser.parse_args(argv)
    if args.compose == bool(args.backend):
        parser.error("give either --backend HOST:PORT (once per process) or --compose")
    text = compose_config() if args.compose else render(args.backend, args.bind, args.access_log)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
