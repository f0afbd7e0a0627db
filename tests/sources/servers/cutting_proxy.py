"""A TCP proxy on loopback that can cut a server's replies short, as a dying server does.

The kinds' servers sit behind it, so the suite can make a real listing break in its middle:
`served` counts the bytes the server has sent back, and `cut_after(n)` drops every connection,
and refuses new ones, once the server has sent `n` more bytes in all — a listing spread over
several connections or pages breaks as surely as one on a single connection. It also counts
the HTTP requests sent through it (`requests`, by their request lines), for the benchmark of
what a pass costs. Plain threads and sockets: it must not share an event loop with the code it
tests.
"""

from __future__ import annotations

import socket
import threading
from contextlib import suppress

_REQUEST_LINE_END = b" HTTP/1.1\r\n"


class CuttingProxy:
    """Forwards 127.0.0.1:`port` to `upstream_port`, whole or cut short."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._budget: int | None = None
        self.served = 0
        """Bytes the server has sent back through the proxy so far."""
        self.requests = 0
        """HTTP/1.1 requests sent to the server through the proxy so far (their request lines:
        a body holding that exact text would count too; the kinds' bodies never do)."""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name="cutting proxy", daemon=True)
        self._thread.start()

    def cut_after(self, nbytes: int | None) -> None:
        """Drop everything once the server has sent `nbytes` more bytes; None lets all by."""
        with self._lock:
            self._budget = nbytes

    def close(self) -> None:
        """Stop listening and drop every connection."""
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for sock in self._open:
                with suppress(OSError):
                    sock.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._budget == 0:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self._upstream))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, server))
            for src, dst, back in ((client, server, False), (server, client, True)):
                threading.Thread(target=self._pump, args=(src, dst, back), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, back: bool) -> None:
        tail = b""
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not back:
                    seen = tail + data
                    with self._lock:
                        self.requests += seen.count(_REQUEST_LINE_END)
                    tail = seen[-(len(_REQUEST_LINE_END) - 1) :]
                if back and not self._allow(len(data)):
                    with self._lock:
                        room = self._take_rest()
                    dst.sendall(data[:room])
                    self._drop_all()
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with suppress(OSError):
                    sock.close()
            with self._lock:
                self._open.difference_update((src, dst))

    def _allow(self, size: int) -> bool:
        """Count `size` bytes from the server; False when they would overrun the budget."""
        with self._lock:
            if self._budget is not None and size > self._budget:
                return False
            if self._budget is not None:
                self._budget -= size
            self.served += size
            return True

    def _take_rest(self) -> int:
        """What is left of the budget, spent at once (called under the lock)."""
        rest = self._budget or 0
        self._budget = 0
        self.served += rest
        return rest

    def _drop_all(self) -> None:
        with self._lock:
            doomed = list(self._open)
        for sock in doomed:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
