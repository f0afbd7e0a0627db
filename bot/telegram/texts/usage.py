"""The texts of budgets and `/usage`, in Russian and English.

Kept apart from the main `Texts` because only this feature uses them. Everything is HTML; the
names in it are escaped by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.settings.budgets.limits import Period
from bot.storage.usage import Who

ESTIMATED_MARK = "≈"
"""Before a figure that holds tokens the bot estimated (the model server reported none)."""


@dataclass(frozen=True, slots=True)
class UsageTexts:
    """One language's budget and `/usage` texts."""

    lang: str
    refused: Mapping[tuple[Who, Period], str]
    """A question refused at 100 %: `{when}` it starts afresh, `{wait}` how long until then."""
    busy: str
    """Refused because another question of the asker is still being answered near the end."""
    warned: Mapping[tuple[Who, Period], str]
    """At 80 %: `{percent}`, `{when}`."""
    mine_title: str
    today: str
    month: str
    spent_line: str
    """`{label}`: `{tokens}` tokens, `{cost}` (empty without prices), `{budget}`."""
    of_budget: str
    """`{tokens}`, `{percent}`."""
    no_budget: str
    cost: str
    """`{money}`."""
    tokens_word: tuple[str, ...]
    admin_title: str
    """`{month}`."""
    scoped: str
    total: str
    top_users: str
    top_chats: str
    per_model: str
    per_day: str
    nothing: str
    item_line: str
    """`{name}`, `{tokens}`, `{cost}`."""
    chart_caption: str
    """`{month}`."""
    hours_minutes: str
    """`{hours}`, `{minutes}`."""
    estimated: str
    """The footnote under figures marked `ESTIMATED_MARK`."""
    images_part: str
    """After a figure that holds pictures: `{tokens}` of it they took."""


ENGLISH_USAGE = UsageTexts(
    lang="en",
    refused={
        ("user", "day"): "Your daily budget for questions is spent. It starts afresh at {when} "
        "(in {wait}).",
        ("user", "month"): "Your monthly budget for questions is spent. It starts afresh at "
        "{when} (in {wait}).",
        ("chat", "day"): "This chat's daily budget for questions is spent. It starts afresh at "
        "{when} (in {wait}).",
        ("chat", "month"): "This chat's monthly budget for questions is spent. It starts afresh "
        "at {when} (in {wait}).",
    },
    busy="Your budget is nearly spent, so questions go one at a time: ask again once the "
    "answer to your other question has come.",
    warned={
        ("user", "day"): "You have used {percent}% of your daily budget for questions. It "
        "starts afresh at {when}.",
        ("user", "month"): "You have used {percent}% of your monthly budget for questions. It "
        "starts afresh at {when}.",
        ("chat", "day"): "This chat has used {percent}% of its daily budget for questions. It "
        "starts afresh at {when}.",
        ("chat", "month"): "This chat has used {percent}% of its monthly budget for questions. "
        "It starts afresh at {when}.",
    },
    mine_title="<b>Your use of the model</b>",
    today="Today",
    month="This month",
    spent_line="{label}: {tokens}{cost}{budget}",
    of_budget=" of {tokens} ({percent}%)",
    no_budget="No budget limits your questions.",
    cost=", {money}",
    tokens_word=("token", "tokens"),
    admin_title="<b>Use of the model in {month}</b>",
    scoped="Only the people and chats within your folders are counted.",
    total="Total",
    top_users="<b>Top users</b>",
    top_chats="<b>Top chats</b>",
    per_model="<b>Per model</b>",
    per_day="<b>Per day</b>",
    nothing="Nothing was spent yet.",
    item_line="{name}: {tokens}{cost}",
    chart_caption="Tokens per day in {month}",
    hours_minutes="{hours} h {minutes} min",
    estimated=f"{ESTIMATED_MARK} — estimated: the model server did not report token counts",
    images_part=" (pictures: {tokens})",
)

RUSSIAN_USAGE = UsageTexts(
    lang="ru",
    refused={
        ("user", "day"): "Ваш дневной лимит на вопросы исчерпан. Он обновится {when} "
        "(через {wait}).",
        ("user", "month"): "Ваш месячный лимит на вопросы исчерпан. Он обновится {when} "
        "(через {wait}).",
        ("chat", "day"): "Дневной лимит этого чата на вопросы исчерпан. Он обновится {when} "
        "(через {wait}).",
        ("chat", "month"): "Месячный лимит этого чата на вопросы исчерпан. Он обновится "
        "{when} (через {wait}).",
    },
    busy="Лимит почти исчерпан, поэтому вопросы идут по одному: спросите снова, когда придёт "
    "ответ на предыдущий.",
    warned={
        ("user", "day"): "Вы израсходовали {percent}% дневного лимита на вопросы. Он обновится "
        "{when}.",
        ("user", "month"): "Вы израсходовали {percent}% месячного лимита на вопросы. Он "
        "обновится {when}.",
        ("chat", "day"): "Этот чат израсходовал {percent}% дневного лимита на вопросы. Он "
        "обновится {when}.",
        ("chat", "month"): "Этот чат израсходовал {percent}% месячного лимита на вопросы. Он "
        "обновится {when}.",
    },
    mine_title="<b>Ваш расход модели</b>",
    today="Сегодня",
    month="В этом месяце",
    spent_line="{label}: {tokens}{cost}{budget}",
    of_budget=" из {tokens} ({percent}%)",
    no_budget="Лимитов на ваши вопросы нет.",
    cost=", {money}",
    tokens_word=("токен", "токена", "токенов"),
    admin_title="<b>Расход модели за {month}</b>",
    scoped="Учтены только люди и чаты в пределах ваших папок.",
    total="Всего",
    top_users="<b>Больше всех</b>",
    top_chats="<b>Чаты</b>",
    per_model="<b>По моделям</b>",
    per_day="<b>По дням</b>",
    nothing="Пока ничего не израсходовано.",
    item_line="{name}: {tokens}{cost}",
    chart_caption="Токены по дням за {month}",
    hours_minutes="{hours} ч {minutes} мин",
    estimated=f"{ESTIMATED_MARK} — оценка: сервер модели не сообщил число токенов",
    images_part=" (из них на картинки: {tokens})",
)


def usage_texts(lang: str) -> UsageTexts:
    """The budget texts in `lang` (`ru` or `en`)."""
    return RUSSIAN_USAGE if lang == "ru" else ENGLISH_USAGE
