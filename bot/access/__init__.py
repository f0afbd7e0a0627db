"""Access to the bot beyond the environment's lists: pairing, grants and access requests.

- `policy`: `AccessPolicy`, the one object asked who may use the bot and who is an admin;
- `command`: `python -m bot pair`, which prints a new code;
- `user_ids`: `user_id_of`, the one check of a Telegram user id someone typed or sent.

What is stored (grants, codes, requests, languages) and how codes look is in
`bot.storage.access`; the records the policy hands out are re-exported here, as its vocabulary.
No aiogram here: `python -m bot pair` makes a code without loading the Telegram wing, which
uses this package; this package uses only `bot.settings.model`, `bot.process.data_files` and
`bot.storage`.
"""

from bot.access.policy import REFUSED, AccessPolicy, DenyResult
from bot.access.user_ids import MAX_USER_ID, user_id_of
from bot.storage.access import (
    AccessRequest,
    AccessStore,
    Grant,
    PairingOutcome,
    Person,
    RequestMessage,
    Settled,
)

__all__ = [
    "AccessPolicy",
    "AccessRequest",
    "AccessStore",
    "DenyResult",
    "Grant",
    "MAX_USER_ID",
    "PairingOutcome",
    "Person",
    "REFUSED",
    "RequestMessage",
    "Settled",
    "user_id_of",
]
