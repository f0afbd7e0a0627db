"""`python -m bot eval FILE`: ask a file of questions, check the answers, print the verdicts.

For admins choosing a model, a prompt or settings, and for CI. Every model named runs alone
on the same services as the bot (`open_services` with MODEL replaced), each question in a new
conversation. Results go to the state file (`--resume`) as they come, so a run stopped by
Ctrl-C goes on where it stopped. Exit codes: 0, 1 when a model's accuracy is under
`--min-accuracy`, 2 when the file of questions (or the state file) cannot be used.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.console.evaluation.asking import Job, ask_all
from bot.console.evaluation.progress import ProgressBar
from bot.console.evaluation.questions import Question, QuestionFileError, load_questions
from bot.console.evaluation.report import json_report, markdown_report, terminal_table
from bot.console.evaluation.results import QuestionResult, question_key
from bot.console.evaluation.state import StateFile, StateFileError
from bot.console.evaluation.summary import ModelSummary, Prices, summarise
from bot.process import exit_codes
from bot.services import close_services, open_services
from bot.settings.model import Settings


async def serve(
    settings: Settings,
    *,
    questions_file: str,
    models: Sequence[str] | None = None,
    parallel: int = 2,
    json_file: str | None = None,
    report_file: str | None = None,
    min_accuracy: float | None = None,
    price_in: float | None = None,
    price_out: float | None = None,
    resume: str | None = None,
) -> int:
    """Run the file against each model; print the table; the exit code says how it went."""
    try:
        questions = load_questions(Path(questions_file))
        state = StateFile(Path(resume)) if resume else None
        known = state.load() if state is not None else {}
    except (QuestionFileError, StateFileError) as exc:
        _say(str(exc))
        return exit_codes.FIX_SETTINGS
    chosen = list(dict.fromkeys(models or [settings.model]))
    plans = {model: _jobs(model, questions) for model in chosen}
    try:
        results = await _ask_models(settings, plans, known, state, parallel=parallel)
    except StateFileError as exc:
        _say(str(exc))
        return exit_codes.FIX_SETTINGS
    except asyncio.CancelledError:
        total = sum(map(len, plans.values()))
        done = len(state.load()) if state is not None else 0
        _say(_stopped(done, total, resume))
        raise
    prices = None
    if price_in is not None or price_out is not None:
        prices = Prices(price_in or 0.0, price_out or 0.0)
    ordered = [results[job.key] for jobs in plans.values() for job in jobs]
    summaries = [
        summarise(model, [r for r in ordered if r.model == model], prices) for model in chosen
    ]
    try:
        await asyncio.to_thread(
            _write_out, questions_file, ordered, summaries, json_file, report_file
        )
    except OSError as exc:
        _say(f"{exc.filename}: cannot be written: {exc.strerror or exc}")
        return exit_codes.FIX_SETTINGS
    return _verdict(summaries, min_accuracy)


async def _ask_models(
    settings: Settings,
    plans: dict[str, list[Job]],
    known: dict[str, QuestionResult],
    state: StateFile | None,
    *,
    parallel: int,
) -> dict[str, QuestionResult]:
    """Every job's result: those done before (from the state file), then the rest, asked."""
    results = {
        job.key: known[job.key]
        for jobs in plans.values()
        for job in jobs
        if _done(known.get(job.key))
    }
    progress = ProgressBar(sum(map(len, plans.values())), sys.stderr, done=len(results))

    def keep(result: QuestionResult) -> None:
        results[result.key] = result
        if state is not None:
            state.append(result)
        progress.advance(passed=result.passed)

    try:
        for model, jobs in plans.items():
            todo = [job for job in jobs if job.key not in results]
            if todo:
                progress.describe(model)
                await _ask_model(settings, model, todo, parallel=parallel, on_result=keep)
    finally:
        progress.close()
    return results


async def _ask_model(
    settings: Settings,
    model: str,
    jobs: Sequence[Job],
    *,
    parallel: int,
    on_result: Callable[[QuestionResult], None],
) -> None:
    """Open the bot's services for `model`, wait for the index, ask `jobs`, close them."""
    services = await open_services(settings.model_copy(update={"model": model}))
    try:
        await services.toolbox.wait_ready()
        await ask_all(
            services.agent,
            model,
            jobs,
            parallel=parallel,
            conversation_prefix=f"eval-{uuid.uuid4().hex[:12]}",
            on_result=on_result,
        )
    finally:
        await close_services(services)


def _write_out(
    source: str,
    results: Sequence[QuestionResult],
    summaries: Sequence[ModelSummary],
    json_file: str | None,
    report_file: str | None,
) -> None:
    """The table (or the JSON, for `--json -`) on standard output, and the files asked for."""
    if json_file == "-":
        sys.stdout.write(json_report(source, results, summaries))
    else:
        sys.stdout.write(terminal_table(results, summaries))
    sys.stdout.flush()
    if json_file and json_file != "-":
        Path(json_file).write_text(json_report(source, results, summaries), "utf-8")
    if report_file:
        Path(report_file).write_text(markdown_report(source, results, summaries), "utf-8")


def _verdict(summaries: Sequence[ModelSummary], min_accuracy: float | None) -> int:
    """1 when a model fell under `min_accuracy` (each such model named), else 0."""
    if min_accuracy is None:
        return exit_codes.STOPPED
    under = [s for s in summaries if s.accuracy < min_accuracy]
    for s in under:
        _say(f"{s.model}: accuracy {s.accuracy:.0%} is under --min-accuracy {min_accuracy:g}")
    return exit_codes.FELL_SHORT if under else exit_codes.STOPPED


def _jobs(model: str, questions: Sequence[Question]) -> list[Job]:
    return [
        Job(number, question, question_key(model, number, question))
        for number, question in enumerate(questions, start=1)
    ]


def _done(result: QuestionResult | None) -> bool:
    """A question is done once answered; one the model server failed is asked again."""
    return result is not None and result.error is None


def _stopped(done: int, total: int, resume: str | None) -> str:
    if resume:
        return f"stopped: {done} of {total} results kept; --resume {resume} goes on from there"
    return "stopped; with --resume FILE a rerun goes on from where it stopped"


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
