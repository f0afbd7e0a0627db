"""SCOPES_FILE: a TOML file mapping chat and user ids to folder lists, read once at start.

```toml
default = ["общие"]                      # everyone not listed
-1001234567890 = ["продажи", "общие"]   # a group
"-1001234567890/7" = ["hr"]              # one forum topic of that group
42 = ["*"]                               # a user: everything
```

A forum topic's entry (`chat/topic`, quoted: TOML keys with a slash need quotes) replaces
its group's for questions asked in that topic.

Every problem is reported with the key it is about, so an operator can fix the file without
reading code; a file that cannot be used stops the bot at start (and fails `python -m bot
check`), never a question later. Without a `default` entry, ids that are not listed see
everything, as they would with no file at all.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.process.setting_files import read_setting_file
from tools.jail.scope import Scope, ScopeError

DEFAULT_KEY = "default"
_ID = re.compile(r"-?[0-9]{1,20}")
_TOPIC = re.compile(r"(-?[0-9]{1,20})/([0-9]{1,20})")


def place_key(chat_id: int, thread_id: int | None = None) -> str:
    """How a chat, or one forum topic of it, is named in SCOPES_FILE, the audit log and
    `/status`: `-100123`, or `-100123/7` for topic 7."""
    return str(chat_id) if thread_id is None else f"{chat_id}/{thread_id}"


class ScopesFileError(ValueError):
    """SCOPES_FILE cannot be used; the message says where and why."""


@dataclass(frozen=True, slots=True)
class ScopeRules:
    """The file's scopes: `None` means everything, for the default and for any id."""

    default: Scope | None = None
    by_id: Mapping[int, Scope | None] = field(default_factory=dict)
    by_topic: Mapping[tuple[int, int], Scope | None] = field(default_factory=dict)
    """Forum topics' own entries, by (chat id, topic id)."""
    configured: bool = False
    """A file was given (even one that restricts nobody)."""

    def of(self, chat_or_user_id: int) -> Scope | None:
        """The scope the file gives this chat or user: its own entry, else the default."""
        return self.by_id.get(chat_or_user_id, self.default)

    def listed(self, chat_or_user_id: int) -> bool:
        """Whether the id has an entry of its own."""
        return chat_or_user_id in self.by_id

    def topic(self, chat_id: int, thread_id: int) -> tuple[bool, Scope | None]:
        """Whether a forum topic has an entry of its own, and its scope if it has."""
        key = (chat_id, thread_id)
        return key in self.by_topic, self.by_topic.get(key)

    def entries(self) -> int:
        """How many chats, forum topics and users the file lists (the default aside)."""
        return len(self.by_id) + len(self.by_topic)

    def folders(self) -> set[str]:
        """Every folder the file names (to check that they exist)."""
        found = set(self.default.folders if self.default else ())
        for scope in (*self.by_id.values(), *self.by_topic.values()):
            found.update(scope.folders if scope else ())
        return found


def _scope(key: str, value: object) -> Scope | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f'{key}: expected a list of folder names, such as ["sales", "common"]'
        raise ScopesFileError(msg)
    try:
        return Scope.of(value)
    except ScopeError as exc:
        raise ScopesFileError(f"{key}: {exc}") from None


def parse_rules(text: str) -> ScopeRules:
    """The rules in a TOML text.

    Raises:
        ScopesFileError: the text is not TOML, or an entry is not `id = ["folder", ...]`.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScopesFileError(f"not valid TOML: {exc}") from None
    default: Scope | None = None
    by_id: dict[int, Scope | None] = {}
    by_topic: dict[tuple[int, int], Scope | None] = {}
    for key, value in data.items():
        topic = _TOPIC.fullmatch(key)
        if key == DEFAULT_KEY:
            default = _scope(key, value)
        elif _ID.fullmatch(key):
            by_id[int(key)] = _scope(key, value)
        elif topic is not None:
            by_topic[(int(topic.group(1)), int(topic.group(2)))] = _scope(key, value)
        else:
            msg = (
                f"{key[:60]!r}: a key is `default`, a numeric Telegram chat or user id "
                '(groups are negative, e.g. -1001234567890) or a forum topic, "chat/topic" '
                '(e.g. "-1001234567890/7")'
            )
            raise ScopesFileError(msg)
    return ScopeRules(default, by_id, by_topic, configured=True)


def load_rules(path: Path | None) -> ScopeRules:
    """The rules of the file at `path`; none (everything for everyone) without a path.

    Raises:
        ScopesFileError: the file cannot be read or used; the message names the file.
    """
    if path is None:
        return ScopeRules()
    text = read_setting_file(path, ScopesFileError)
    try:
        return parse_rules(text)
    except ScopesFileError as exc:
        raise ScopesFileError(f"{path}: {exc}") from None
