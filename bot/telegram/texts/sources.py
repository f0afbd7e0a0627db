"""The texts of `/sources`, of the question about a held-back mass deletion and of the notices
that a source broke or works again, in Russian and English.

Kept apart from the main `Texts` because only this feature uses them. A source is shown by its
name, kind and folder, never by its address or credentials (those stay in SOURCES_FILE). The
last pass's error line is the engine's own (worded without a secret) and is shown as it is,
escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.documents.sources.health import Health
from bot.documents.sources.runner import SourceStatus
from bot.documents.sources.state import PassReport, PendingDeletion
from bot.telegram.texts.names import tail
from bot.telegram.texts.numbers import count, decimal
from bot.telegram.texts.people import when

PATHS_SHOWN = 5
"""How many of the files a held-back deletion would remove the question names."""
MAX_PATH = 80
_MINUTE = 60
_HOUR = 3600
_DAY = 86400


@dataclass(frozen=True, slots=True)
class SourcesTexts:
    """One language's texts for the mirrored sources (HTML unless said plain)."""

    lang: str
    title: str
    none: str
    none_seen: str
    head: str
    never: str
    synced: str
    counts: str
    failed: str
    pending: str
    question: str
    question_more: str
    nothing_deleted: str
    broken: str
    still_broken: str
    works_again: str
    # plain: button labels
    confirm_button: str
    keep_button: str
    sync_button: str
    # the outcomes of a tap
    confirmed: str
    stale: str
    unknown: str
    kept: str
    sync_done: str
    sync_failed: str
    sync_busy: str
    sync_error: str
    not_seen: str
    just_now: str
    ago: str
    minute_forms: tuple[str, ...]
    hour_forms: tuple[str, ...]
    day_forms: tuple[str, ...]
    file_forms: tuple[str, ...]

    def listing(self, statuses: Sequence[SourceStatus], *, now: float, configured: bool) -> str:
        """`/sources`: one block per source the admin may see; how to add some when there
        are none (`configured`: some exist, but none the admin may see)."""
        if not statuses:
            return self.none_seen if configured else self.none
        return "\n\n".join([self.title, *(self.block(status, now=now) for status in statuses)])

    def block(self, status: SourceStatus, *, now: float) -> str:
        """One source: what it is, its last success, its last pass, a held-back deletion."""
        lines = [
            self.head.format(
                name=escape(status.name),
                kind=escape(status.kind),
                folder=escape(status.folder),
                every=self.period(status.every_s),
            )
        ]
        if status.last_success is None:
            lines.append(self.never)
        else:
            success = status.last_success
            lines.append(self.synced.format(ago=self.since(success, now), when=when(success)))
        last = status.last
        if last is not None:
            lines.append(self.tally(last))
            if not last.ok and last.problem not in ("guard", "suspicious") and last.error:
                lines.append(
                    self.failed.format(ago=self.since(last.at, now), error=escape(last.error))
                )
        if status.pending is not None:
            lines.append(self.pending_line(status.pending))
        return "\n".join(lines)

    def tally(self, report: PassReport) -> str:
        """`3 added, 1 changed, 0 moved, 2 removed`."""
        return self.counts.format(
            added=report.added, changed=report.changed, moved=report.moved, removed=report.removed
        )

    def pending_line(self, pending: PendingDeletion) -> str:
        """A held-back deletion: how many of how many."""
        return self.pending.format(
            count=pending.count,
            total=count(self.lang, pending.total, self.file_forms),
            percent=self.percent(pending),
        )

    def ask(self, status: SourceStatus, paths: Sequence[str]) -> str:
        """The question to an admin: the source, N of M files, a few of them (those the admin
        may see, `paths`), and that nothing was deleted."""
        pending = status.pending
        assert pending is not None
        lines = [
            self.question.format(
                name=escape(status.name),
                folder=escape(status.folder),
                count=pending.count,
                total=count(self.lang, pending.total, self.file_forms),
                percent=self.percent(pending),
            )
        ]
        lines += [f"• <code>{escape(tail(path, MAX_PATH))}</code>" for path in paths[:PATHS_SHOWN]]
        if len(paths) > PATHS_SHOWN:
            lines.append(self.question_more.format(n=len(paths) - PATHS_SHOWN))
        lines.append(self.nothing_deleted)
        return "\n".join(lines)

    def health(self, status: SourceStatus, health: Health) -> str:
        """The notice that the source broke (nothing was deleted), still fails, or works again
        (with the pass's counts)."""
        name, folder = escape(status.name), escape(status.folder)
        if health.event == "recovered":
            return self.works_again.format(
                name=name, folder=folder, tally=self.tally(health.report)
            )
        text = self.broken if health.event == "failed" else self.still_broken
        span = self.span(health.report.at - health.since)
        return text.format(name=name, folder=folder, reason=escape(health.reason), span=span)

    def percent(self, pending: PendingDeletion) -> str:
        """The share of the folder's files, `30` or `2,5`."""
        share = pending.count * 100 / pending.total if pending.total else 100.0
        return decimal(self.lang, share, 0 if share == int(share) else 1)

    def since(self, moment: float, now: float) -> str:
        """`5 minutes ago`, `just now`."""
        seconds = max(0.0, now - moment)
        if seconds < _MINUTE:
            return self.just_now
        return self.ago.format(span=self.span(seconds))

    def span(self, seconds: float) -> str:
        """A length of time in its largest whole unit: `15 minutes`, `2 hours`, `1 day`."""
        if seconds < _HOUR:
            return count(self.lang, int(seconds // _MINUTE), self.minute_forms)
        if seconds < _DAY:
            return count(self.lang, int(seconds // _HOUR), self.hour_forms)
        return count(self.lang, int(seconds // _DAY), self.day_forms)

    def period(self, seconds: float) -> str:
        """How often a source syncs, in the largest unit that divides it (`15 minutes`)."""
        whole = int(seconds)
        if whole % _DAY == 0:
            return count(self.lang, whole // _DAY, self.day_forms)
        if whole % _HOUR == 0:
            return count(self.lang, whole // _HOUR, self.hour_forms)
        if whole % _MINUTE == 0:
            return count(self.lang, whole // _MINUTE, self.minute_forms)
        return f"{whole} s"


ENGLISH_SOURCES = SourcesTexts(
    lang="en",
    title="<b>🔄 Sources</b>",
    none="🔄 No sources are configured. To mirror documents from WebDAV, S3, a mailbox or any "
    "rclone remote into the folder, list them in the file SOURCES_FILE names (see "
    "docs/sources/index.md) and restart the bot.",
    none_seen="🔄 No source mirrors into your folders.",
    head="<b>{name}</b> ({kind}) → <code>{folder}/</code>, every {every}",
    never="Not synced yet.",
    synced="Last synced {ago} ({when}).",
    counts="Last pass: {added} added, {changed} changed, {moved} moved, {removed} removed.",
    failed="⚠️ It failed {ago}: {error}",
    pending="⏸ Held back: {count} of {total} ({percent} %) would be deleted; nothing was "
    "deleted until an admin confirms.",
    question="⏸ Source <b>{name}</b> (<code>{folder}/</code>): the sync would delete {count} "
    "of {total} ({percent} %).",
    question_more="…and {n} more.",
    nothing_deleted="Nothing was deleted. Deleted files go to the trash (/trash restores them).",
    broken="⚠️ Source <b>{name}</b> (<code>{folder}/</code>) failed: {reason}\nNothing was "
    "deleted: the folder stays as it was. You will be told when it works again.",
    still_broken="⚠️ Source <b>{name}</b> (<code>{folder}/</code>) still fails, for {span} "
    "now: {reason}\nNothing was deleted. You will be told when it works again.",
    works_again="✅ Source <b>{name}</b> (<code>{folder}/</code>) works again. {tally}",
    confirm_button="🗑 Delete them",
    keep_button="Keep",
    sync_button="🔄 Sync {name}",
    confirmed="🗑 Confirmed: the files are being deleted now (to the trash; /trash restores them).",
    stale="⏳ This question is out of date: the files to delete changed or were settled "
    "since. If deletions are still held back, a new question was sent (/sources shows it).",
    unknown="This source is no longer configured.",
    kept="✋ Kept: nothing is deleted and the folder stays as it is. The next passes keep these "
    "files without asking again; if the set of files to delete changes, you get a new "
    "question. /sources can still confirm this one.",
    sync_done="🔄 {name}: synced. {tally}",
    sync_failed="⚠️ {name}: the pass did not finish cleanly: {error}",
    sync_busy="⏳ {name} is being synced right now; try again in a moment.",
    sync_error="⚠️ {name}: the pass failed; the log has the details.",
    not_seen="This source lies outside your folders.",
    just_now="just now",
    ago="{span} ago",
    minute_forms=("minute", "minutes"),
    hour_forms=("hour", "hours"),
    day_forms=("day", "days"),
    file_forms=("file", "files"),
)

RUSSIAN_SOURCES = SourcesTexts(
    lang="ru",
    title="<b>🔄 Источники</b>",
    none="🔄 Источники не настроены. Чтобы зеркалировать документы из WebDAV, S3, почтового "
    "ящика или любого удалённого хранилища rclone в папку, перечислите их в файле, который "
    "указан в SOURCES_FILE (см. docs/sources/index.md), и перезапустите бота.",
    none_seen="🔄 Ни один источник не зеркалируется в ваши папки.",
    head="<b>{name}</b> ({kind}) → <code>{folder}/</code>, каждые {every}",
    never="Ещё не синхронизирован.",
    synced="Последняя синхронизация: {ago} ({when}).",
    counts="Последний проход: добавлено {added}, изменено {changed}, перенесено {moved}, "
    "удалено {removed}.",
    failed="⚠️ Сбой {ago}: {error}",
    pending="⏸ Отложено: {count} из {total} ({percent} %) были бы удалены; ничего не удалено, "
    "пока администратор не подтвердит.",
    question="⏸ Источник <b>{name}</b> (<code>{folder}/</code>): синхронизация удалила бы "
    "{count} из {total} ({percent} %).",
    question_more="…и ещё {n}.",
    nothing_deleted="Ничего не удалено. Удалённые файлы попадают в корзину (/trash вернёт их).",
    broken="⚠️ Источник <b>{name}</b> (<code>{folder}/</code>) не работает: {reason}\n"
    "Ничего не удалено: папка осталась как была. Когда он снова заработает, придёт сообщение.",
    still_broken="⚠️ Источник <b>{name}</b> (<code>{folder}/</code>) всё ещё не работает, уже "
    "{span}: {reason}\nНичего не удалено. Когда он снова заработает, придёт сообщение.",
    works_again="✅ Источник <b>{name}</b> (<code>{folder}/</code>) снова работает. {tally}",
    confirm_button="🗑 Удалить их",
    keep_button="Оставить",
    sync_button="🔄 Синхронизировать {name}",
    confirmed="🗑 Подтверждено: файлы удаляются сейчас (в корзину; /trash вернёт их).",
    stale="⏳ Этот вопрос устарел: набор файлов к удалению изменился или уже решён. Если "
    "удаление всё ещё отложено, отправлен новый вопрос (его показывает /sources).",
    unknown="Этого источника больше нет в настройках.",
    kept="✋ Оставлено: ничего не удалено, папка остаётся как есть. Следующие проходы сохранят "
    "эти файлы, не спрашивая снова; если набор файлов к удалению изменится, придёт новый "
    "вопрос. Подтвердить этот можно и позже в /sources.",
    sync_done="🔄 {name}: синхронизировано. {tally}",
    sync_failed="⚠️ {name}: проход завершился с ошибкой: {error}",
    sync_busy="⏳ {name} сейчас синхронизируется; попробуйте чуть позже.",
    sync_error="⚠️ {name}: проход не удался; подробности в журнале.",
    not_seen="Этот источник вне ваших папок.",
    just_now="только что",
    ago="{span} назад",
    minute_forms=("минуту", "минуты", "минут"),
    hour_forms=("час", "часа", "часов"),
    day_forms=("день", "дня", "дней"),
    file_forms=("файла", "файлов", "файлов"),
)


def sources_texts(lang: str) -> SourcesTexts:
    """The texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_SOURCES if lang == "ru" else ENGLISH_SOURCES
