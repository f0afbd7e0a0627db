"""A free TCP port on 127.0.0.1, for a server a test starts or for an address nobody answers."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port the system just handed out and let go: free now, unless someone takes it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
