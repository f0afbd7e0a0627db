"""The admins' Mini App's words, in Russian and English: the page's labels (sent to the page as
they are, it shows them as text) and what the API answers when it refuses."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

RUSSIAN_APP: Mapping[str, str] = MappingProxyType(
    {
        "menu_button": "Админка",
        "title": "Документы и доступ",
        "tab_documents": "Документы",
        "tab_trash": "Корзина",
        "tab_users": "Люди",
        "tab_scopes": "Папки чатов",
        "tab_audit": "Журнал",
        "tab_feedback": "Оценки",
        "state_indexed": "в поиске",
        "state_failed": "не прочитан",
        "state_waiting": "ждёт индексации (или распознаётся)",
        "documents_none": "Документов нет.",
        "move": "Переместить",
        "move_to": "Куда (путь в папке документов)",
        "trash": "В корзину",
        "confirm_trash": "Переместить «{path}» в корзину?",
        "restore": "Вернуть",
        "trash_none": "Корзина пуста.",
        "upload": "Загрузить",
        "upload_folder": "Папка (пусто — первая папка ваших)",
        "uploaded": "Загружено: {path}",
        "done": "Готово.",
        "users_admins_env": "Админы из ADMIN_IDS",
        "users_env": "Пользователи из ALLOWED_USER_IDS",
        "users_granted": "Доступ дан в Telegram",
        "revoke": "Отозвать",
        "confirm_revoke": "Отозвать доступ у {name}?",
        "scopes_file": "SCOPES_FILE",
        "scopes_default": "по умолчанию",
        "scopes_set": "Заданы командой /scope",
        "scopes_everything": "все документы",
        "scopes_none": "Папки не ограничены: все видят все документы.",
        "audit_none": "Журнал пуст.",
        "feedback_days": "👍 и 👎 по дням",
        "feedback_none": "Оценок пока нет.",
        "tab_usage": "Расход",
        "usage_days": "Токены по дням, {month}",
        "usage_models": "По моделям",
        "usage_total": "Всего",
        "usage_none": "Расхода в этом месяце пока нет.",
        "error_auth": "Откройте админку заново из меню бота в Telegram.",
        "error_admin": "Только для админов бота.",
        "error_bad_request": "Запрос не понят: {detail}",
        "error_failed": "Не получилось, подробности в журнале бота.",
        "error_confirm": "Действие не подтверждено.",
    }
)

ENGLISH_APP: Mapping[str, str] = MappingProxyType(
    {
        "menu_button": "Admin",
        "title": "Documents and access",
        "tab_documents": "Documents",
        "tab_trash": "Trash",
        "tab_users": "People",
        "tab_scopes": "Chats' folders",
        "tab_audit": "Audit log",
        "tab_feedback": "Ratings",
        "state_indexed": "searchable",
        "state_failed": "not read",
        "state_waiting": "waiting to be indexed (or being recognised)",
        "documents_none": "No documents.",
        "move": "Move",
        "move_to": "To (a path in the documents folder)",
        "trash": "To the trash",
        "confirm_trash": "Move “{path}” to the trash?",
        "restore": "Restore",
        "trash_none": "The trash is empty.",
        "upload": "Upload",
        "upload_folder": "Folder (empty: the first of yours)",
        "uploaded": "Uploaded: {path}",
        "done": "Done.",
        "users_admins_env": "Admins from ADMIN_IDS",
        "users_env": "Users from ALLOWED_USER_IDS",
        "users_granted": "Access granted in Telegram",
        "revoke": "Revoke",
        "confirm_revoke": "Revoke {name}'s access?",
        "scopes_file": "SCOPES_FILE",
        "scopes_default": "default",
        "scopes_set": "Set with /scope",
        "scopes_everything": "all documents",
        "scopes_none": "No folders are restricted: everyone sees every document.",
        "audit_none": "The audit log is empty.",
        "feedback_days": "👍 and 👎 by day",
        "feedback_none": "No ratings yet.",
        "tab_usage": "Usage",
        "usage_days": "Tokens by day, {month}",
        "usage_models": "By model",
        "usage_total": "Total",
        "usage_none": "Nothing used this month yet.",
        "error_auth": "Open the admin app again from the bot's menu in Telegram.",
        "error_admin": "For the bot's admins only.",
        "error_bad_request": "Request not understood: {detail}",
        "error_failed": "That did not work; the bot's log says why.",
        "error_confirm": "The action was not confirmed.",
    }
)


def app_texts(lang: str) -> Mapping[str, str]:
    """The Mini App's words for a language code the main texts use (`ru` or `en`)."""
    return RUSSIAN_APP if lang == "ru" else ENGLISH_APP
