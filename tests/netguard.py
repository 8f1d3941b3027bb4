"""Refuse every network connection except loopback while a test runs, and remember the tries."""
from __future__ import annotations

import contextlib
import socket
from typing import Iterator

import pytest


def _allowed(address) -> bool:
    if not isinstance(address, tuple):
        return True                                   # AF_UNIX paths
    host = str(address[0])
    return host in ("localhost", "::1", "0.0.0.0") or host.startswith("127.")


@contextlib.contextmanager
def offline() -> Iterator[list[str]]:
    """Within the block, socket.connect to a non-loopback address raises OSError; yields the attempts."""
    attempts: list[str] = []
    original_connect, original_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        if not _allowed(address):
            attempts.append(repr(address))
            raise OSError(f"network disabled in tests: connect to {address!r}")
        return original_connect(self, address)

    def connect_ex(self, address):
        if not _allowed(address):
            attempts.append(repr(address))
            return 101  # ENETUNREACH
        return original_connect_ex(self, address)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        patch.setattr(socket.socket, "connect_ex", connect_ex)
        yield attempts
