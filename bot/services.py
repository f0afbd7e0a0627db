"""What both front doors share, without Telegram: the toolbox, the history, the model, the agent.

`open_services` starts them in order and `close_services` closes them, each even if another
fails. The terminal chat and the Telegram wing both begin here; nothing in this module imports
aiogram, so `python -m bot chat` never pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from openai import AsyncOpenAI

from bot.agent import Agent, AgentConfig, HistoryStore, KeyedLocks, build_client
from bot.config import Settings
from bot.data_files import DataFiles
from tools import Toolbox


@dataclass(frozen=True, slots=True)
class Services:
    """What the bot owns besides Telegram.

    `locks` serialises each conversation: the agent takes it, and so does the Telegram wing
    around a whole update (the same table, so a conversation is ordered in one place).
    """

    toolbox: Toolbox
    history: HistoryStore
    client: AsyncOpenAI
    agent: Agent
    locks: KeyedLocks
    files: DataFiles


async def open_services(settings: Settings, *, client: AsyncOpenAI | None = None) -> Services:
    """Start the toolbox, open the history, build the agent; `client` replaces the real one."""
    config = AgentConfig.from_settings(settings)
    files = DataFiles(settings.data_dir)
    files.root.mkdir(parents=True, exist_ok=True)
    toolbox = Toolbox(settings, bot_databases=files.bot_databases())
    await toolbox.start()
    try:
        history = await HistoryStore.open(files.history)
    except BaseException:
        await toolbox.close()
        raise
    client = client or build_client(settings)
    locks = KeyedLocks()
    agent = Agent(config, client, toolbox, history, locks=locks)
    return Services(toolbox, history, client, agent, locks, files)


async def close_services(services: Services) -> None:
    """Close everything `open_services` opened, each even if another fails."""
    try:
        await services.history.close()
    finally:
        try:
            await services.toolbox.close()
        finally:
            await services.client.close()
