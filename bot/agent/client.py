"""The model server's SDK client, made when a model call first needs it.

Importing the OpenAI SDK costs about half a second, more than the rest of what the bot adds to
aiogram's own start-up; no update needs it before a question is asked. So the composition root
hands the agent and the transcriber a `LazyClient`, and the SDK is imported and the client
built on the first model call. This module imports no SDK itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from bot.settings.fallbacks import FallbackModel
    from bot.settings.model import Settings


class LazyClient:
    """One `AsyncOpenAI` client, built by `build` the first time `get` is called.

    `close` closes the client only if it was built, so a bot that never asked the model never
    imports the SDK to close it.
    """

    def __init__(self, build: Callable[[], AsyncOpenAI]) -> None:
        self._build: Callable[[], AsyncOpenAI] | None = build
        self._client: AsyncOpenAI | None = None

    @classmethod
    def of(cls, client: AsyncOpenAI) -> LazyClient:
        """A holder of a client made elsewhere (tests, benchmarks): built already."""
        holder = cls(lambda: client)
        holder.get()
        return holder

    @property
    def built(self) -> bool:
        """Whether the client exists (and the SDK is imported)."""
        return self._client is not None

    def get(self) -> AsyncOpenAI:
        """The client, built now if this is the first call."""
        if self._client is None:
            assert self._build is not None  # only cleared once the client exists
            self._client = self._build()
            self._build = None
        return self._client

    async def close(self) -> None:
        """Close the client if it was built."""
        if self._client is not None:
            await self._client.close()


def lazy_client(settings: Settings, fallback: FallbackModel | None = None) -> LazyClient:
    """The chat model's client for `settings` (`build_client`), or a fallback model's, built
    on first use."""

    def build() -> AsyncOpenAI:
        from bot.agent.llm import build_client  # noqa: PLC0415 - imports the SDK

        return build_client(settings, fallback)

    return LazyClient(build)
