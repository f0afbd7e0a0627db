"""Token counting: conservative for Russian, calibrated by the server, never downloading."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.agent.tokens import TokenCounter, estimate_text_tokens, offline_encoder
from tests.agent.conftest import AgentFactory
from tests.fakes.fake_llm import FakeLLM, Reply, text_reply

ENGLISH = "The vacation policy gives every employee twenty-eight calendar days a year. " * 20
RUSSIAN = "Политика отпусков даёт каждому сотруднику двадцать восемь календарных дней. " * 20


class TestEstimate:
    def test_cyrillic_costs_more_per_character_than_english(self) -> None:
        english = estimate_text_tokens(ENGLISH) / len(ENGLISH)
        russian = estimate_text_tokens(RUSSIAN) / len(RUSSIAN)
        assert russian > 1.5 * english

    def test_estimates_stay_above_common_tokenizer_rates(self) -> None:
        # Published rates: English prose about 4 characters a token in cl100k and o200k;
        # Russian about 2.5 in cl100k and 3.5-4 in o200k. The estimate must stay above them.
        assert estimate_text_tokens(ENGLISH) >= len(ENGLISH) / 4
        assert estimate_text_tokens(RUSSIAN) >= len(RUSSIAN) / 2

    def test_empty_text_costs_nothing_and_emoji_cost_at_least_one(self) -> None:
        assert estimate_text_tokens("") == 0
        assert estimate_text_tokens("😀😀") >= 2

    def test_messages_count_calls_and_framing(self) -> None:
        counter = TokenCounter()
        bare = counter.message({"role": "assistant", "content": ""})
        with_call = counter.message(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
                ],
            }
        )
        assert bare > 0
        assert with_call > bare + 10


class TestCalibration:
    def test_a_higher_report_scales_the_estimate_up(self) -> None:
        counter = TokenCounter()
        before = counter.text(RUSSIAN)
        counter.observe(1_000, 1_500)
        assert counter.ratio > 1.5
        assert counter.text(RUSSIAN) > before * 1.5

    def test_one_lower_report_does_not_loosen_it(self) -> None:
        counter = TokenCounter()
        counter.observe(1_000, 1_200)
        ratio = counter.ratio
        counter.observe(1_000, 300)
        counter.observe(1_000, None)
        counter.observe(1_000, 0)
        assert counter.ratio == ratio

    def test_a_steady_run_of_lower_reports_loosens_it_with_a_margin(self) -> None:
        counter = TokenCounter()
        for reported in (700, 640, 660, 650):
            counter.observe(1_000, reported)
        assert 0.7 <= counter.ratio < 0.8  # the highest recent report, plus the margin
        counter.observe(1_000, 1_100)
        assert counter.ratio > 1.1  # an under-count is corrected at once

    def test_loosening_stops_at_a_floor(self) -> None:
        counter = TokenCounter()
        for _ in range(10):
            counter.observe(1_000, 100)
        assert counter.ratio == 0.5

    def test_tiny_requests_and_absurd_reports_are_bounded(self) -> None:
        counter = TokenCounter()
        counter.observe(10, 1_000)
        assert counter.ratio == 1.0
        counter.observe(1_000, 1_000_000)
        assert counter.ratio == 4.0


class TestExactCounting:
    def test_no_cached_file_means_estimating(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
        assert offline_encoder("gpt-4o-mini") is None
        assert TokenCounter.for_model("gpt-4o-mini").exact is False

    def test_a_damaged_cached_file_is_not_used(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import hashlib  # noqa: PLC0415

        url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
        (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"garbage")
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
        assert offline_encoder("gpt-4o-mini") is None
        assert (tmp_path / hashlib.sha1(url.encode()).hexdigest()).exists()

    def test_unknown_models_and_disabled_cache_estimate(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        assert offline_encoder("qwen2.5:7b-instruct") is None
        monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
        assert offline_encoder("gpt-4o") is None

    def test_an_injected_exact_counter_is_used(self) -> None:
        counter = TokenCounter(len)
        assert counter.exact
        assert counter.text("abcd") == 4


class TestAgainstRealTokenizers:
    """Where an offline OpenAI tokenizer is installed, the estimate must not undercount."""

    SAMPLES = (ENGLISH, RUSSIAN, "Сахар - 1 стакан, мука - 1 стакан, 120 000 рублей до 5-го.")

    def test_estimate_is_at_least_o200k_and_cl100k(self) -> None:
        bpe_openai = pytest.importorskip("bpe_openai")
        from tests.fakes.sandbox_fixtures import SANDBOX_FILES  # noqa: PLC0415

        texts = [*self.SAMPLES]
        texts += [
            data.decode("utf-8")
            for name, data in SANDBOX_FILES.items()
            if name.endswith((".md", ".txt")) and "vpn" not in name and "приказ" not in name
        ]
        for name in ("o200k_base", "cl100k_base"):
            encoding = bpe_openai.get_encoding(name)
            for text in texts:
                assert estimate_text_tokens(text) >= len(encoding.encode_ordinary(text)), (
                    name,
                    text,
                )


class TestConcurrentCalibration:
    async def test_interleaved_questions_do_not_compound_the_correction(
        self, fake_llm: FakeLLM, make_agent: AgentFactory
    ) -> None:
        agent = make_agent()
        questions = 4
        arrived = asyncio.Event()
        bodies: list[dict[str, Any]] = []

        async def twice_the_count(body: dict[str, Any]) -> Reply:
            bodies.append(body)
            if len(bodies) == questions:
                arrived.set()
            await asyncio.wait_for(arrived.wait(), 10)  # all are built before any is answered
            counter = agent.counter
            raw = counter.raw_messages(body["messages"]) + counter.raw_tools(body["tools"])
            return text_reply("ответ", usage=(2 * raw, 3))

        fake_llm.responder = twice_the_count
        await asyncio.gather(
            *(
                agent.ask(f"chat:{i}", f"вопрос {i} про отпуск и больничный")
                for i in range(questions)
            )
        )

        assert 2.0 <= agent.counter.ratio <= 2.2
