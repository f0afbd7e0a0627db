"""quotes: does the verifier mark every invented quote, no true one, and place the true ones?

Forty questions over the shipped samples and generated documents (a PDF of several pages,
workbooks, decks, Markdown and Word with headings; `bench.quote_set`). For each, the real
toolbox runs the search and the read the model would run, and their results are the evidence.
A deterministic fake answer then quotes the line the search found: once verbatim, once with a
harmless difference (case, ё/е, spacing, a line break, "…" between two fragments, quote marks
with an attribution, dashes, a quote running on across a line or page break, copied line
numbers), and once invented (a number or a word changed, fragments of two documents joined by
"…", two words swapped). The evidence of each answer also holds the previous question's results,
so a quote joining two documents has both in view.

The cost is timed on answers of 2,000 characters over 60,000 characters of these tool results,
the verifier alone (no model, no Telegram): it runs on every answer.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.context import Context
from bench.quote_set import LONG_DOCUMENT, QUESTIONS, write_documents
from bench.results import Aim, BenchResult, Metric
from bench.stats import p95
from bench.toolbox import started_toolbox
from bot.agent.quotes.verify import check_quotes
from tests.quotes.talk import tool_messages
from tools import Toolbox
from tools.extract.places import Place, heading_place, marker_place, place_at

TITLE = "quotes: invented quotes marked, true quotes placed, the check's cost per answer"
EVIDENCE_CHARS = 60_000
ANSWER_CHARS = 2_000
_PREFIX = re.compile(r"^(?:#+\s+|[-*]\s+|\d+\.\s+)")
_NUMBER = re.compile(r"\d+")
_FILLER = (
    "Ниже ответ по документам, с цитатами для проверки. "
    "Here is the answer from the documents, with quotes to check. "
)

Message = dict[str, Any]


def variants(quick: bool) -> list[str]:
    del quick
    return ["quotes"]


@dataclass
class Question:
    """One question: its evidence and the line its quotes are taken from."""

    number: int
    path: str
    messages: list[Message]
    lines: list[str]
    line: int

    @property
    def text(self) -> str:
        return _PREFIX.sub("", self.lines[self.line - 1]).strip()

    @property
    def place(self) -> Place | None:
        return place_at(self.lines, self.line)

    def following(self) -> str:
        """The next line with text (past a page marker), or "" at the end."""
        for line in self.lines[self.line :]:
            if marker_place(line) is None and line.strip():
                return line.strip()
        return ""


@dataclass(frozen=True)
class Quote:
    text: str
    kind: str
    true: bool


def _numbered(document: str) -> list[str]:
    found = re.findall(r"^\s*\d+\| ?(.*)$", document, flags=re.MULTILINE)
    return [str(line) for line in found]


def _worth_quoting(line: str) -> bool:
    return (
        marker_place(line) is None
        and heading_place(line) is None
        and len(_PREFIX.sub("", line).split()) >= 3
    )


async def _question(box: Toolbox, number: int, query: str, path: str) -> Question:
    """The search and read a model would run, and the line the search points to."""
    searched = await tool_messages(
        box, [("search_files", {"query": query})], round_id=f"s{number}"
    )
    hits = json.loads(searched[1]["content"])["results"]
    [hit] = [h for h in hits if h["path"] == path]
    whole = json.loads((await box.execute("read_file", {"path": path, "limit": 5000})).text)
    lines = _numbered(whole["document"])
    line = max((s["line"] for s in hit["snippets"]), key=lambda n: len(lines[n - 1]))
    while not _worth_quoting(lines[line - 1]):
        line += 1
    read = await tool_messages(
        box, [("read_file", {"path": path, "offset": max(1, line - 3)})], round_id=f"r{number}"
    )
    return Question(number, path, searched + read, lines, line)


def _harmless(question: Question) -> Quote:
    """The quote with one harmless difference, chosen by the question's number."""
    text, words = question.text, question.text.split()
    changes = [
        ("case", text.upper()),
        ("ё/е", _yo(text)),
        ("spacing", "  ".join(words) + "  "),
        ("line break", " ".join(words[:3]) + "\n> " + " ".join(words[3:])),
        ("… between fragments", _ellipsis(words)),
        ("quote marks and attribution", f"«{text}» — {question.path}"),
        ("dashes and emphasis", _dashes(words)),
        ("across a line or page break", f"{text} {question.following()}".strip()),
        ("copied line numbers", f"{question.line:>3}| {text}"),
    ]
    kind, changed = changes[question.number % len(changes)]
    if question.line < len(question.lines) and question.lines[question.line].startswith("--- "):
        kind, changed = "across a page, sheet or slide break", changes[7][1]
    return Quote(changed, kind, true=True)


def _yo(text: str) -> str:
    if "ё" in text:
        return text.replace("ё", "е")
    if "е" in text:
        return text.replace("е", "ё", 1)
    return text.lower()


def _ellipsis(words: Sequence[str]) -> str:
    if len(words) >= 6:
        return " ".join(words[:3]) + " … " + " ".join(words[-2:])
    return " ".join(words[:-1]) + "…"


def _dashes(words: Sequence[str]) -> str:
    text = " ".join(words)
    if " - " in text or "—" in text:
        return text.replace(" - ", " — ").replace("—", "-")
    middle = len(words) // 2
    return " ".join([*words[:middle], f"**{words[middle]}**", *words[middle + 1 :]])


def _invented(question: Question, other: Question) -> Quote:
    """The quote changed the way a model makes one up, chosen by the question's number."""
    text, words = question.text, question.text.split()
    kind = ("number changed", "word changed", "two documents joined", "words swapped")[
        question.number % 4
    ]
    if kind == "number changed" and not _NUMBER.search(text):
        kind = "word changed"
    if kind == "number changed":
        invented = _NUMBER.sub(lambda m: str(int(m.group()) + 1), text, count=1)
    elif kind == "word changed":
        longest = max(range(len(words)), key=lambda i: len(words[i]))
        swap = "совершенно" if re.search(r"[а-яё]", words[longest], re.I) else "entirely"
        invented = " ".join([*words[:longest], swap, *words[longest + 1 :]])
    elif kind == "two documents joined":
        invented = " ".join(words[:3]) + " … " + " ".join(other.text.split()[-3:])
    else:
        real = [i for i, word in enumerate(words) if any(ch.isalnum() for ch in word)]
        first, second = real[len(real) // 2 - 1], real[len(real) // 2]
        swapped = list(words)
        swapped[first], swapped[second] = words[second], words[first]
        invented = " ".join(swapped)
    return Quote(invented.strip(), kind, true=False)


def _answer(quotes: Sequence[Quote]) -> str:
    return "\n\n".join(f"{_FILLER}\n\n> {quote.text}" for quote in quotes)


@dataclass
class Tally:
    true_total: int = 0
    true_marked: int = 0
    placed: int = 0
    invented_total: int = 0
    invented_marked: int = 0


def _judge(questions: list[Question]) -> tuple[Tally, list[str], Counter[str]]:
    """Check each question's answer against its evidence; the misses, described."""
    tally, misses, kinds = Tally(), [], Counter[str]()
    for index, question in enumerate(questions):
        earlier = [*reversed(questions[:index]), *reversed(questions[index:])]
        other = next(q for q in earlier if q.path != question.path)
        exact = Quote(question.text, "verbatim", true=True)
        quotes = [exact, _harmless(question), _invented(question, other)]
        evidence = [*other.messages, *question.messages]
        checks = check_quotes(_answer(quotes), evidence)
        if len(checks) != len(quotes):
            misses.append(f"q{question.number}: {len(checks)} quotes checked of {len(quotes)}")
            continue
        kinds.update(quote.kind for quote in quotes)
        for quote, check in zip(quotes, checks, strict=True):
            if not quote.true:
                tally.invented_total += 1
                tally.invented_marked += not check.found
                if check.found:
                    misses.append(f"q{question.number}: invented ({quote.kind}) not marked")
                continue
            tally.true_total += 1
            tally.true_marked += not check.found
            right = (check.path, check.line, check.place) == (
                question.path,
                question.line,
                question.place,
            )
            tally.placed += right
            if not check.found:
                misses.append(f"q{question.number}: true ({quote.kind}) marked")
            elif not right:
                misses.append(f"q{question.number}: true ({quote.kind}) placed at {check.place}")
    return tally, misses, kinds


async def _timing_set(box: Toolbox, questions: list[Question]) -> tuple[list[Message], list[str]]:
    """Tool results of the questions, and pages of the long document read in turn until they
    hold `EVIDENCE_CHARS` characters; answers of `ANSWER_CHARS` characters quoting from the
    questions' documents (true and invented quotes)."""
    evidence = [m for q in questions for m in q.messages]
    used = questions
    offset: int | None = 1
    while _chars(evidence) < EVIDENCE_CHARS and offset is not None:
        page = await tool_messages(
            box, [("read_file", {"path": LONG_DOCUMENT, "offset": offset})], round_id=f"p{offset}"
        )
        evidence += page
        offset = json.loads(page[1]["content"]).get("next_offset")
    answers = []
    for start in range(20):
        picked = [used[(start + k) % len(used)] for k in range(6)]
        quotes = [_harmless(q) for q in picked[:4]] + [_invented(q, picked[0]) for q in picked[4:]]
        answer = _answer(quotes)
        answers.append((answer + " " + _FILLER * 40)[:ANSWER_CHARS])
    return evidence, answers


def _chars(messages: Sequence[Message]) -> int:
    return sum(len(str(m.get("content") or "")) for m in messages)


def _time(evidence: list[Message], answers: list[str], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for answer in answers:
            started = time.perf_counter()
            check_quotes(answer, evidence)
            samples.append((time.perf_counter() - started) * 1000.0)
    return samples


async def run(ctx: Context, variant: str) -> BenchResult:
    del variant
    result = BenchResult("quotes", TITLE)
    root = write_documents(ctx.workdir / "quote-documents")
    toolbox, _ = await started_toolbox(root, ctx.scratch("quotes-data"))
    try:
        questions = [
            await _question(toolbox, number, query, path)
            for number, (query, path) in enumerate(QUESTIONS)
        ]
        evidence, answers = await _timing_set(toolbox, questions)
    finally:
        await toolbox.close()
    tally, misses, kinds = _judge(questions)
    evidence_chars = _chars(evidence)
    _time(evidence, answers, 3)  # warm-up
    samples = _time(evidence, answers, 10 if ctx.quick else 50)

    invented = 100.0 * tally.invented_marked / max(tally.invented_total, 1)
    true_marked = 100.0 * tally.true_marked / max(tally.true_total, 1)
    placed = 100.0 * tally.placed / max(tally.true_total, 1)
    result.metrics += [
        Metric(f"invented quotes marked (of {tally.invented_total})", "%", [invented]),
        Metric(f"true quotes marked (of {tally.true_total})", "%", [true_marked]),
        Metric("true quotes with the right file, line and place", "%", [placed]),
        Metric(
            f"check_quotes: {ANSWER_CHARS:,}-character answer over {evidence_chars:,} "
            "characters of tool results",
            "ms",
            samples,
        ),
    ]
    worst = p95(samples)
    result.aims += [
        Aim("100 % of invented quotes marked", invented == 100.0, f"{invented:.0f} %"),
        Aim("0 % of true quotes marked", true_marked == 0.0, f"{true_marked:.0f} %"),
        Aim(
            "the place named right for ≥ 95 % of true quotes",
            placed >= 95.0,
            f"{placed:.0f} %",
            value=placed,
            limit=95.0,
            unit="%",
            higher_is_better=True,
        ),
        Aim(
            "verification ≤ 5 ms at p95 (2,000-character answer, 60,000 characters of results)",
            worst <= 5.0,
            f"p95 {worst:.2f} ms",
            value=worst,
            limit=5.0,
            unit="ms",
        ),
    ]
    result.notes.append(
        f"{len(questions)} questions, each answered with a verbatim quote, a quote with one "
        "harmless difference and an invented quote; the evidence is the real search_files and "
        "read_file results of the question and of the previous one on another document. "
        "A true quote is placed right when its file, start line and place (page, sheet, slide, "
        "heading, or none) are those of the line quoted."
    )
    result.notes.append(
        "Differences and inventions used: "
        + ", ".join(f"{kind} × {count}" for kind, count in sorted(kinds.items()))
        + ". The timing evidence is every question's results plus pages of a long Markdown "
        f"document, read in pages of up to 12,000 characters, so it holds {evidence_chars:,} "
        "characters rather than exactly 60,000; the time is check_quotes alone."
    )
    result.notes.append("Misses: " + ("; ".join(misses[:12]) if misses else "none") + ".")
    return result
