"""A passage's lines read from the index's stored text, inflating no more than they need."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.index.store import _SCHEMA, LINES_PIECE, compress, connect, load_lines, load_text

LINES = [
    f"Строка {n}: запись журнала о поставке бумаги и тонера на склад." for n in range(1, 6001)
]


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = connect(tmp_path / "index.sqlite3")
    for statement in _SCHEMA:
        connection.execute(statement)
    connection.execute("INSERT INTO texts(id, body) VALUES (1, ?)", (compress("\n".join(LINES)),))
    yield connection
    connection.close()


def test_a_line_many_pieces_in_is_the_one_asked_for(conn: sqlite3.Connection) -> None:
    assert len("\n".join(LINES[:4000]).encode()) > 20 * LINES_PIECE
    lines = load_lines(conn, 1, 4000)
    assert len(lines) == 4000
    assert lines[3999] == LINES[3999]
    assert lines == load_text(conn, 1).split("\n")[:4000]


def test_a_short_document_gives_the_lines_it_has(conn: sqlite3.Connection) -> None:
    assert load_lines(conn, 1, 10_000) == LINES


def test_lines_near_the_start_come_within_a_small_bound(conn: sqlite3.Connection) -> None:
    lines = load_lines(conn, 1, 3, max_bytes=500)
    assert lines == LINES[:3]


def test_the_bytes_bound_holds_for_a_line_far_in(conn: sqlite3.Connection) -> None:
    lines = load_lines(conn, 1, 5000, max_bytes=1000)
    assert len("\n".join(lines).encode()) <= 1000
    assert lines[:5] == LINES[:5]
    assert len(lines) < 30


def test_a_missing_text_gives_no_lines(conn: sqlite3.Connection) -> None:
    assert load_lines(conn, 2, 5) == []
