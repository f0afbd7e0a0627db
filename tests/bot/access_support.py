"""What the pairing and access tests share: the code from the log, a moved clock, button taps."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from aiogram.methods import EditMessageText, SendMessage

from bot.telegram.tuning import Tuning
from tests.fakes.accounts import BOT_USERNAME, bot_user_json
from tests.fakes.clock import FakeClock
from tests.fakes.harness import Harness, RecordedSleep

_OFFER = re.compile(rf"send /start (\S+) to @{BOT_USERNAME} in a private chat to become its admin")


def code_from_log(caplog: pytest.LogCaptureFixture) -> str:
    """The pairing code of the start-up line (the last one logged, in set-up or the test)."""
    records = [*caplog.get_records("setup"), *caplog.records]
    found = [_OFFER.search(r.getMessage()) for r in records if r.levelname == "WARNING"]
    codes = [m.group(1) for m in found if m is not None]
    assert codes, "no pairing line was logged"
    return codes[-1]


def tuning(clock: FakeClock) -> Tuning:
    """The harness's own test tuning, on a clock the test moves."""
    return Tuning(
        edit_interval_s=0.0,
        retry_wait_cap_s=5.0,
        progress_settle_s=0.5,
        sleep=RecordedSleep(),
        wall_clock=clock,
    )


def sent_to(harness: Harness, chat_id: int) -> list[SendMessage]:
    """Every sendMessage to one chat, in order."""
    return [m for m in harness.session.called("sendMessage") if m.chat_id == chat_id]


def texts_to(harness: Harness, chat_id: int) -> list[str]:
    """The texts sent to one chat, sendMessage and edits alike."""
    return [
        str(c.text)
        for c in harness.session.calls
        if isinstance(c, SendMessage | EditMessageText) and c.chat_id == chat_id
    ]


def expect_requests(harness: Harness, *admin_ids: int) -> dict[int, int]:
    """Queue the ids of the request messages the admins (in id order) are about to get.

    The bot sends the requests before it answers the stranger, so they are the next sends.
    """
    ids = {}
    for n, admin in enumerate(sorted(admin_ids)):
        ids[admin] = 500 + n
        harness.session.add_result(
            "sendMessage",
            {
                "message_id": ids[admin],
                "date": int(time.time()),
                "chat": {"id": admin, "type": "private", "first_name": "Admin"},
                "from": bot_user_json(),
                "text": "request",
            },
        )
    return ids


def as_received(sent: SendMessage, message_id: int) -> dict[str, Any]:
    """The bot's sent message as a callback query carries it."""
    return {
        "message_id": message_id,
        "date": int(time.time()),
        "chat": {"id": sent.chat_id, "type": "private", "first_name": "Admin"},
        "from": bot_user_json(),
        "text": sent.text,
    }


async def tap(
    harness: Harness, sent: SendMessage, message_id: int, data: str, user_id: int
) -> None:
    """A press of one of the buttons under `sent`, by `user_id`."""
    harness.session.add_result("answerCallbackQuery", True)
    update = harness.updates.callback(data, user_id=user_id, message=as_received(sent, message_id))
    await harness.feed(update)


def button_data(sent: SendMessage) -> list[str]:
    """The callback data of every button under a message."""
    markup = sent.reply_markup
    assert markup is not None
    return [str(b.callback_data) for row in markup.inline_keyboard for b in row]  # type: ignore[union-attr]
