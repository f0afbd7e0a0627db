"""Who a message is for, which conversation it belongs to, and the question it carries.

In private chats every message is for the bot. In groups the bot answers only when mentioned
by @username, when someone replies to one of its messages, or for `/command@this_bot`;
everything else is other people's talk and is left alone. (Its known commands answer a bare
`/command` in groups too; that is the commands router's filter, not this one.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aiogram.types import Chat, Message, MessageEntity, User

GROUP_TYPES = frozenset({"group", "supergroup"})


def is_group(chat: Chat) -> bool:
    """Whether the chat is a group or supergroup."""
    return chat.type in GROUP_TYPES


def conversation_key(chat: Chat, user: User | None, thread_id: int | None = None) -> str:
    """`chat:<id>` in private chats; `chat:<id>:user:<id>` so group members keep their own;
    `:topic:<id>` after the chat in a forum topic, so each topic is a conversation of its own
    (a question about leave in the HR topic does not carry on one asked in Finance)."""
    place = f"chat:{chat.id}" if thread_id is None else f"chat:{chat.id}:topic:{thread_id}"
    if is_group(chat) and user is not None:
        return f"{place}:user:{user.id}"
    return place


def _text_and_entities(message: Message) -> tuple[str, list[MessageEntity]]:
    if message.text is not None:
        return message.text, list(message.entities or [])
    return message.caption or "", list(message.caption_entities or [])


def _is_bot_mention(entity: MessageEntity, text: str, me: User) -> bool:
    if entity.type == "text_mention":
        return entity.user is not None and entity.user.id == me.id
    if entity.type != "mention" or not me.username:
        return False
    return entity.extract_from(text).lower() == f"@{me.username.lower()}"


def mentions_bot(message: Message, me: User) -> bool:
    """An @username (or text mention) entity naming this bot, compared case-insensitively."""
    text, entities = _text_and_entities(message)
    return any(_is_bot_mention(e, text, me) for e in entities)


def replies_to_bot(message: Message, me: User) -> bool:
    """A reply to one of the bot's own messages."""
    replied = message.reply_to_message
    return replied is not None and replied.from_user is not None and replied.from_user.id == me.id


_COMMAND = re.compile(r"/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]+))?(?=\s|$)")


@dataclass(frozen=True, slots=True)
class CommandCall:
    """A message that starts with a command: its name, the bot it names, and what follows."""

    name: str
    bot: str | None
    rest: str


def parse_command(text: str | None) -> CommandCall | None:
    """`/name[@bot] rest`, or None when the text does not start with a well-formed command.

    `/usr/share где лежит?` is not a command: `/usr` runs straight into more path.
    """
    match = _COMMAND.match(text or "")
    if match is None:
        return None
    rest = (text or "")[match.end() :].strip()
    return CommandCall(match.group(1).lower(), match.group(2), rest)


def command_for_bot(message: Message, me: User) -> bool:
    """`/cmd@this_bot` (a bare `/cmd` in a group may be meant for any bot there)."""
    call = parse_command(message.text)
    return (
        call is not None
        and call.bot is not None
        and me.username is not None
        and call.bot.lower() == me.username.lower()
    )


def addressed_to_bot(message: Message, me: User) -> bool:
    """Whether the bot should react to `message` at all."""
    if not is_group(message.chat):
        return True
    return mentions_bot(message, me) or replies_to_bot(message, me) or command_for_bot(message, me)


def question_text(message: Message, me: User) -> str:
    """The message text (or caption) without the bot's own mentions, trimmed."""
    text, entities = _text_and_entities(message)
    units = text.encode("utf-16-le")
    cuts = sorted(
        ((e.offset, e.offset + e.length) for e in entities if _is_bot_mention(e, text, me)),
        reverse=True,
    )
    for start, end in cuts:
        units = units[: start * 2] + b" " + b"\x00" + units[end * 2 :]
    cleaned = units.decode("utf-16-le")
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip() if cuts else cleaned.strip()


def has_words(text: str) -> bool:
    """Whether the text holds at least one letter or digit (emoji and punctuation do not count)."""
    return any(ch.isalnum() for ch in text)
