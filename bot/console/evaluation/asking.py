"""Asking the questions: each through the agent, in a conversation of its own, a bounded number
at a time, each result handed on as soon as it is known."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.agent import Agent, AgentError, AgentEvent, AnswerDraft
from bot.console.evaluation.grading import grade
from bot.console.evaluation.questions import Question
from bot.console.evaluation.results import QuestionResult


@dataclass(frozen=True, slots=True)
class Job:
    """One question to ask one model: its number in the file (from 1) and its state key."""

    number: int
    question: Question
    key: str


async def ask_all(
    agent: Agent,
    model: str,
    jobs: Sequence[Job],
    *,
    parallel: int,
    conversation_prefix: str,
    on_result: Callable[[QuestionResult], None],
) -> None:
    """Ask every job, at most `parallel` at once; `on_result` hears each result as it ends.

    Cancelling (Ctrl-C) stops the questions in flight; those that ended were handed on.
    """
    slots = asyncio.Semaphore(parallel)

    async def one(job: Job) -> None:
        async with slots:
            conversation = f"{conversation_prefix}:{job.number}"
            result = await ask_one(agent, model, job, conversation)
        on_result(result)

    async with asyncio.TaskGroup() as group:
        for job in jobs:
            group.create_task(one(job))


async def ask_one(agent: Agent, model: str, job: Job, conversation: str) -> QuestionResult:
    """Ask one question in `conversation` (new, so nothing of another question is in it)."""
    started = time.monotonic()
    first_text: list[float] = []

    async def watch(event: AgentEvent) -> None:
        if isinstance(event, AnswerDraft) and event.text and not first_text:
            first_text.append(time.monotonic() - started)

    question = job.question
    try:
        answer = await agent.ask(conversation, question.question, on_event=watch)
    except AgentError as exc:
        return QuestionResult(
            key=job.key,
            model=model,
            number=job.number,
            question=question.question,
            passed=False,
            cited_right=False if question.cite else None,
            error=f"{exc.kind}: {exc}",
            elapsed_s=time.monotonic() - started,
        )
    checked = grade(question, answer.text, answer.sources)
    usage = answer.usage
    return QuestionResult(
        key=job.key,
        model=model,
        number=job.number,
        question=question.question,
        passed=checked.passed,
        missing=checked.missing,
        forbidden=checked.forbidden,
        cited_right=checked.cited_right,
        answer=answer.text,
        sources=answer.sources,
        quotes_found=sum(1 for quote in answer.quotes if quote.found),
        quotes_invented=sum(1 for quote in answer.quotes if not quote.found),
        rounds=usage.rounds,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        first_token_s=first_text[0] if first_text else None,
        elapsed_s=usage.elapsed_s,
    )
