"""The shape of one language's texts, and the few that need numbers or values filled in.

Texts that go out with HTML parse mode escape every value they interpolate; plain texts do not
need to. Both languages are instances of one dataclass, so a missing translation is an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from bot.agent.breaker import BreakerState
from bot.agent.quotes.marks import QuoteWords, markdown_text, pages_words, section_words
from bot.telegram.texts.names import visible
from bot.telegram.texts.numbers import count, decimal, integer
from bot.telegram.texts.usage import ESTIMATED_MARK
from tools.extract.places import Place


def _code(value: object) -> str:
    return f"<code>{escape(str(value))}</code>"


def _clock(seconds: int) -> str:
    """A duration as m:ss (or h:mm:ss), the way players show it in every language."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass(frozen=True, slots=True)
class Texts:
    """One language's texts. HTML unless a field's comment in the language module says plain."""

    lang: str
    about: str
    ask_hint: str
    documents_count: str
    index_building: str
    group_privacy: str
    commands_help: str
    admin_help: str
    reset_done: str
    files_header: str
    files_empty: str
    files_more: str
    folder_more: str
    stranger: str
    rate_limited: str
    chat_busy: str
    empty_question: str
    non_text: str
    voice_hint: str
    voice_heard: str
    voice_off: str
    voice_too_long: str
    voice_too_big: str
    voice_empty: str
    voice_unavailable: str
    voice_auth: str
    voice_rate_limited: str
    voice_failed: str
    voice_download_failed: str
    picture_hint: str
    picture_question: str
    """Plain: what a picture without a caption asks the model."""
    picture_too_big: str
    picture_too_many_pixels: str
    picture_unreadable: str
    picture_download_failed: str
    picture_numbered: str
    pictures_over_count: str
    note_pictures_as_text: str
    """Markdown: under an answer whose pictures the model got as their recognised text only."""
    caption_as_question: str
    upload_refused: str
    admin_only: str
    upload_too_big: str
    upload_over_limit: str
    upload_too_big_for_server: str
    upload_bad_folder: str
    folder_is_file: str
    upload_disk_full: str
    upload_download_failed: str
    upload_download_timeout: str
    upload_failed: str
    upload_in_private: str
    caption_not_folder: str
    upload_saved_text: str
    upload_saved_no_text: str
    upload_ocr_pages: str
    upload_outside_scope: str
    upload_no_folder: str
    upload_unreadable: str
    write_as_yourself: str
    group_not_allowed: str
    reindex_started: str
    reindex_done: str
    reindex_needs_ocr: str
    reindex_failed: str
    status_title: str
    status_version: str
    status_models: str
    status_model_on: str
    status_model_paused: str
    status_model_due: str
    status_reranker_on: str
    status_reranker_paused: str
    status_reranker_due: str
    status_model: str
    status_context: str
    status_documents: str
    status_building: str
    status_meaning: str
    status_meaning_error: str
    status_last: str
    status_no_last: str
    status_estimated: str
    """Under the last question's tokens when the bot estimated them (the server reported none)."""
    error_unavailable: str
    error_stream_cut: str
    error_auth: str
    error_rate_limited: str
    error_bad_reply: str
    error_too_long: str
    error_generic: str
    error_interrupted: str
    delivery_partial: str
    note_cut_short: str
    note_truncated: str
    note_fallback: str
    note_handover: str
    sources_label: str
    sources_more: str
    note_not_from_documents: str
    quote_words: QuoteWords
    source_sending: str
    source_expired: str
    source_gone: str
    button_no_access: str
    button_outdated: str
    button_not_here: str
    source_too_big: str
    source_unreadable: str
    source_send_failed: str
    page_button: str
    page_caption: str
    page_drawing: str
    page_missing: str
    page_failed: str
    page_later: str
    progress_thinking: str
    progress_tools: Mapping[str, str]
    """A status line per tool name, `{subject}` being what the call is about."""
    progress_tool: str
    """The status line of a tool without its own, with `{tool}` and `{subject}`."""
    progress_writing: str
    progress_restarted: str
    pairing_done: str
    pairing_already_admin: str
    pairing_wrong: str
    pairing_expired: str
    pairing_locked: str
    request_sent: str
    request_pending: str
    request_to_admin: str
    request_allow_button: str
    request_ignore_button: str
    request_allowed: str
    request_ignored: str
    request_settled_already: str
    let_in: str
    access_usage: str
    access_bad_id: str
    access_in_private: str
    allow_done: str
    allow_already: str
    deny_done: str
    deny_not_granted: str
    deny_env_admin: str
    deny_env_user: str
    deny_self: str
    deny_last_admin: str
    deny_allow_all_note: str
    users_title: str
    users_allow_all: str
    users_from_env: str
    users_granted: str
    users_none_granted: str
    users_more: str
    role_admin: str
    role_user: str
    grant_paired: str
    grant_by: str
    status_granted: str
    manage_in_private: str
    rm_usage: str
    mv_usage: str
    path_problems: Mapping[str, str]
    """Why a path an admin named cannot be used, by `DocumentError.problem`, with `{path}`."""
    rm_confirm: str
    mv_confirm: str
    confirm_button: str
    cancel_button: str
    cancelled: str
    confirm_expired: str
    rm_done: str
    mv_done: str
    change_failed: str
    trash_title: str
    trash_empty: str
    trash_line: str
    restore_button: str
    restore_done: str
    restore_conflict: str
    restore_gone: str
    audit_title: str
    audit_empty: str
    audit_actions: Mapping[str, str]
    """What each audit action is called in `/audit`."""
    forget_confirm: str
    forget_button: str
    forget_done: str
    command_descriptions: tuple[tuple[str, str], ...]
    admin_command_descriptions: tuple[tuple[str, str], ...]
    """The commands admins see in their menu in addition to everyone's."""
    minutes_forms: tuple[str, ...]
    rounds_forms: tuple[str, ...]
    messages_forms: tuple[str, ...]
    errors_forms: tuple[str, ...]
    conversations_forms: tuple[str, ...]

    def number(self, n: int) -> str:
        """An integer with this language's thousands separator."""
        return integer(self.lang, n)

    def start(self, documents: int, *, ready: bool, admin: bool, voice: bool = True) -> str:
        """Greeting: what the bot does and how much it can see (and hear, with `voice`)."""
        lines = [self.about, "", self.documents_count.format(n=self.number(documents))]
        if not ready:
            lines.append(self.index_building)
        lines += ["", *self._ways_to_ask(voice), "", self.commands_help]
        if admin:
            lines += ["", self.admin_help]
        return "\n".join(lines)

    def help(self, *, admin: bool, voice: bool = True) -> str:
        """How to ask (with a picture, by voice with `voice`), the commands, the admin part."""
        lines = [*self._ways_to_ask(voice), "", self.commands_help]
        if admin:
            lines += ["", self.admin_help]
        return "\n".join(lines)

    def _ways_to_ask(self, voice: bool) -> list[str]:
        return [self.ask_hint, self.picture_hint, *([self.voice_hint] if voice else [])]

    def files_more_in_folder(self, n: int) -> str:
        """The line under a folder's first files: how many more it holds."""
        return self.folder_more.format(n=self.number(n))

    def stranger_reply(self, user_id: int) -> str:
        """What a user without access learns: their id and how to ask for access."""
        return self.stranger.format(id=_code(user_id))

    def request_sent_reply(self, user_id: int) -> str:
        """A stranger's first message: the admins were asked to let them in."""
        return self.request_sent.format(id=_code(user_id))

    def request_pending_reply(self, user_id: int) -> str:
        """A stranger who asked already: the request is still with the admins."""
        return self.request_pending.format(id=_code(user_id))

    def pairing_wrong_reply(self, attempts_left: int) -> str:
        """A wrong pairing code, and how many more may be tried."""
        return self.pairing_wrong.format(left=self.number(attempts_left))

    def pairing_locked_reply(self, retry_after_s: float) -> str:
        """Too many wrong pairing codes: when the next one is read."""
        minutes = max(1, round(retry_after_s / 60))
        return self.pairing_locked.format(minutes=count(self.lang, minutes, self.minutes_forms))

    def rate_limited_reply(self, retry_after_s: float) -> str:
        """Polite refusal saying when the next question will be accepted."""
        minutes = max(1, round(retry_after_s / 60))
        return self.rate_limited.format(minutes=count(self.lang, minutes, self.minutes_forms))

    def upload_saved(
        self, path: str, chars: int, *, readable: bool, ocr_pages: int | None = None
    ) -> str:
        """Result of an admin upload: where it went, whether its text could be read, and how
        many pages of a scan were recognised."""
        if readable and chars > 0:
            text = self.upload_saved_text.format(path=_code(path), chars=self.number(chars))
            if ocr_pages is not None:
                text += "\n" + self.upload_ocr_pages.format(pages=self.number(ocr_pages))
            return text
        return self.upload_saved_no_text.format(path=_code(path))

    def status(
        self,
        *,
        model: str,
        tokens: int,
        window: int,
        messages: int,
        documents: int,
        ready: bool,
        last: tuple[int, int, int] | None,
        estimated: bool = False,
    ) -> str:
        """`/status`: model, context fill, index size and the last question's cost, its tokens
        marked when `estimated`."""
        percent = round(100 * tokens / window) if window else 0
        lines = [
            self.status_title,
            self.status_model.format(model=_code(model)),
            self.status_context.format(
                tokens=self.number(tokens),
                window=self.number(window),
                percent=percent,
                messages=count(self.lang, messages, self.messages_forms),
                messages_n=self.number(messages),
            ),
            self.status_documents.format(n=self.number(documents))
            + ("" if ready else f" {self.status_building}"),
        ]
        if last is None:
            lines.append(self.status_no_last)
        else:
            rounds, prompt, completion = last
            mark = ESTIMATED_MARK if estimated else ""
            lines.append(
                self.status_last.format(
                    rounds=count(self.lang, rounds, self.rounds_forms),
                    rounds_n=self.number(rounds),
                    prompt=mark + self.number(prompt),
                    completion=mark + self.number(completion),
                )
            )
            if estimated:
                lines.append(self.status_estimated)
        return "\n".join(lines)

    def models_status(self, states: Sequence[BreakerState]) -> str:
        """Admins' `/status` with fallbacks: each model of the chain, in order, and whether it
        is passed over after a failure (names only: no server, no key)."""
        lines = [self.status_models]
        for state in states:
            model = _code(state.model)
            if not state.open:
                lines.append(self.status_model_on.format(model=model))
            elif state.retry_in_s > 0:
                wait = _clock(math.ceil(state.retry_in_s))
                kind = _code(state.last_kind or "unavailable")
                lines.append(self.status_model_paused.format(model=model, kind=kind, wait=wait))
            else:
                lines.append(self.status_model_due.format(model=model))
        return "\n".join(lines)

    def reranker_status(self, state: BreakerState) -> str:
        """Admins' `/status` with RERANK_URL set: whether searches are reranked, or the
        reranker is passed over after a failure (its outcome only: no URL, no key)."""
        if not state.open:
            return self.status_reranker_on
        if state.retry_in_s > 0:
            wait = _clock(math.ceil(state.retry_in_s))
            kind = _code(state.last_kind or "error")
            return self.status_reranker_paused.format(kind=kind, wait=wait)
        return self.status_reranker_due

    def reindex_report(
        self, indexed: int, skipped: int, errors: int, seconds: float, *, needs_ocr: int = 0
    ) -> str:
        """Counts after a full rebuild, and the scans left unread for want of OCR."""
        text = self.reindex_done.format(
            indexed=self.number(indexed),
            skipped=self.number(skipped),
            errors=count(self.lang, errors, self.errors_forms),
            errors_n=self.number(errors),
            seconds=decimal(self.lang, seconds),
        )
        if needs_ocr:
            text += "\n" + self.reindex_needs_ocr.format(count=self.number(needs_ocr))
        return text

    def upload_too_big_reply(self, size_mb: float | None, limit_mb: float) -> str:
        """The document exceeds MAX_UPLOAD_MB (its size is unknown when the download stopped
        at the limit)."""
        limit = decimal(self.lang, limit_mb, 0 if limit_mb == int(limit_mb) else 1)
        if size_mb is None:
            return self.upload_over_limit.format(limit=limit)
        return self.upload_too_big.format(size=decimal(self.lang, size_mb), limit=limit)

    def upload_outside(self, folder: str, folders: Sequence[str]) -> str:
        """The caption's folder lies outside the folders the admin works with here."""
        shown = ", ".join(_code(visible(f) + "/") for f in folders)
        return self.upload_outside_scope.format(folder=_code(visible(folder)[:200]), folders=shown)

    def upload_unreadable_reply(self, name: str, kinds: Sequence[str]) -> str:
        """A file of a kind the bot cannot read, and the kinds it reads."""
        return self.upload_unreadable.format(
            name=_code(visible(name)[:200]), kinds=", ".join(kinds)
        )

    def agent_error(self, kind: str) -> str:
        """A short, useful message for an `AgentError.kind`."""
        return {
            "unavailable": self.error_unavailable,
            "stream_cut": self.error_stream_cut,
            "auth": self.error_auth,
            "rate_limited": self.error_rate_limited,
            "bad_reply": self.error_bad_reply,
            "too_long": self.error_too_long,
        }.get(kind, self.error_generic)

    def voice_error(self, kind: str) -> str:
        """A short message for a transcription that failed with this `AgentError.kind`."""
        return {
            "unavailable": self.voice_unavailable,
            "auth": self.voice_auth,
            "rate_limited": self.voice_rate_limited,
        }.get(kind, self.voice_failed)

    def heard_line(self, transcript: str, limit: int = 300) -> str:
        """What the bot heard, quoted on one line and cut at `limit` characters."""
        text = visible(" ".join(transcript.split()))
        if len(text) > limit:
            text = text[: limit - 1].rstrip() + "…"
        return self.voice_heard.format(text=escape(text))

    def voice_too_long_reply(self, seconds: int, limit_s: int) -> str:
        """A recording over MAX_VOICE_SECONDS: its length and the limit, as m:ss."""
        return self.voice_too_long.format(length=_clock(seconds), limit=_clock(limit_s))

    def voice_too_big_reply(self, limit_mb: float) -> str:
        """A recording too large to download or transcribe."""
        return self.voice_too_big.format(limit=integer(self.lang, round(limit_mb)))

    def picture_too_big_reply(self, limit_mb: float) -> str:
        """A picture over IMAGE_MAX_MB (or over what Telegram hands bots)."""
        whole = float(limit_mb).is_integer()
        limit = integer(self.lang, int(limit_mb)) if whole else decimal(self.lang, limit_mb)
        return self.picture_too_big.format(limit=limit)

    def picture_numbered_reply(self, number: int, reply: str) -> str:
        """A refusal naming which of several pictures it is about."""
        return self.picture_numbered.format(n=self.number(number), reply=reply)

    def pictures_over_count_reply(self, sent: int, most: int) -> str:
        """More pictures than IMAGES_PER_QUESTION: only the first ones are looked at."""
        return self.pictures_over_count.format(sent=self.number(sent), most=self.number(most))

    def progress_for_tool(self, name: str, subject: str | None) -> str:
        """Status line for a tool call that has just started (plain text).

        `subject` comes from the tool itself (its query, its path), so a new tool needs at
        most its own line here, and shows the general one until it has it. A tool that does
        not exist (None) changes nothing visible.
        """
        if subject is None:
            return self.progress_thinking
        shown = visible(subject)
        short = shown if len(shown) <= 60 else shown[:59] + "…"
        template = self.progress_tools.get(name)
        if template is None:
            return self.progress_tool.format(tool=visible(name)[:40], subject=short)
        return template.format(subject=short)

    def source_too_big_reply(self, name: str, size_mb: float, limit_mb: float) -> str:
        """A source too large to send: the page the answer read follows this line."""
        return self.source_too_big.format(
            name=_code(visible(name)),
            size=decimal(self.lang, size_mb),
            limit=integer(self.lang, round(limit_mb)),
        )

    def source_unreadable_reply(self, name: str, size_mb: float) -> str:
        """A source too large to send whose text cannot be read either."""
        return self.source_unreadable.format(
            name=_code(visible(name)), size=decimal(self.lang, size_mb)
        )

    def page_button_label(self, page: int) -> str:
        """The label of a button that shows page `page` (plain)."""
        return self.page_button.format(page=page)

    def page_caption_text(self, name: str, page: int) -> str:
        """The caption of a page's picture: the file's name and the page (plain)."""
        return self.page_caption.format(name=visible(name), page=page)

    def source_send_failed_reply(self, name: str) -> str:
        """Telegram did not take a source document."""
        return self.source_send_failed.format(name=_code(visible(name)))

    def forget_done_reply(self, conversations: int) -> str:
        """`/forget` is done: how many conversations were deleted."""
        return self.forget_done.format(n=count(self.lang, conversations, self.conversations_forms))

    def path_problem(self, problem: str, path: str) -> str:
        """Why the path an admin named cannot be deleted, moved or restored to."""
        template = self.path_problems.get(problem, self.path_problems["invalid"])
        return template.format(path=_code(visible(path)[:200]))

    def trash_listing(self, items: Sequence[tuple[str, str]], days: int) -> str:
        """`/trash`: what can be restored (path and when it was deleted), numbered as the
        buttons are."""
        if not items:
            return self.trash_empty
        lines = [self.trash_title.format(days=self.number(days))]
        for n, (path, deleted) in enumerate(items, start=1):
            lines.append(self.trash_line.format(n=n, path=_code(visible(path)), when=deleted))
        return "\n".join(lines)

    def audit_listing(self, entries: Sequence[tuple[str, str, str, str, str]]) -> str:
        """`/audit`: one line per entry (when, who, action, subject, detail), oldest first.

        `who` is HTML already; the rest is escaped here."""
        if not entries:
            return self.audit_empty
        lines = [self.audit_title]
        for at, who, action, subject, detail in entries:
            done = self.audit_actions.get(action, escape(action))
            subject_shown = _code(visible(subject)[:200])
            detail_shown = f" ({escape(visible(detail)[:200])})" if detail else ""
            lines.append(f"{at} · {who}: {done} {subject_shown}{detail_shown}")
        return "\n".join(lines)

    def sources_line(
        self,
        sources: tuple[str, ...],
        limit: int = 5,
        *,
        pages: Mapping[str, Sequence[int]] | None = None,
        sections: Mapping[str, Place] | None = None,
    ) -> str:
        """Markdown for the answer's last line, paths as code, each with the section quoted
        from it and the pages read or quoted ("`Правила.pdf`, § 4.2 Отпуск, с. 3, 12")."""
        pages = pages or {}
        sections = sections or {}
        named = {s: self._places_of(sections.get(s), pages.get(s)) for s in sources[:limit]}
        # a file's places are listed with commas, so files are then told apart by semicolons
        separator = "; " if any(named.values()) else ", "
        shown = separator.join(
            "`" + visible(s).replace("`", "'") + "`" + "".join(", " + w for w in named[s])
            for s in sources[:limit]
        )
        if len(sources) > limit:
            shown += " " + self.sources_more.format(n=self.number(len(sources) - limit))
        return f"{self.sources_label} {shown}"

    def _places_of(self, section: Place | None, pages: Sequence[int] | None) -> list[str]:
        """What a sources line names beside one file: the section quoted, the pages."""
        named = []
        if section is not None:
            named.append(markdown_text(visible(section_words(section, self.quote_words))))
        if pages:
            named.append(pages_words(pages, self.quote_words))
        return named
