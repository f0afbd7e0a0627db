"""Who may still hear what, asked each time a digest is sent, never only at subscription.

A private subscription speaks to its user: they must still be allowed to use the bot, and only
paths inside the scope a question of theirs in that chat would see are named. A group's speaks to
everyone in the group: the bot must still be allowed to answer there, and only paths inside the
group's own scope (set with /scope or SCOPES_FILE; the forum topic's, when it was made in one) are
named, and of those only what the admin who subscribed the group may see there (a question of
theirs in that group): an admin limited to some folders cannot have a group told of others, and an
admin who lost access has the group told nothing. The scope is compared as the jail compares it,
with its folders spelled as they are on disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.access import AccessPolicy
from bot.settings.scopes import Scopes
from bot.storage.notices import Subscription
from tools.jail.sandbox import Sandbox
from tools.jail.scope import Scope

Shows = Callable[[str], bool]
"""Whether a path may be named to a subscriber."""


def _everything(path: str) -> bool:
    del path
    return True


class Audience:
    """Decides, at sending time, which paths a subscription's chat may be told about."""

    def __init__(self, access: AccessPolicy, scopes: Scopes, sandbox: Sandbox) -> None:
        self._access = access
        self._scopes = scopes
        self._sandbox = sandbox

    async def shows(self, subscription: Subscription) -> Shows | None:
        """What the subscription's chat may be told about now; None when nothing at all (its
        user lost access, the group is no longer served)."""
        chat_id, user_id = subscription.chat_id, subscription.user_id
        topic = subscription.thread_id
        if user_id is not None:
            if not self._access.may_use(user_id):
                return None
            scope = await self._scopes.for_question(chat_id, user_id, topic)
        else:
            if not self._access.may_answer_in_group(chat_id):
                return None
            by = subscription.subscribed_by
            if by is None:
                scope = (await self._scopes.of_chat(chat_id, topic)).scope
            elif self._access.may_use(by):
                scope = await self._scopes.for_question(chat_id, by, topic)
            else:
                return None
        if scope is None:
            return _everything
        spelled = await asyncio.to_thread(self._spelled, scope)
        return _everything if spelled is None else spelled.covers

    def _spelled(self, scope: Scope) -> Scope | None:
        return self._sandbox.within(scope).scope
