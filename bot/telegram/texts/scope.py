"""The texts of `/scope` and of scopes in admins' `/status`, in Russian and English.

Kept apart from the main `Texts` because only this feature uses them; folder names are the
admins' own and are escaped and shown with their hidden characters written out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.telegram.texts.names import visible
from bot.telegram.texts.people import when, who
from tools.jail.scope import Scope


@dataclass(frozen=True, slots=True)
class ScopeTexts:
    """One language's scope texts (HTML)."""

    everything: str
    nothing: str
    current: str
    within: str
    none_within: str
    outside: str
    from_telegram: str
    from_file: str
    from_default: str
    no_file: str
    usage: str
    set_done: str
    reset_done: str
    reset_nothing: str
    missing: str
    not_a_folder: str
    bad_name: str
    beyond: str
    reset_beyond: str
    status_title: str
    status_line: str
    status_file: str

    def folders(self, scope: Scope | None) -> str:
        """`<code>sales/</code>, <code>common/</code>`; everything or nothing in words."""
        if scope is None:
            return self.everything
        if not scope.folders:
            return self.nothing
        return ", ".join(f"<code>{escape(visible(f))}/</code>" for f in scope.folders)

    def shown(
        self,
        scope: Scope | None,
        source: str,
        *,
        by: str = "",
        at: float = 0.0,
        file: bool,
        outside: bool = False,
    ) -> str:
        """`/scope` without arguments: this chat's folders, where they come from, the usage.

        With `outside` the chat also sees folders beyond the asker's own: `scope` is then only
        the part within them, and the rest is said to exist without being named."""
        if source == "telegram":
            origin = self.from_telegram.format(admin=by, when=when(at))
        elif source == "file":
            origin = self.from_file
        else:
            origin = self.from_default if file else self.no_file
        if not outside:
            head = [self.current.format(folders=self.folders(scope))]
        else:
            within = self.folders(scope) if scope is None or scope.folders else self.none_within
            head = [self.within.format(folders=within), self.outside]
        return "\n".join([*head, origin, "", self.usage])

    def status_lines(self, rows: Sequence[tuple[str, Scope | None, str, int, float]]) -> str:
        """Admins' `/status`: each chat's (or topic's, `-100123/7`) scope set in Telegram, by
        whom and when."""
        lines = [self.status_title]
        for chat_id, scope, name, by, at in rows:
            lines.append(
                self.status_line.format(
                    chat=f"<code>{chat_id}</code>",
                    folders=self.folders(scope),
                    admin=who(name, None, by),
                    when=when(at),
                )
            )
        return "\n".join(lines)

    @staticmethod
    def folder(name: str) -> str:
        """A folder an admin typed, safe to quote back."""
        return f"<code>{escape(visible(name[:100]))}</code>"


ENGLISH_SCOPE = ScopeTexts(
    everything="all documents",
    nothing="no folders: the bot finds nothing here",
    current="🗂 Folders this chat sees: {folders}",
    within="🗂 Of the folders you see, this chat sees: {folders}",
    none_within="none",
    outside="It also sees folders outside those you see; they are not named here.",
    from_telegram="Set here by {admin}, {when}.",
    from_file="From SCOPES_FILE.",
    from_default="From the default of SCOPES_FILE.",
    no_file="No scope is set (SCOPES_FILE is empty).",
    usage="<code>/scope sales, common</code> sets the folders (each member still sees only what "
    "their own scope allows); <code>/scope *</code> gives everything; <code>/scope reset</code> "
    "goes back to SCOPES_FILE.",
    set_done="✅ This chat now sees: {folders}. Conversations that saw more start afresh.",
    reset_done="✅ Back to SCOPES_FILE: this chat sees {folders}.",
    reset_nothing="Nothing was set here; this chat sees {folders}.",
    missing="❌ There is no folder {folder} in the documents folder; /files shows what there is.",
    not_a_folder="❌ {folder} is a file, not a folder.",
    bad_name="❌ {folder} cannot name a folder: use a plain path such as <code>sales</code> or "
    "<code>docs/hr</code>.",
    beyond="❌ A chat can be given only folders you see yourself: {folders}.",
    reset_beyond="❌ Going back to SCOPES_FILE would give this chat more than you see yourself; "
    "it can be given only {folders}.",
    status_title="<b>Scopes set in Telegram</b>",
    status_line="• chat {chat}: {folders}, by {admin}, {when}",
    status_file=(
        "SCOPES_FILE: {entries} chats, topics and users listed; everyone else sees {folders}."
    ),
)

RUSSIAN_SCOPE = ScopeTexts(
    everything="все документы",
    nothing="ни одной папки: здесь бот ничего не найдёт",
    current="🗂 Папки, которые видит этот чат: {folders}",
    within="🗂 Из папок, которые видите вы, этот чат видит: {folders}",
    none_within="ни одной",
    outside="Ещё он видит папки вне тех, что видите вы; здесь они не названы.",
    from_telegram="Задано здесь: {admin}, {when}.",
    from_file="Из SCOPES_FILE.",
    from_default="Из значения default в SCOPES_FILE.",
    no_file="Область не задана (SCOPES_FILE пуст).",
    usage="<code>/scope продажи, общие</code> задаёт папки (каждый участник всё равно видит "
    "только то, что разрешено ему самому); <code>/scope *</code> открывает всё; "
    "<code>/scope reset</code> возвращает к SCOPES_FILE.",
    set_done="✅ Теперь этот чат видит: {folders}. Разговоры, которые видели больше, "
    "начнутся заново.",
    reset_done="✅ Снова как в SCOPES_FILE: этот чат видит {folders}.",
    reset_nothing="Здесь ничего не задавали; этот чат видит {folders}.",
    missing="❌ В папке с документами нет папки {folder}; /files покажет, что есть.",
    not_a_folder="❌ {folder} — это файл, а не папка.",
    bad_name="❌ {folder} не может быть папкой: напишите простой путь, например "
    "<code>продажи</code> или <code>docs/hr</code>.",
    beyond="❌ Чату можно дать только те папки, которые видите вы сами: {folders}.",
    reset_beyond="❌ Возврат к SCOPES_FILE дал бы этому чату больше, чем видите вы сами; "
    "ему можно дать только {folders}.",
    status_title="<b>Области, заданные в Telegram</b>",
    status_line="• чат {chat}: {folders}, задал {admin}, {when}",
    status_file=(
        "SCOPES_FILE: перечислено чатов, тем и людей: {entries}; остальные видят {folders}."
    ),
)


def scope_texts(lang: str) -> ScopeTexts:
    """The scope texts for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_SCOPE if lang == "ru" else ENGLISH_SCOPE
