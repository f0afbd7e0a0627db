"""A company's documents folder for the meaning benchmark, the same on every run.

The hand-written rules (`documents.RULES`) stand among a few hundred other files a company
accumulates: meeting minutes, orders, project status notes, newsletters and announcements in
Russian, and English ones (vendor mail, release notes, a travel agency's offers, meeting notes)
whose words an English question shares by chance. The other files speak of the same subjects
(leave, trips, salary, passes, laptops) in passing, so a search has to rank, not only match.
Every file depends on the seed alone.

`python -m bench.meaning.corpus DIR` writes one.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from bench.meaning.documents import RULES

SEED = 20261202
DEPARTMENTS = ["продаж", "маркетинга", "логистики", "разработки", "закупок", "качества"]
PROJECTS = ["Альфа", "Берег", "Вектор", "Гранит", "Дельта", "Енисей", "Зенит", "Импульс"]
RU_OPENINGS = [
    "Обсудили итоги недели.",
    "Присутствовали руководитель отдела и ведущие специалисты.",
    "Повестка согласована заранее.",
    "Совещание прошло в переговорной на четвёртом этаже.",
]
RU_POINTS = [
    "Сроки поставки оборудования сдвигаются на две недели из-за таможни.",
    "Отчёт для клиента готовит {name}, срок — пятница.",
    "Бюджет квартала исполнен на {pct} %, остаток переносится.",
    "{name} уходит в отпуск с понедельника, замещает {name2}.",
    "Командировка в {city} согласована, билеты заказаны.",
    "Новым сотрудникам выдать ноутбуки и пропуска до начала работы.",
    "Цены поставщика выросли на {pct} %, ищем альтернативу.",
    "Тестирование новой версии завершено, критических ошибок нет.",
    "Договор с подрядчиком продлён до конца года.",
    "Клиент просит скидку за объём; решение за коммерческим директором.",
    "На складе проведена инвентаризация, расхождений не выявлено.",
    "Маркетинговая кампания запускается в {city} в следующем месяце.",
    "{name} представил план по снижению затрат на логистику.",
    "Обучение по работе с новой CRM пройдёт во вторник.",
    "Корпоратив переносится на последнюю пятницу месяца.",
    "Сервер отчётов перезагружали дважды, причина выясняется.",
    "В офисе меняют мебель на третьем этаже, возможен шум.",
    "Счёт от транспортной компании оплачен.",
]
RU_DECISIONS = [
    "Решили: вернуться к вопросу на следующей неделе.",
    "Ответственный за протокол — {name}.",
    "Следующая встреча через две недели.",
    "Материалы разослать всем участникам.",
]
ORDER_TOPICS = [
    "о назначении ответственного за охрану труда",
    "об утверждении графика отпусков",
    "о проведении инвентаризации",
    "о переходе на электронный документооборот",
    "об изменении штатного расписания",
    "о проведении корпоративного обучения",
    "об утверждении положения о закупках",
    "о режиме работы в праздничные дни",
]
NAMES = ["Иванов", "Петрова", "Сидоров", "Кузнецова", "Смирнов", "Орлова", "Волков", "Зайцева"]
CITIES = ["Казань", "Новосибирск", "Екатеринбург", "Самару", "Минск", "Алматы"]
EN_DOCS = [
    (
        "Hotel offers for autumn",
        "Our agency offers corporate rates at partner hotels in Berlin, Paris and Dubai. "
        "Book a business trip before October and get a free late checkout. "
        "Rooms include breakfast; cancellation is free up to 24 hours.",
    ),
    (
        "Release notes",
        "Version {v}: fixed the login page when a password expires; the mobile app shows the "
        "card balance; the printer driver for the third floor was updated. "
        "Known issue: the VPN client may ask for the password twice.",
    ),
    (
        "Meeting notes",
        "Attendees: sales and marketing. We discussed the trip to the trade fair, the salary "
        "review schedule and who pays for the booth. Action items: {name} books the flights, "
        "the team sends the tax documents to the partner.",
    ),
    (
        "Vendor newsletter",
        "New ergonomic chairs and standing desks for your office. Free parking for customers "
        "at our showroom. Sick of slow laptops? Our leasing plan replaces every car and "
        "computer of your fleet every three years.",
    ),
    (
        "Conference invitation",
        "You are invited to speak at the annual HR conference: dress code business casual, "
        "visa letters on request, a probation-period workshop and a session on paid time off.",
    ),
    (
        "Security awareness digest",
        "This month: phishing email examples, why you should never share a password, and how "
        "to report a lost phone. Shredding days are on the last Friday of the quarter.",
    ),
]
"""English documents whose words an English question may share without answering it."""


def _fill(rng: random.Random, line: str) -> str:
    return line.format(
        name=rng.choice(NAMES),
        name2=rng.choice(NAMES),
        pct=rng.randint(3, 97),
        city=rng.choice(CITIES),
        v=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
    )


def _minutes(rng: random.Random, index: int) -> tuple[str, str]:
    dept = rng.choice(DEPARTMENTS)
    day = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    lines = [f"# Протокол совещания отдела {dept} от {day}", "", rng.choice(RU_OPENINGS), ""]
    lines += [f"- {_fill(rng, p)}" for p in rng.sample(RU_POINTS, rng.randint(3, 6))]
    lines += ["", _fill(rng, rng.choice(RU_DECISIONS))]
    return f"протоколы/{dept}/протокол_{day}_{index}.md", "\n".join(lines) + "\n"


def _order(rng: random.Random, index: int) -> tuple[str, str]:
    topic = rng.choice(ORDER_TOPICS)
    body = (
        f"ПРИКАЗ № {100 + index}\n\n{topic.capitalize()}\n\nПРИКАЗЫВАЮ:\n"
        f"1. {_fill(rng, rng.choice(RU_POINTS))}\n"
        f"2. Контроль исполнения возложить на {rng.choice(NAMES)}.\n\n"
        "Генеральный директор\n"
    )
    return f"приказы/приказ_{100 + index}.txt", body


def _status(rng: random.Random, index: int) -> tuple[str, str]:
    project = rng.choice(PROJECTS)
    lines = [f"# Проект «{project}»: статус, неделя {index % 52 + 1}", ""]
    lines += [_fill(rng, p) for p in rng.sample(RU_POINTS, rng.randint(2, 4))]
    lines += ["", f"Риски: {_fill(rng, rng.choice(RU_POINTS)).lower()}"]
    return f"проекты/{project}/статус_{index}.md", "\n".join(lines) + "\n"


def _english(rng: random.Random, index: int) -> tuple[str, str]:
    title, body = EN_DOCS[index % len(EN_DOCS)]
    slug = title.lower().replace(" ", "_")
    return f"english/{slug}_{index}.md", f"# {title}\n\n{_fill(rng, body)}\n"


MAKERS = [(_minutes, 110), (_order, 60), (_status, 70), (_english, 36)]
"""Each kind of other document and how many of it."""


def documents(seed: int = SEED) -> dict[str, str]:
    """Every file of the folder by its relative path: the rules and the others."""
    rng = random.Random(seed)
    files = dict(RULES)
    for make, count in MAKERS:
        for index in range(count):
            rel, text = make(rng, index)
            files.setdefault(rel, text)
    return files


def write(root: Path, seed: int = SEED) -> int:
    """Write the folder under `root`; the number of files written."""
    files = documents(seed)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return len(files)


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.meaning.corpus DIR`."""
    parser = argparse.ArgumentParser(prog="python -m bench.meaning.corpus")
    parser.add_argument("root", type=Path)
    args = parser.parse_args(argv)
    print(f"{write(args.root)} files in {args.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
