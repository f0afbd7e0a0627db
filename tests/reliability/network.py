"""A TCP gate in front of a local test server, to inject network faults below HTTP.

The bot's HTTP clients (httpx for the model, aiohttp for Telegram) talk to the gate; the gate
forwards bytes to the real fake server, or refuses connections, drops them before any answer,
or cuts an answer off after its headers. Keep-alive connections are cut whenever the mode
changes, so the very next request meets the new behaviour.
"""

from __future__ import annotations

import asyncio
import contextlib
from enum import Enum


class Mode(Enum):
    """What the gate does with new connections."""

    PASS = "pass"
    DROP = "drop"  # read the request, close without a byte of answer
    CUT = "cut"  # forward the request, pass the answer's headers and a few bytes, then close


class TcpGate:
    """Listens on 127.0.0.1 and forwards to `target_port` unless told otherwise."""

    def __init__(self, target_port: int, *, cut_after_body_bytes: int = 12) -> None:
        self._target_port = target_port
        self._cut_after = cut_after_body_bytes
        self.mode = Mode.PASS
        self.port = 0
        self.connections = 0
        self._server: asyncio.Server | None = None
        self._live: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._arrived = asyncio.Condition()

    @property
    def base(self) -> str:
        """`http://127.0.0.1:PORT`, the address to give the client instead of the server's."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Listen (on the same port as before when restarted after `refuse`)."""
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def wait_connections(self, count: int, within_s: float = 10.0) -> None:
        """Wait until `count` connections in all have been accepted."""
        async with asyncio.timeout(within_s), self._arrived:
            await self._arrived.wait_for(lambda: self.connections >= count)

    async def set_mode(self, mode: Mode) -> None:
        """Apply `mode` to every connection from now on; live ones are closed."""
        self.mode = mode
        await self._cut_live()

    async def refuse(self) -> None:
        """Stop listening: connecting now fails with 'connection refused'."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        await self._cut_live()

    async def reopen(self) -> None:
        """Listen again and pass traffic."""
        self.mode = Mode.PASS
        if self._server is None:
            await self.start()

    async def close(self) -> None:
        """Stop for good."""
        await self.refuse()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _cut_live(self) -> None:
        for writer in list(self._live):
            writer.close()
        self._live.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        async with self._arrived:
            self.connections += 1
            self._arrived.notify_all()
        self._live.add(writer)
        upstream: asyncio.StreamWriter | None = None
        try:
            if self.mode is Mode.DROP:
                await reader.read(65536)
                return
            up_reader, upstream = await asyncio.open_connection("127.0.0.1", self._target_port)
            self._live.add(upstream)
            limit = self._cut_after if self.mode is Mode.CUT else None
            await asyncio.gather(_pipe(reader, upstream, None), _pipe(up_reader, writer, limit))
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            for side in (writer, upstream):
                if side is not None:
                    side.close()
                    self._live.discard(side)
            self._tasks.discard(task)


async def _pipe(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, body_limit: int | None
) -> None:
    """Copy bytes; with `body_limit`, stop `body_limit` bytes after the first header block."""
    seen = b""
    try:
        while chunk := await source.read(65536):
            if body_limit is not None:
                seen += chunk
                end = seen.find(b"\r\n\r\n")
                if end >= 0:
                    sink.write(seen[: end + 4 + body_limit])
                    await sink.drain()
                    return
                continue
            sink.write(chunk)
            await sink.drain()
    finally:
        sink.close()
