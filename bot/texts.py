"""Every text the bot says, in Russian and English, chosen by the user's Telegram language.

Texts that go out with HTML parse mode escape every value they interpolate; plain texts do not
need to. Keeping both languages side by side makes a missing translation a type error.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from bot.names import visible

# Languages whose users get Russian; Ukrainian users get English (a Russian reply is not the
# courtesy it once was).
RUSSIAN_READERS = ("ru", "be", "kk")


def language_of(language_code: str | None) -> str:
    """`ru` for Russian, Belarusian and Kazakh users, else `en`."""
    if language_code and language_code.lower().split("-")[0] in RUSSIAN_READERS:
        return "ru"
    return "en"


def _code(value: object) -> str:
    return f"<code>{escape(str(value))}</code>"


def _thousands(number: int) -> str:
    return f"{number:,}".replace(",", " ")


@dataclass(frozen=True, slots=True)
class Texts:
    """One language's texts. Methods return HTML unless their name ends in `_plain`."""

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
    caption_as_question: str
    upload_refused: str
    admin_only: str
    upload_too_big: str
    upload_too_big_for_server: str
    upload_bad_folder: str
    upload_disk_full: str
    upload_failed: str
    upload_in_private: str
    write_as_yourself: str
    group_not_allowed: str
    caption_not_folder: str
    folder_is_file: str
    upload_download_failed: str
    upload_download_timeout: str
    upload_saved_text: str
    upload_saved_no_text: str
    reindex_started: str
    reindex_done: str
    reindex_failed: str
    status_title: str
    status_model: str
    status_context: str
    status_documents: str
    status_last: str
    status_no_last: str
    error_unavailable: str
    error_auth: str
    error_rate_limited: str
    error_bad_reply: str
    error_too_long: str
    error_generic: str
    error_interrupted: str
    delivery_partial: str
    note_cut_short: str
    note_truncated: str
    sources_label: str
    progress_thinking: str
    progress_searching: str
    progress_reading: str
    progress_listing: str
    progress_writing: str
    command_descriptions: tuple[tuple[str, str], ...]
    reindex_command: str

    def start(self, documents: int, *, ready: bool, admin: bool) -> str:
        """Greeting: what the bot does and how much it can see."""
        lines = [self.about, "", self.documents_count.format(n=_thousands(documents))]
        if not ready:
            lines.append(self.index_building)
        lines += ["", self.ask_hint, "", self.commands_help]
        if admin:
            lines += ["", self.admin_help]
        return "\n".join(lines)

    def help(self, *, admin: bool) -> str:
        """The command list, with the admin part for admins."""
        lines = [self.ask_hint, "", self.commands_help]
        if admin:
            lines += ["", self.admin_help]
        return "\n".join(lines)

    def files_more_in_folder(self, n: int) -> str:
        """The line under a folder's first files: how many more it holds."""
        return self.folder_more.format(n=n)

    def stranger_reply(self, user_id: int) -> str:
        """What a user without access learns: their id and how to ask for access."""
        return self.stranger.format(id=_code(user_id))

    def rate_limited_reply(self, retry_after_s: float) -> str:
        """Polite refusal saying when the next question will be accepted."""
        minutes = max(1, round(retry_after_s / 60))
        return self.rate_limited.format(minutes=minutes)

    def upload_saved(self, path: str, chars: int, *, readable: bool) -> str:
        """Result of an admin upload: where it went and whether its text could be read."""
        if readable and chars > 0:
            return self.upload_saved_text.format(path=_code(path), chars=_thousands(chars))
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
    ) -> str:
        """`/status`: model, context fill, index size and the last question's cost."""
        percent = round(100 * tokens / window) if window else 0
        lines = [
            self.status_title,
            self.status_model.format(model=_code(model)),
            self.status_context.format(
                tokens=_thousands(tokens),
                window=_thousands(window),
                percent=percent,
                messages=messages,
            ),
            self.status_documents.format(n=_thousands(documents))
            + ("" if ready else f" ({self.index_building.strip()})"),
        ]
        if last is None:
            lines.append(self.status_no_last)
        else:
            rounds, prompt, completion = last
            lines.append(
                self.status_last.format(
                    rounds=rounds, prompt=_thousands(prompt), completion=_thousands(completion)
                )
            )
        return "\n".join(lines)

    def reindex_report(self, indexed: int, skipped: int, errors: int, seconds: float) -> str:
        """Counts after a full rebuild."""
        return self.reindex_done.format(
            indexed=_thousands(indexed), skipped=skipped, errors=errors, seconds=f"{seconds:.1f}"
        )

    def upload_too_big_reply(self, size_mb: float, limit_mb: float) -> str:
        """The document exceeds MAX_UPLOAD_MB."""
        return self.upload_too_big.format(size=f"{size_mb:.1f}", limit=f"{limit_mb:g}")

    def agent_error(self, kind: str) -> str:
        """A short, useful message for an `AgentError.kind`."""
        return {
            "unavailable": self.error_unavailable,
            "auth": self.error_auth,
            "rate_limited": self.error_rate_limited,
            "bad_reply": self.error_bad_reply,
            "too_long": self.error_too_long,
        }.get(kind, self.error_generic)

    def progress_for_tool(self, name: str, argument: str) -> str:
        """Status line for a tool call that has just started (plain text)."""
        shown = visible(argument)
        short = shown if len(shown) <= 60 else shown[:59] + "…"
        if name == "search_files":
            return self.progress_searching.format(query=short)
        if name == "read_file":
            return self.progress_reading.format(path=short)
        if name == "list_files":
            return self.progress_listing.format(path=short or "/")
        return self.progress_thinking

    def sources_line(self, sources: tuple[str, ...], limit: int = 5) -> str:
        """Markdown for the answer's last line, paths as code."""
        shown = ["`" + visible(s).replace("`", "'") + "`" for s in sources[:limit]]
        more = f" +{len(sources) - limit}" if len(sources) > limit else ""
        return f"{self.sources_label} {', '.join(shown)}{more}"


RUSSIAN = Texts(
    lang="ru",
    about="👋 Я отвечаю на вопросы по документам из общей папки и называю файлы, "
    "из которых взят ответ.",
    ask_hint="Просто напишите вопрос обычным текстом, например: <i>сколько дней отпуска "
    "положено?</i>",
    documents_count="📚 Документов в поиске: <b>{n}</b>.",
    index_building="⏳ Индекс ещё строится, часть файлов может пока не находиться.",
    group_privacy="👥 В группе я отвечаю, только когда меня упоминают через @ или отвечают "
    "на моё сообщение (режим приватности).",
    commands_help="/help — подсказка\n/reset или /new — начать разговор заново\n"
    "/files — что лежит в папке\n/status — модель, заполненность контекста, индекс",
    admin_help="🛠 Для администраторов: пришлите файл документом, чтобы добавить его "
    "(подпись вида <code>docs/hr</code> — папка); /reindex — перестроить индекс.",
    reset_done="🆕 Начали новый разговор. Прошлые сообщения больше не учитываются.",
    files_header="📂 Файлы в папке ({total}):",
    files_empty="📂 Папка с документами пока пуста.",
    files_more="…и ещё {n}. Спросите меня, я найду нужный файл.",
    folder_more="… и ещё {n}",
    stranger="🔒 У вас нет доступа к этому боту.\nВаш Telegram id: {id}\n"
    "Перешлите его администратору бота и попросите добавить вас.",
    rate_limited="⏳ Слишком много вопросов подряд. Следующий можно задать примерно через "
    "{minutes} мин.",
    chat_busy="⏳ Я ещё отвечаю на предыдущие вопросы. Подождите ответа и спросите снова.",
    empty_question="✍️ Напишите вопрос словами, например: <i>где рецепт шарлотки?</i>",
    non_text="Я понимаю только текст: напишите вопрос словами, и я найду ответ в документах. "
    "Картинки, голосовые и стикеры я не читаю.",
    caption_as_question="ℹ️ Добавлять документы могут только администраторы, "
    "поэтому подпись к файлу я считаю вопросом.",
    upload_refused="🔒 Добавлять документы могут только администраторы. Если у вас вопрос, "
    "напишите его текстом.",
    admin_only="🔒 Эта команда только для администраторов.",
    upload_too_big="📦 Файл слишком большой: {size} МБ, можно не больше {limit} МБ.",
    upload_too_big_for_server="📦 Telegram не отдаёт ботам файлы больше 20 МБ. Положите файл "
    "в папку с документами вручную или подключите свой сервер Bot API.",
    upload_bad_folder="📁 Не могу использовать папку «{folder}»: она вне папки с документами "
    "или её имя недопустимо. Ничего не записано.",
    folder_is_file="📁 «{folder}» — это файл, а не папка. Ничего не записано.",
    upload_disk_full="💾 Не удалось сохранить: на диске закончилось место. Ничего не записано.",
    upload_download_failed="⚠️ Не удалось скачать файл из Telegram. Отправьте его ещё раз.",
    upload_download_timeout="⚠️ Файл скачивался слишком долго, загрузка прервана. "
    "Отправьте его ещё раз.",
    upload_failed="⚠️ Не удалось сохранить файл, ничего не записано. Подробности — в журнале.",
    write_as_yourself="👤 Я отвечаю только людям: напишите из своего аккаунта, а не от имени "
    "группы или канала.",
    group_not_allowed="🔒 В этой группе я не отвечаю. Напишите мне в личные сообщения.",
    upload_in_private="📥 Документы добавляются в личном чате со мной: отправьте файл туда.",
    caption_not_folder="ℹ️ Подпись не похожа на путь, поэтому файл сохранён в корень. Чтобы "
    "выбрать папку, укажите в подписи только путь, например <code>docs/hr</code>.",
    upload_saved_text="✅ Сохранено: {path}\nИзвлечено символов: {chars}. Файл уже доступен "
    "для поиска.",
    upload_saved_no_text="⚠️ Сохранено: {path}\nНо текст из файла извлечь не удалось, "
    "поэтому по нему ничего не найдётся.",
    reindex_started="🔄 Перестраиваю индекс…",
    reindex_done="✅ Индекс перестроен за {seconds} с: проиндексировано {indexed}, "
    "пропущено {skipped}, ошибок {errors}.",
    reindex_failed="⚠️ Не удалось перестроить индекс. Подробности в журнале.",
    status_title="<b>Состояние</b>",
    status_model="🤖 Модель: {model}",
    status_context="🧠 Контекст: {tokens} из {window} токенов ({percent}%), сообщений: {messages}",
    status_documents="📚 Документов в индексе: {n}",
    status_last="🔁 Последний вопрос: раундов {rounds}, токенов {prompt} + {completion}",
    status_no_last="🔁 В этом разговоре ещё не было вопросов.",
    error_unavailable="⚠️ Сервер модели сейчас недоступен или слишком долго отвечает. "
    "Попробуйте через минуту.",
    error_auth="⚠️ Сервер модели отклонил ключ или не знает модель. Сообщите администратору.",
    error_rate_limited="⚠️ Сервер модели перегружен запросами. Попробуйте через минуту.",
    error_bad_reply="⚠️ Модель прислала непонятный ответ. Попробуйте переформулировать вопрос.",
    error_too_long="⚠️ Вопрос или разговор слишком длинный для модели. Начните заново "
    "командой /reset или сократите вопрос.",
    error_generic="⚠️ Что-то пошло не так. Попробуйте ещё раз чуть позже.",
    error_interrupted="⚠️ Бот перезапускается и не успел ответить. Задайте вопрос ещё раз "
    "через минуту.",
    delivery_partial="⚠️ Часть ответа не удалось доставить. Спросите ещё раз.",
    note_cut_short="_Поиск пришлось прервать: ответ собран из того, что удалось найти._",
    note_truncated="_Ответ обрезан: модель упёрлась в лимит длины. Спросите «продолжи»._",
    sources_label="📄 Источники:",
    progress_thinking="🤔 Думаю…",
    progress_searching="🔎 Ищу «{query}»…",
    progress_reading="📖 Читаю {path}…",
    progress_listing="📂 Смотрю папку {path}…",
    progress_writing="✍️ Пишу ответ…",
    command_descriptions=(
        ("start", "Что умеет бот"),
        ("help", "Подсказка"),
        ("reset", "Начать разговор заново"),
        ("files", "Что лежит в папке с документами"),
        ("status", "Модель, контекст и индекс"),
    ),
    reindex_command="Перестроить индекс (для администраторов)",
)

ENGLISH = Texts(
    lang="en",
    about="👋 I answer questions from the documents in a shared folder and name the files "
    "each answer comes from.",
    ask_hint="Just type your question, for example: <i>how many vacation days do I get?</i>",
    documents_count="📚 Documents I can search: <b>{n}</b>.",
    index_building="⏳ The index is still being built; some files may not be found yet.",
    group_privacy="👥 In groups I answer only when you mention me with @ or reply to my "
    "message (privacy mode).",
    commands_help="/help — how to use me\n/reset or /new — start a new conversation\n"
    "/files — what is in the folder\n/status — model, context use, index",
    admin_help="🛠 For admins: send a file as a document to add it (a caption such as "
    "<code>docs/hr</code> picks the folder); /reindex rebuilds the index.",
    reset_done="🆕 New conversation started. Earlier messages no longer count.",
    files_header="📂 Files in the folder ({total}):",
    files_empty="📂 The documents folder is empty so far.",
    files_more="…and {n} more. Ask me and I will find the right file.",
    folder_more="… and {n} more",
    stranger="🔒 You do not have access to this bot.\nYour Telegram id: {id}\n"
    "Send it to the bot's admin and ask to be added.",
    rate_limited="⏳ That is a lot of questions in a row. You can ask the next one in about "
    "{minutes} min.",
    chat_busy="⏳ I am still answering your earlier questions. Wait for the answer and ask again.",
    empty_question="✍️ Please ask in words, for example: <i>where is the apple pie recipe?</i>",
    non_text="I only understand text: type your question and I will look for the answer in the "
    "documents. I cannot read pictures, voice messages or stickers.",
    caption_as_question="ℹ️ Only admins can add documents, so I read your caption as a question.",
    upload_refused="🔒 Only admins can add documents. If you have a question, type it as text.",
    admin_only="🔒 This command is for admins only.",
    upload_too_big="📦 The file is too big: {size} MB, the limit is {limit} MB.",
    upload_too_big_for_server="📦 Telegram does not give bots files over 20 MB. Copy the file "
    "into the documents folder by hand or use a self-hosted Bot API server.",
    upload_bad_folder="📁 I cannot use the folder “{folder}”: it is outside the documents "
    "folder or its name is not allowed. Nothing was written.",
    folder_is_file="📁 “{folder}” is a file, not a folder. Nothing was written.",
    upload_disk_full="💾 Could not save: the disk is full. Nothing was written.",
    upload_download_failed="⚠️ Could not download the file from Telegram. Please send it again.",
    upload_download_timeout="⚠️ The download took too long and was stopped. Please send the "
    "file again.",
    upload_failed="⚠️ Could not save the file; nothing was written. The log has the details.",
    write_as_yourself="👤 I only answer people: write from your own account, not as the group "
    "or a channel.",
    group_not_allowed="🔒 I do not answer in this group. Message me privately instead.",
    upload_in_private="📥 Documents are added in a private chat with me: send the file there.",
    caption_not_folder="ℹ️ The caption does not look like a path, so the file went to the top "
    "folder. To pick a folder, make the caption just the path, e.g. <code>docs/hr</code>.",
    upload_saved_text="✅ Saved: {path}\nCharacters extracted: {chars}. It is searchable now.",
    upload_saved_no_text="⚠️ Saved: {path}\nBut no text could be extracted from it, so "
    "searches will not find it.",
    reindex_started="🔄 Rebuilding the index…",
    reindex_done="✅ Index rebuilt in {seconds} s: {indexed} indexed, {skipped} skipped, "
    "{errors} errors.",
    reindex_failed="⚠️ Could not rebuild the index. The log has the details.",
    status_title="<b>Status</b>",
    status_model="🤖 Model: {model}",
    status_context="🧠 Context: {tokens} of {window} tokens ({percent}%), {messages} messages",
    status_documents="📚 Documents indexed: {n}",
    status_last="🔁 Last question: {rounds} rounds, {prompt} + {completion} tokens",
    status_no_last="🔁 No questions in this conversation yet.",
    error_unavailable="⚠️ The model server is down or too slow right now. Try again in a minute.",
    error_auth="⚠️ The model server refused the key or does not know the model. Tell the admin.",
    error_rate_limited="⚠️ The model server is overloaded. Try again in a minute.",
    error_bad_reply="⚠️ The model sent a reply I could not use. Try rephrasing the question.",
    error_too_long="⚠️ The question or the conversation is too long for the model. Start over "
    "with /reset or shorten the question.",
    error_generic="⚠️ Something went wrong. Please try again a bit later.",
    error_interrupted="⚠️ The bot is restarting and could not finish. Please ask again in a "
    "minute.",
    delivery_partial="⚠️ Part of the answer could not be delivered. Please ask again.",
    note_cut_short="_The search was cut short: this answer uses what was found so far._",
    note_truncated="_The answer was cut at the model's length limit. Ask me to continue._",
    sources_label="📄 Sources:",
    progress_thinking="🤔 Thinking…",
    progress_searching="🔎 Searching for “{query}”…",
    progress_reading="📖 Reading {path}…",
    progress_listing="📂 Looking into {path}…",
    progress_writing="✍️ Writing the answer…",
    command_descriptions=(
        ("start", "What this bot does"),
        ("help", "How to use it"),
        ("reset", "Start a new conversation"),
        ("files", "What is in the documents folder"),
        ("status", "Model, context and index"),
    ),
    reindex_command="Rebuild the index (admins)",
)


def texts_for(language_code: str | None) -> Texts:
    """The texts for a user's Telegram `language_code`."""
    return RUSSIAN if language_of(language_code) == "ru" else ENGLISH
