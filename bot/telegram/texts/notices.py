"""The texts of /subscribe, /unsubscribe, /subscriptions and of the change digests, in Russian
and English.

Kept apart from the main `Texts` because only this feature uses them. Names from the documents
folder are escaped and shown with their hidden characters written out; a digest lists each
document once and stays within one message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.digests.notices.digest import Digest, Item, ItemKind
from bot.telegram.texts.names import visible
from bot.telegram.texts.numbers import count, integer

MAX_CHARS = 3500
"""A digest's length at most, well inside Telegram's 4096 for one message."""

_ORDER: tuple[ItemKind, ...] = ("added", "moved", "changed", "removed")


@dataclass(frozen=True, slots=True)
class NoticeTexts:
    """One language's texts for change notices (HTML)."""

    lang: str
    everything: str
    in_everything: str
    subscribed: str
    already: str
    covered: str
    replaced: str
    unsubscribed: str
    unsubscribed_all: str
    not_subscribed: str
    none: str
    listing: str
    group_admin_only: str
    missing: str
    bad_name: str
    not_a_folder: str
    digest_title: str
    heads: dict[ItemKind, str]
    sections: dict[ItemKind, str]
    more: str
    document_forms: tuple[str, ...]
    minute_forms: tuple[str, ...]
    second_forms: tuple[str, ...]

    def folder(self, folder: str) -> str:
        """A subscribed folder for people: `<b>hr/</b>`, or everything the chat may see."""
        return f"<b>{escape(visible(folder))}/</b>" if folder else self.everything

    def folders(self, folders: Sequence[str]) -> str:
        """Several folders, comma-separated."""
        return ", ".join(self.folder(f) for f in folders)

    def quiet(self, seconds: float) -> str:
        """The quiet period in words: `5 минут`, `30 seconds`."""
        whole = round(seconds)
        if whole >= 60 and whole % 60 == 0:
            return count(self.lang, whole // 60, self.minute_forms)
        return count(self.lang, whole, self.second_forms)

    def subscribed_to(self, folder: str, quiet_s: float) -> str:
        """The reply to a new subscription."""
        return self.subscribed.format(folder=self.folder(folder), quiet=self.quiet(quiet_s))

    def listed(self, folders: Sequence[str]) -> str:
        """The chat's subscriptions, or how to make one."""
        if not folders:
            return self.none
        return "\n".join([self.listing, *(f"• {self.folder(f)}" for f in folders)])

    def digest(self, told: Digest) -> str:
        """One subscriber's digest: one line for a single document, else a section per kind."""
        folder = told.folder
        where = self.in_everything if not folder else self.folder(folder)
        if len(told.items) == 1:
            item = told.items[0]
            return f"🔔 {self.heads[item.kind].format(where=where)}: {self._item(item, folder)}"
        lines = [f"🔔 {self.digest_title.format(where=where)}"]
        size = len(lines[0])
        shown = 0
        for kind in _ORDER:
            items = told.of(kind)
            if not items:
                continue
            head = f"\n{self.sections[kind]} ({integer(self.lang, len(items))}):"
            if size + len(head) > MAX_CHARS - 100:
                break
            lines.append(head)
            size += len(head) + 1
            for item in items:
                line = f"• {self._item(item, folder)}"
                if size + len(line) + 1 > MAX_CHARS - 100:
                    break
                lines.append(line)
                size += len(line) + 1
                shown += 1
        if shown < len(told.items):
            left = len(told.items) - shown
            lines.append(self.more.format(documents=count(self.lang, left, self.document_forms)))
        return "\n".join(lines)

    def _item(self, item: Item, folder: str) -> str:
        if item.kind == "moved":
            return f"{_name(item.source, folder)} → {_name(item.path, folder)}"
        return _name(item.path, folder)


def _name(path: str, folder: str) -> str:
    """A path as the subscriber of `folder` reads it: below that folder, escaped."""
    shown = path[len(folder) + 1 :] if folder and path.startswith(folder + "/") else path
    return escape(visible(shown))


RUSSIAN_NOTICES = NoticeTexts(
    lang="ru",
    everything="все доступные документы",
    in_everything="документах",
    subscribed="🔔 Готово: я напишу сюда, когда в {folder} появятся, изменятся или пропадут "
    "документы — одним сообщением, когда изменения утихнут на {quiet}.\n"
    "/subscriptions — подписки, /unsubscribe — отписаться.",
    already="🔔 Этот чат уже подписан на {folder}.",
    covered="🔔 {folder} уже входит в подписку на {covering}.",
    replaced="Она заменила подписки на {folders}.",
    unsubscribed="🔕 Подписка на {folder} отменена.",
    unsubscribed_all="🔕 Подписки этого чата отменены: {n}.",
    not_subscribed="Подписки на {folder} нет. /subscriptions — подписки этого чата.",
    none="🔕 Подписок нет. /subscribe [папка] — узнавать о новых, изменённых и удалённых "
    "документах в папке (без папки — во всех доступных).",
    listing="🔔 Подписки этого чата:",
    group_admin_only="🔒 Подписать группу или отписать её может только администратор бота.",
    missing="Папки {folder} нет среди доступных вам.",
    bad_name="{folder} — не имя папки.",
    not_a_folder="{folder} — это файл, а не папка.",
    digest_title="Изменения в {where}:",
    heads={
        "added": "Новое в {where}",
        "changed": "Изменено в {where}",
        "removed": "Удалено в {where}",
        "moved": "Перемещено в {where}",
    },
    sections={
        "added": "Новое",
        "moved": "Перемещено",
        "changed": "Изменено",
        "removed": "Удалено",
    },
    more="…и ещё {documents}.",
    document_forms=("документ", "документа", "документов"),
    minute_forms=("минуту", "минуты", "минут"),
    second_forms=("секунду", "секунды", "секунд"),
)

ENGLISH_NOTICES = NoticeTexts(
    lang="en",
    everything="all the documents this chat may see",
    in_everything="the documents",
    subscribed="🔔 Done: I will write here when documents appear, change or go in {folder}, "
    "in one message once the changes have been quiet for {quiet}.\n"
    "/subscriptions lists them, /unsubscribe ends them.",
    already="🔔 This chat is already subscribed to {folder}.",
    covered="🔔 {folder} is already part of the subscription to {covering}.",
    replaced="It takes the place of the subscriptions to {folders}.",
    unsubscribed="🔕 The subscription to {folder} has ended.",
    unsubscribed_all="🔕 This chat's subscriptions have ended: {n}.",
    not_subscribed="This chat is not subscribed to {folder}. /subscriptions lists its "
    "subscriptions.",
    none="🔕 No subscriptions. /subscribe [folder] tells you about new, changed and removed "
    "documents in a folder (without one: in all you may see).",
    listing="🔔 This chat's subscriptions:",
    group_admin_only="🔒 Only an admin of the bot can subscribe or unsubscribe a group.",
    missing="There is no folder {folder} among those you may see.",
    bad_name="{folder} is not a folder name.",
    not_a_folder="{folder} is a file, not a folder.",
    digest_title="Changes in {where}:",
    heads={
        "added": "New in {where}",
        "changed": "Changed in {where}",
        "removed": "Removed from {where}",
        "moved": "Moved in {where}",
    },
    sections={
        "added": "New",
        "moved": "Moved",
        "changed": "Changed",
        "removed": "Removed",
    },
    more="…and {documents} more.",
    document_forms=("document", "documents"),
    minute_forms=("minute", "minutes"),
    second_forms=("second", "seconds"),
)


def notice_texts(lang: str) -> NoticeTexts:
    """The texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_NOTICES if lang == "ru" else ENGLISH_NOTICES
