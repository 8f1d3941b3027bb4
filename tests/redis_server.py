"""A private redis-server for the tests that check the class store's Redis half (the store's contract tests and the
class pages on both stores): Debian's redis-server on a free loopback port in a temp folder, one per test session
(per xdist worker), stopped at its end. Without redis-server the tests that ask for it skip with a reason."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A private redis-server on loopback for this test session, stopped at its end."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (Debian package redis-server): the Redis store's contract "
                    "is not checked here; .ci/run installs it")
    folder = tmp_path_factory.mktemp("redis")
    port = free_port()
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                               "--save", "", "--appendonly", "no", "--protected-mode", "yes"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    import redis
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            break
        except redis.exceptions.ConnectionError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
    client.close()
    yield f"redis://127.0.0.1:{port}/0"
    server.terminate()
    server.wait(timeout=10)
