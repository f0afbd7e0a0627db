"""DATA_DIR as a whole: its version, upgrades at start, backups and restores.

`version` stamps one number for every store in the folder; `steps` upgrades an older
folder in place and refuses a newer one; `backup` and `restore` are `python -m bot backup DEST`
and `python -m bot restore SRC`, which need only DATA_DIR; `manifest` says what a backup may
hold; `copying` copies entries without ever overwriting one (databases online); `postgres_note`
is what both say when the shared state lives in PostgreSQL. No aiogram here.
"""

from bot.datadir.steps import upgrade
from bot.datadir.version import DATA_VERSION, DataVersionError

__all__ = ["DATA_VERSION", "DataVersionError", "upgrade"]
