"""Trimming a request to the window: properties over any history, and the rules by example."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.agent.context import compact, fit, repair
from bot.agent.prompts import OMITTED_TURNS_NOTE
from bot.agent.tokens import TokenCounter
from bot.agent.types import ContextOverflow
from tests.agent.conftest import assert_request_valid
from tools.cutting import cut_result

SYSTEM = "Answer from the documents. Отвечай по документам."
TOOLS_TOKENS = 120
NOTE = {"role": "system", "content": OMITTED_TURNS_NOTE}
_ids = itertools.count()

texts = st.text(
    alphabet=st.sampled_from('abc xyz 123 ,.{}" абв где ёжик\n😀中'), min_size=1, max_size=600
)


@st.composite
def tool_round(draw: st.DrawFn) -> list[dict[str, Any]]:
    calls = draw(st.integers(min_value=1, max_value=3))
    ids = [f"call_{next(_ids)}" for _ in range(calls)]
    assistant = {
        "role": "assistant",
        "content": draw(st.none() | texts),
        "tool_calls": [
            {
                "id": i,
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": draw(texts)})},
            }
            for i in ids
        ],
    }
    results = [{"role": "tool", "tool_call_id": i, "content": draw(texts) * 3} for i in ids]
    return [assistant, *results]


@st.composite
def turn(draw: st.DrawFn, *, finished: bool = True) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": draw(texts)}]
    for round_ in draw(st.lists(tool_round(), max_size=3)):
        messages.extend(round_)
    if finished:
        messages.append({"role": "assistant", "content": draw(texts)})
    return messages


def minimal_size(current: list[dict[str, Any]], counter: TokenCounter) -> int:
    """What the system prompt, tools and the current turn need with every result cut to nothing."""
    shrunk = [
        {**m, "content": cut_result(m["content"], 0)} if m["role"] == "tool" else m
        for m in current
    ]
    system = {"role": "system", "content": SYSTEM}
    return counter.messages([system]) + TOOLS_TOKENS + sum(counter.message(m) for m in shrunk)


def flatten(turns: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [m for t in turns for m in t]


class TestFitProperties:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        past=st.lists(turn(), max_size=6),
        current=turn(finished=False),
        slack=st.integers(min_value=0, max_value=6_000),
    )
    def test_any_history_fits_and_keeps_its_structure(
        self, past: list[list[dict[str, Any]]], current: list[dict[str, Any]], slack: int
    ) -> None:
        counter = TokenCounter()
        budget = minimal_size(current, counter) + slack

        fitted = fit(
            SYSTEM, past, current, budget=budget, tools_tokens=TOOLS_TOKENS, counter=counter
        )

        messages = fitted.messages
        assert counter.messages(messages) + TOOLS_TOKENS <= budget
        assert fitted.tokens <= budget
        assert messages[0] == {"role": "system", "content": SYSTEM}
        assert_request_valid({"messages": messages, "tools": ["attached"]})
        tail = messages[len(messages) - len(current) :]
        for sent, original in zip(tail, current, strict=True):
            assert sent["role"] == original["role"]
            if sent["role"] == "tool" and sent["content"] != original["content"]:
                kept = json.loads(sent["content"])["partial"]
                assert original["content"].startswith(kept)
            else:
                assert sent == original
        noted = messages[1] == NOTE
        kept_past = messages[1 + noted : len(messages) - len(current)]
        originals = flatten(past)
        positions = [next(i for i, m in enumerate(originals) if m is k) for k in kept_past]
        assert positions == sorted(positions), "past messages were reordered"
        if fitted.dropped_turns and kept_past:
            assert noted, "turns were left out without the note saying so"
        if noted:
            assert fitted.dropped_turns
        if fitted.dropped_turns:
            kept_questions = [m for m in kept_past if m["role"] == "user"]
            expected = [t[0] for t in past[fitted.dropped_turns :]]
            assert kept_questions == expected, "only the oldest turns may be dropped"

    @settings(max_examples=30, deadline=None)
    @given(current=turn(finished=False), short=st.integers(min_value=1, max_value=500))
    def test_too_small_a_budget_overflows(self, current: list[dict[str, Any]], short: int) -> None:
        counter = TokenCounter()
        system = {"role": "system", "content": SYSTEM}
        never_cut = [m for m in current if m["role"] != "tool"]
        budget = counter.messages([system, *never_cut]) + TOOLS_TOKENS - short
        with pytest.raises(ContextOverflow):
            fit(SYSTEM, [], current, budget=budget, tools_tokens=TOOLS_TOKENS, counter=counter)


def qa_turn(n: int, *, tool_chars: int = 4_000) -> list[dict[str, Any]]:
    call_id = f"c{n}"
    return [
        {"role": "user", "content": f"вопрос {n}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "д" * tool_chars},
        {"role": "assistant", "content": f"ответ {n}"},
    ]


class TestFitRules:
    def test_everything_is_kept_when_it_fits(self) -> None:
        past = [qa_turn(n, tool_chars=100) for n in range(3)]
        fitted = fit(
            SYSTEM,
            past,
            [{"role": "user", "content": "q"}],
            budget=10_000,
            tools_tokens=0,
            counter=TokenCounter(),
        )
        assert fitted.messages[1:-1] == flatten(past)
        assert (fitted.compacted_turns, fitted.dropped_turns, fitted.cut_results) == (0, 0, 0)

    def test_old_tool_traffic_goes_before_any_question(self) -> None:
        past = [qa_turn(n) for n in range(4)]
        counter = TokenCounter()
        fitted = fit(
            SYSTEM,
            past,
            [{"role": "user", "content": "q"}],
            budget=5_000,
            tools_tokens=0,
            counter=counter,
        )
        contents = [m.get("content") for m in fitted.messages]
        for n in range(4):
            assert f"вопрос {n}" in contents
            assert f"ответ {n}" in contents
        assert fitted.dropped_turns == 0
        assert 1 <= fitted.compacted_turns < 4, "the newest turn keeps its tool traffic"
        assert fitted.messages[-2]["role"] == "assistant"
        assert fitted.messages[-3]["role"] == "tool"

    def test_oldest_turns_go_whole_with_a_marker(self) -> None:
        past = [qa_turn(n, tool_chars=10) for n in range(40)]
        counter = TokenCounter()
        fitted = fit(
            SYSTEM,
            past,
            [{"role": "user", "content": "q"}],
            budget=600,
            tools_tokens=0,
            counter=counter,
        )
        assert fitted.dropped_turns > 0
        assert fitted.messages[:2] == [{"role": "system", "content": SYSTEM}, NOTE]
        assert "вопрос 0" not in [m.get("content") for m in fitted.messages]
        assert fitted.messages[-2]["content"] == "ответ 39"

    def test_a_huge_result_in_the_current_turn_is_cut_with_a_marker(self) -> None:
        current = qa_turn(1, tool_chars=50_000)[:3]
        fitted = fit(
            SYSTEM, [qa_turn(0)], current, budget=3_000, tools_tokens=0, counter=TokenCounter()
        )
        result = fitted.messages[-1]
        assert result["role"] == "tool"
        assert result["tool_call_id"] == "c1"
        assert "of 50000 characters shown" in json.loads(result["content"])["cut"]
        assert fitted.cut_results == 1
        assert "вопрос 0" not in [m.get("content") for m in fitted.messages]


def requests_of(turns: list[list[dict[str, Any]]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """Every request a conversation made: per turn, its current turn before each model reply,
    as (how many past turns it had, the current turn then)."""
    return [
        (index, turn_[:position])
        for index, turn_ in enumerate(turns)
        for position in range(1, len(turn_))
        if turn_[position]["role"] == "assistant"
    ]


def repeated_tokens(previous: list[dict[str, Any]], request: list[dict[str, Any]]) -> int:
    """Tokens at the start of `request` that repeat the start of `previous`, message by message
    (the tools come first and never change, so they always repeat)."""
    counter = TokenCounter()
    same = 0
    for old, new in zip(previous, request, strict=False):
        if old != new:
            break
        same += counter.message(new)
    return TOOLS_TOKENS + same


def outgrown_conversation() -> list[list[dict[str, Any]]]:
    """Thirty questions with a read and a long answer each: far more than 3,000 tokens hold."""
    turns = [qa_turn(n, tool_chars=800) for n in range(30)]
    for n, turn_ in enumerate(turns):
        turn_[-1] = {"role": "assistant", "content": f"ответ {n}: " + "подробно " * 20}
    return turns


class TestTrimmingInSteps:
    def test_a_long_conversation_drops_old_turns_in_blocks(self) -> None:
        turns = outgrown_conversation()
        budget = 3_000
        sent = [
            fit(
                SYSTEM,
                turns[:index],
                current,
                budget=budget,
                tools_tokens=TOOLS_TOKENS,
                counter=TokenCounter(),
            )
            for index, current in requests_of(turns)
        ]

        assert max(f.tokens for f in sent) <= budget
        dropped = [f.dropped_turns for f in sent]
        assert dropped[-1] >= 10, "the conversation never outgrew the window"
        assert dropped == sorted(dropped), "a turn left out came back"
        drops = sum(earlier != later for earlier, later in itertools.pairwise(dropped))
        assert drops <= 3, f"{drops} drops for {dropped[-1]} turns left out"
        repeated = sum(
            repeated_tokens(earlier.messages, later.messages)
            for earlier, later in itertools.pairwise(sent)
        )
        assert repeated / sum(f.tokens for f in sent[1:]) >= 0.6

    def test_a_small_move_of_the_calibration_does_not_move_the_cut(self) -> None:
        turns = outgrown_conversation()
        index, current = requests_of(turns)[-1]
        cuts = set()
        for ratio in (1.0, 1.01, 1.02, 1.04, 1.08):
            counter = TokenCounter()
            if ratio > 1:  # a report above the estimate raises the ratio at once, 5 % over it
                counter.observe(1_000, round(ratio / 1.05 * 1_000))
            assert counter.ratio == pytest.approx(ratio, abs=0.005)
            fitted = fit(
                SYSTEM,
                turns[:index],
                current,
                budget=3_000,
                tools_tokens=TOOLS_TOKENS,
                counter=counter,
            )
            assert fitted.tokens <= 3_000
            cuts.add(fitted.dropped_turns)
        assert len(cuts) == 1, f"the oldest turn kept moved with the calibration: {cuts}"

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        turns=st.lists(turn(), min_size=2, max_size=8),
        slack=st.integers(min_value=0, max_value=4_000),
        headroom=st.sampled_from([0.25, 0.5, 0.75]),
    )
    def test_a_growing_conversation_never_brings_a_dropped_turn_back(
        self, turns: list[list[dict[str, Any]]], slack: int, headroom: float
    ) -> None:
        counter = TokenCounter()
        requests = requests_of(turns)
        budget = max(minimal_size(current, counter) for _, current in requests) + slack
        dropped = 0
        for index, current in requests:
            fitted = fit(
                SYSTEM,
                turns[:index],
                current,
                budget=budget,
                tools_tokens=TOOLS_TOKENS,
                counter=counter,
                headroom=headroom,
            )
            assert fitted.tokens <= budget
            assert fitted.messages[0] == {"role": "system", "content": SYSTEM}
            assert_request_valid({"messages": fitted.messages, "tools": ["attached"]})
            assert fitted.dropped_turns >= dropped, "a turn left out came back"
            dropped = fitted.dropped_turns


class TestRepair:
    def test_a_call_without_its_result_loses_the_call(self) -> None:
        turn_ = qa_turn(0)
        broken = [turn_[0], {**turn_[1], "content": "ищу"}]
        assert repair(broken) == [turn_[0], {"role": "assistant", "content": "ищу"}]

    def test_stray_results_and_partial_answers_are_dropped(self) -> None:
        turn_ = qa_turn(0)
        two_calls = {
            **turn_[1],
            "tool_calls": [*turn_[1]["tool_calls"], {**turn_[1]["tool_calls"][0], "id": "x"}],
        }
        broken = [turn_[0], turn_[2], two_calls, turn_[2], turn_[3]]
        assert repair(broken) == [turn_[0], turn_[3]]

    def test_intact_turns_are_unchanged_but_for_a_null_content_beside_calls(self) -> None:
        turn_ = qa_turn(0)
        assert turn_[1]["content"] is None
        assert repair(turn_) == [turn_[0], {**turn_[1], "content": ""}, *turn_[2:]]

    def test_compact_keeps_question_and_answer(self) -> None:
        turn_ = qa_turn(0)
        assert compact(turn_) == [turn_[0], turn_[3]]
        assert compact(turn_[:3]) == [turn_[0]]


def read_page(lines: int, *, first: int = 1) -> str:
    """A read_file result as the toolbox gives it, `lines` numbered lines from `first`."""
    body = [f"{n:>4}| строка номер {n} текста договора" for n in range(first, first + lines)]
    return json.dumps(
        {
            "path": "договор.txt",
            "start_line": first,
            "end_line": first + lines - 1,
            "total_lines": 5000,
            "next_offset": first + lines,
            "notice": "file content",
            "document": "\n".join(["<<<BEGIN>>>", *body, "<<<END>>>"]),
        },
        ensure_ascii=False,
    )


class TestCutResult:
    def test_a_page_is_cut_on_a_line_and_says_where_to_go_on(self) -> None:
        original = read_page(300, first=101)
        cut = json.loads(cut_result(original, 3_000))
        lines = cut["document"].split("\n")
        assert lines[0] == "<<<BEGIN>>>"
        assert lines[-1] == "<<<END>>>"
        last = int(lines[-2].split("|")[0])
        assert lines[1].startswith(" 101|")
        assert cut["start_line"] == 101
        assert cut["end_line"] == last
        assert cut["next_offset"] == last + 1
        assert f"offset {last + 1}" in cut["cut"]
        assert all(line in original for line in lines[1:-1])
        assert len(json.dumps(cut, ensure_ascii=False)) <= 3_000

    def test_search_results_lose_whole_items(self) -> None:
        results = [{"path": f"папка/файл_{i}.txt", "snippets": ["x" * 200]} for i in range(40)]
        original = json.dumps({"results": results, "total": 57, "truncated": True})
        cut = json.loads(cut_result(original, 2_000))
        assert cut["results"] == results[: len(cut["results"])]
        assert 0 < len(cut["results"]) < 40
        assert cut["truncated"] is True
        assert f"{len(cut['results'])} of 57 results" in cut["cut"]
        assert "offset" not in cut["cut"]

    @settings(max_examples=40, deadline=None)
    @given(lines=st.integers(min_value=1, max_value=200), cap=st.integers(0, 20_000))
    def test_any_cut_is_valid_json_that_never_skips_a_line(self, lines: int, cap: int) -> None:
        original = read_page(lines)
        cut = json.loads(cut_result(original, cap))
        kept = cut["document"].split("\n")[1:-1]
        assert [int(line.split("|")[0]) for line in kept] == list(range(1, len(kept) + 1))
        assert cut["end_line"] == len(kept)
        assert cut["next_offset"] in (len(kept) + 1, None)
