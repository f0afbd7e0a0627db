"""Access to the bot beyond the environment's lists: pairing, grants and access requests.

- `policy`: `AccessPolicy`, the one object asked who may use the bot and who is an admin;
- `pairing` and `codes`: the one-time code that makes its sender an admin;
- `grants` and `requests`: what admins decided in Telegram, and strangers' requests;
- `database`: the SQLite file in DATA_DIR that keeps all of it, off the event loop;
- `store` and `store_postgres`: what the policy asks of it, in SQLite or in PostgreSQL;
- `command`: `python -m bot pair`, which prints a new code.

No aiogram here: `python -m bot pair` makes a code without loading the Telegram wing, which
uses this package; this package uses only `bot.config`, `bot.data_files` and `bot.storage`.
"""

from bot.access.database import AccessDatabase
from bot.access.grants import Grant, Person
from bot.access.pairing import PairingOutcome, issue_code_now
from bot.access.policy import AccessPolicy, DenyResult
from bot.access.requests import AccessRequest, RequestMessage
from bot.access.store import AccessStore, Settled, SqliteAccessStore

__all__ = [
    "AccessDatabase",
    "AccessPolicy",
    "AccessRequest",
    "AccessStore",
    "DenyResult",
    "Grant",
    "PairingOutcome",
    "Person",
    "RequestMessage",
    "Settled",
    "SqliteAccessStore",
    "issue_code_now",
]
