"""Search by meaning through the real Toolbox, against the fake server's `/embeddings`.

The fake's encoder here knows a few concepts: texts naming the same concept in different words
("шредер" and "уничтожение") get the same direction, so the meaning side finds what no word
of the query names. Counting the texts the server embedded shows what a build paid for.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.fakes.fake_llm import FakeLLM
from tests.fakes.fake_transcriptions import unreachable_url
from tests.tools.placed_docs import word_file
from tools import Toolbox
from tools.config import ToolSettings
from tools.jail.scope import Scope
from tools.vectors.embeddings import PER_TOKEN, EmbeddingsConfig

CONCEPTS = {
    "disposal": ("шредер", "уничтож", "shred", "dispos"),
    "leave": ("отгул", "отпуск", "leave", "holiday"),
    "travel": ("командиров", "гостиниц", "trip", "hotel"),
}
DIMENSIONS = 16


def concept_encoder(texts: list[str]) -> list[list[float]]:
    """A direction per concept a text names (one of its own when it names none)."""
    vectors = []
    for text in texts:
        folded = text.lower()
        vector = np.full(DIMENSIONS, 0.01)
        for axis, stems in enumerate(CONCEPTS.values()):
            vector[axis] += sum(folded.count(stem) for stem in stems)
        if vector[:3].max() < 1:
            own = int.from_bytes(hashlib.blake2b(folded.encode(), digest_size=4).digest(), "big")
            vector[3 + own % (DIMENSIONS - 3)] += 0.05
        vectors.append([float(x) for x in vector / np.linalg.norm(vector)])
    return vectors


DOCUMENTS = {
    "правила/архив.txt": "Бумаги с персональными данными уничтожаются в конце квартала.",
    "правила/отдых.txt": "Отгулы за работу в выходные даются по заявлению.",
    "правила/поездки.md": "# Командировки\n\nГостиница оплачивается по чеку.",
    "правила/buget.txt": "Budget for the year: paper, toner, coffee.",
}


@pytest.fixture
async def fake_server(fake_llm: FakeLLM) -> FakeLLM:
    fake_llm.embeddings.encoder = concept_encoder
    return fake_llm


class Boxes:
    """Toolboxes over one documents folder and one DATA_DIR, with embeddings on the fake."""

    def __init__(self, tmp_path: Path, server: FakeLLM) -> None:
        self.root = tmp_path / "docs"
        self.data = tmp_path / "data"
        self.server = server
        self.running: list[Toolbox] = []
        for rel, text in DOCUMENTS.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")

    async def start(
        self, *, base_url: str | None = None, ready: bool = True, **config: Any
    ) -> Toolbox:
        """A started toolbox, its keyword index built and (with `ready`) its vectors too."""
        config.setdefault("calls_per_second", 1000.0)
        embeddings = EmbeddingsConfig(
            model="fake-embed",
            base_url=base_url or self.server.base_url,
            api_key="embed-key",
            **config,
        )
        settings = ToolSettings(sandbox_dir=self.root, data_dir=self.data)
        box = Toolbox(settings, watch_interval=0.05, embeddings=embeddings, vector_interval=60)
        self.running.append(box)
        await box.start()
        await asyncio.wait_for(box.wait_ready(), 30)
        if ready:
            await asyncio.wait_for(box.wait_vectors(), 30)
        return box

    async def stop(self, box: Toolbox) -> None:
        self.running.remove(box)
        await box.close()


@pytest.fixture
async def boxes(tmp_path: Path, fake_server: FakeLLM) -> AsyncIterator[Boxes]:
    made = Boxes(tmp_path, fake_server)
    try:
        yield made
    finally:
        for box in list(made.running):
            await made.stop(box)


async def _search(box: Toolbox, query: str, scope: Scope | None = None, **args: Any) -> Any:
    result = await box.execute("search_files", {"query": query, **args}, scope=scope)
    return json.loads(result.text)


class TestMeaning:
    async def test_a_document_named_in_other_words_is_found_with_its_passage(
        self, boxes: Boxes
    ) -> None:
        box = await boxes.start()
        found = await _search(box, "шредер")
        first = found["results"][0]
        assert first["path"] == "правила/архив.txt"
        assert first["found_by"] == ["meaning"]
        assert first["snippets"] == [
            {"line": 1, "text": DOCUMENTS["правила/архив.txt"]},
        ]
        assert "meaning" not in found

    async def test_a_passage_carries_its_place(self, boxes: Boxes) -> None:
        box = await boxes.start()
        found = await _search(box, "hotel")
        hit = next(r for r in found["results"] if r["path"] == "правила/поездки.md")
        assert hit["snippets"][0]["place"] == "§ Командировки"
        assert hit["snippets"][0]["line"] == 1

    async def test_a_word_passage_names_the_headings_it_lies_under(self, boxes: Boxes) -> None:
        paragraphs = [
            ("Heading 1", "Правила поездок"),
            (None, "Общие положения."),
            ("Heading 2", "Проживание"),
            (None, "Гостиница оплачивается по чеку."),
        ]
        (boxes.root / "правила/поездки.docx").write_bytes(word_file(paragraphs))
        box = await boxes.start()
        found = await _search(box, "hotel")
        hit = next(r for r in found["results"] if r["path"] == "правила/поездки.docx")
        assert hit["found_by"] == ["meaning"]
        assert hit["snippets"][0]["place"] == "§ Правила поездок > Проживание"
        assert hit["snippets"][0]["line"] == 3

    async def test_a_document_both_sides_find_says_so(self, boxes: Boxes) -> None:
        box = await boxes.start()
        found = await _search(box, "отгулы")
        first = found["results"][0]
        assert first["path"] == "правила/отдых.txt"
        assert first["found_by"] == ["words", "meaning"]

    async def test_the_status_counts_the_passages_and_calls(self, boxes: Boxes) -> None:
        box = await boxes.start()
        status = box.vector_status()
        assert status.configured
        assert status.passages_done == status.passages_total == len(DOCUMENTS)
        assert status.calls >= 1
        assert status.last_error is None


class TestScope:
    async def test_files_outside_the_scope_never_take_a_place(
        self, boxes: Boxes, tmp_path: Path
    ) -> None:
        # Many files outside the scope lie nearer to the query than the one inside it: a
        # filter after the nearest few would leave the scope with nothing.
        outside = tmp_path / "docs" / "чужое"
        outside.mkdir()
        for n in range(30):
            (outside / f"{n:02}.txt").write_text(f"Шредер {n}.", encoding="utf-8")
        inside = tmp_path / "docs" / "правила" / "архив.txt"
        inside.write_text("Уничтожение бумаг после командировки.", encoding="utf-8")
        box = await boxes.start()
        scope = Scope.of(["правила"])
        found = await _search(box, "shredding", scope, limit=3)
        paths = [r["path"] for r in found["results"]]
        assert paths[0] == "правила/архив.txt"
        assert all(p.startswith("правила/") for p in paths)
        assert found["total"] == len(paths)
        everywhere = await _search(box, "shredding", limit=3)
        assert all(r["path"].startswith("чужое/") for r in everywhere["results"])


class TestBuild:
    async def test_a_restart_in_the_middle_embeds_nothing_twice(
        self, boxes: Boxes, fake_server: FakeLLM
    ) -> None:
        fake_server.embeddings.answer_only(2)
        first = await boxes.start(batch=1, attempts=1)
        status = first.vector_status()
        assert status.last_error is not None
        assert status.passages_done < status.passages_total
        await boxes.stop(first)
        assert len(fake_server.embeddings.inputs) == 2

        fake_server.embeddings.answers_left = None
        again = await boxes.start(batch=1)
        embedded = fake_server.embeddings.inputs
        assert len(embedded) == len(set(embedded)) == len(DOCUMENTS)
        status = again.vector_status()
        assert status.passages_done == status.passages_total == len(DOCUMENTS)
        assert status.last_error is None

    async def test_only_a_changed_file_is_embedded_again(
        self, boxes: Boxes, fake_server: FakeLLM, tmp_path: Path
    ) -> None:
        box = await boxes.start()
        before = len(fake_server.embeddings.inputs)
        (tmp_path / "docs" / "правила" / "отдых.txt").write_text(
            "Отгулы даются по приказу директора.", encoding="utf-8"
        )
        (tmp_path / "docs" / "правила" / "buget.txt").unlink()
        await asyncio.wait_for(box.wait_vectors(), 30)
        assert fake_server.embeddings.inputs[before:] == ["Отгулы даются по приказу директора."]
        found = await _search(box, "coffee toner budget")
        assert all(r["path"] != "правила/buget.txt" for r in found["results"])
        assert box.vector_status().passages_done == len(DOCUMENTS) - 1

    async def test_the_documents_are_compared_again_only_after_the_index_changed(
        self, boxes: Boxes, tmp_path: Path
    ) -> None:
        """Comparing every document with the vectors held takes seconds at a million
        documents, and searches wait for it: a quiet index is not compared again."""
        box = await boxes.start()
        looks = box.vector_status().looks
        for _ in range(3):
            await asyncio.wait_for(box.wait_vectors(), 30)
        assert box.vector_status().looks == looks
        (tmp_path / "docs" / "правила" / "шредер.txt").write_text(
            "Шредер стоит у окна.", encoding="utf-8"
        )
        await asyncio.wait_for(box.wait_vectors(), 30)
        assert box.vector_status().looks == looks + 1
        found = await _search(box, "уничтожение бумаг")
        assert "правила/шредер.txt" in [r["path"] for r in found["results"]]

    async def test_the_key_reaches_the_server_and_no_log(
        self, boxes: Boxes, fake_server: FakeLLM, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level("DEBUG")
        fake_server.embeddings.fail_next(429)
        box = await boxes.start()
        assert box.vector_status().passages_done == len(DOCUMENTS)
        assert "embed-key" not in caplog.text
        assert "429" in caplog.text


class TestFallback:
    async def test_a_hanging_server_leaves_the_keyword_results_and_says_why(
        self, boxes: Boxes, fake_server: FakeLLM
    ) -> None:
        box = await boxes.start(query_deadline_s=0.3)
        fake_server.embeddings.hang = True
        found = await _search(box, "отгулы")
        assert [r["path"] for r in found["results"]] == ["правила/отдых.txt"]
        assert found["meaning"] == (
            "unavailable: the embeddings server did not answer within 0.3 s"
        )
        assert "found_by" not in found["results"][0]

    async def test_a_dead_server_leaves_the_keyword_results(self, boxes: Boxes) -> None:
        box = await boxes.start(base_url=unreachable_url(), ready=False, attempts=1)
        found = await _search(box, "отгулы")
        assert [r["path"] for r in found["results"]] == ["правила/отдых.txt"]
        assert found["meaning"] == "unavailable: the embeddings server cannot be reached"

    async def test_one_vector_per_token_is_said_once_where_it_arrives(
        self, boxes: Boxes, fake_server: FakeLLM, caplog: pytest.LogCaptureFixture
    ) -> None:
        """llama.cpp serving a model without pooling: the build and the search say what to
        change, in one line each, never a numpy traceback."""
        fake_server.embeddings.per_token = True
        box = await boxes.start()
        assert box.vector_status().last_error == PER_TOKEN
        found = await _search(box, "отгулы")
        assert [r["path"] for r in found["results"]] == ["правила/отдых.txt"]
        assert found["meaning"] == f"unavailable: {PER_TOKEN}"
        said = [r for r in caplog.records if r.name.startswith("tools.vectors")]
        assert [r.levelno for r in said] == [logging.WARNING]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]

    async def test_a_query_the_words_side_refuses_is_told_to_the_model(
        self, boxes: Boxes, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The words side fails while the meaning side runs beside it: the model is told why,
        and nothing is logged as an error."""
        box = await boxes.start()
        with caplog.at_level(logging.ERROR):
            result = await box.execute("search_files", {"query": "?!"})
            gc.collect()  # a task whose failure nobody read would be logged here
        assert result.error is not None
        assert "no words to search for" in result.text
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


class TestWithoutEmbeddings:
    async def test_search_is_keyword_only_and_says_nothing_of_meaning(
        self, tmp_path: Path, fake_server: FakeLLM
    ) -> None:
        root = tmp_path / "docs"
        root.mkdir()
        (root / "отдых.txt").write_text(DOCUMENTS["правила/отдых.txt"], encoding="utf-8")
        box = Toolbox(ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"))
        await box.start()
        try:
            await asyncio.wait_for(box.wait_ready(), 30)
            found = await _search(box, "отгулы")
            assert set(found) == {"results", "total", "truncated"}
            assert set(found["results"][0]) == {"path", "size", "modified", "match", "snippets"}
            assert (await _search(box, "шредер"))["results"] == []
            assert not box.vector_status().configured
            assert "meaning" not in box.specs[0]["function"]["description"]
        finally:
            await box.close()
        assert fake_server.embeddings.calls == 0
        assert not (tmp_path / "data" / "vectors.index").exists()


class TestFusion:
    async def test_common_words_in_another_language_do_not_outvote_the_meaning(
        self, boxes: Boxes
    ) -> None:
        for n in range(6):
            note = boxes.root / "notes" / f"team-{n}.txt"
            note.parent.mkdir(exist_ok=True)
            note.write_text(f"Team policy {n}: the office kitchen and printers.", encoding="utf-8")
        box = await boxes.start()
        found = await _search(box, "holiday policy for the team")
        first = found["results"][0]
        assert first["path"] == "правила/отдых.txt"
        assert first["found_by"] == ["meaning"]
        assert {"words"} <= {side for r in found["results"][1:] for side in r["found_by"]}

    async def test_rare_words_all_matched_lead(self, boxes: Boxes) -> None:
        box = await boxes.start()
        found = await _search(box, "toner coffee")
        first = found["results"][0]
        assert first["path"] == "правила/buget.txt"
        assert "words" in first["found_by"]


class TestCentre:
    """Most files of a folder lean one way (here: all speak of leave); a question that leans
    that way too and asks about something else finds the file that speaks of it."""

    QUESTION = "шредер для уничтожения в отпуске, отпускные, отпуск"

    @pytest.fixture
    def ordinary(self, boxes: Boxes) -> Boxes:
        for n in range(36):
            note = boxes.root / "графики" / f"отпуск-{n}.txt"
            note.parent.mkdir(exist_ok=True)
            note.write_text(f"Отпуск сотрудника {n}: график согласован.", encoding="utf-8")
        return boxes

    async def test_the_folders_common_lean_does_not_outrank_what_is_asked(
        self, ordinary: Boxes
    ) -> None:
        box = await ordinary.start()
        nearest = await box.search_by_meaning(self.QUESTION, 3)
        assert nearest[0] == "правила/архив.txt"
        found = await _search(box, self.QUESTION, limit=3)
        hit = next(r for r in found["results"] if r["path"] == "правила/архив.txt")
        assert "meaning" in hit["found_by"]

    async def test_the_files_that_only_lean_the_common_way_are_not_found_by_meaning(
        self, ordinary: Boxes
    ) -> None:
        box = await ordinary.start()
        found = await _search(box, "шредер", limit=10)
        by_meaning = [r["path"] for r in found["results"] if "meaning" in r["found_by"]]
        assert by_meaning[0] == "правила/архив.txt"
        assert not [p for p in by_meaning if p.startswith("графики/")]
