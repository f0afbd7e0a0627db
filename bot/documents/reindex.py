"""`python -m bot reindex`: rebuild the search index from the documents, with or without a bot.

With no bot running on DATA_DIR this process rebuilds the index itself. Beside a running bot,
which holds the index (`tools.index.writer_lock`), it leaves a request the bot's writer looks
for every second (`tools.index.rebuild_request`) and waits while the bot rebuilds, as `/reindex`
in Telegram does; the bot answers meanwhile. Either way it prints one line and exits 0. Like
`pair`, it needs no token or key and imports no aiogram.
"""

from __future__ import annotations

import sys

from bot.process import exit_codes
from bot.process.data_files import DataFiles
from bot.settings.model import Settings
from tools.index.indexer import IndexInUseError
from tools.jail.documents_folder import documents_folder_problem
from tools.toolbox import Toolbox

WAIT_FOR_BOT_S = 600.0
"""How long the command waits for a running bot's rebuild before leaving it to finish alone."""


async def serve(settings: Settings, *, wait_s: float = WAIT_FOR_BOT_S) -> int:
    """Rebuild, or have the running bot rebuild; `FIX_SETTINGS` when the documents folder
    cannot be read."""
    problem = documents_folder_problem(settings.sandbox_dir)
    if problem is not None:
        print(problem, file=sys.stderr)  # noqa: T201
        return exit_codes.FIX_SETTINGS
    box = Toolbox(
        settings,
        private_files=DataFiles(settings.data_dir).private_files(),
        watch="rescan",
        writes_index=True,
    )
    try:
        report = await box.reindex()
    except IndexInUseError:
        print(  # noqa: T201 - the terminal is the audience
            "A running bot keeps the search index: asked it to rebuild it from the documents "
            "(it answers meanwhile)…",
            flush=True,
        )
        done = await box.ask_rebuild(wait_s)
        print(  # noqa: T201
            "The running bot rebuilt the search index; its log has the counts."
            if done
            else "The running bot is still rebuilding the search index; its log says when it "
            "is done."
        )
        return 0
    finally:
        await box.close()
    print(  # noqa: T201
        f"Search index rebuilt: {report.indexed} documents indexed, {report.skipped} skipped "
        f"in {report.seconds:.1f} s."
    )
    return 0
