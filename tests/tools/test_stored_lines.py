"""Passages' lines read from the index's stored texts, inflating no more than they need."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.index.store import _SCHEMA, LINES_PIECE, compress, first_lines, load_text
from tools.sqlite import connect

LINES = [f"Строка {n}: запись журнала о поставке бумаги и тонера." for n in range(1, 6001)]
SHORT = ["Приказ о премии.", "Подписан директором."]


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = connect(tmp_path / "index.sqlite3")
    for statement in _SCHEMA:
        connection.execute(statement)
    for rowid, (path, lines) in enumerate((("журнал.txt", LINES), ("приказ.txt", SHORT)), 1):
        connection.execute(
            "INSERT INTO files(id, path, size, mtime_ns, chars) VALUES (?, ?, 1, 1, 1)",
            (rowid, path),
        )
        connection.execute(
            "INSERT INTO texts(id, body) VALUES (?, ?)", (rowid, compress("\n".join(lines)))
        )
    connection.execute(
        "INSERT INTO files(id, path, size, mtime_ns, chars, error) "
        "VALUES (3, 'скан.pdf', 1, 1, 0, 'no text')"
    )
    yield connection
    connection.close()


def test_a_line_many_pieces_in_is_the_one_asked_for(conn: sqlite3.Connection) -> None:
    assert len("\n".join(LINES[:4000]).encode()) > 20 * LINES_PIECE
    lines = first_lines(conn, {"журнал.txt": 4000})["журнал.txt"]
    assert len(lines) == 4000
    assert lines[3999] == LINES[3999]
    assert lines == load_text(conn, 1).split("\n")[:4000]


def test_several_files_at_once_each_as_far_as_asked(conn: sqlite3.Connection) -> None:
    found = first_lines(conn, {"журнал.txt": 3, "приказ.txt": 10_000})
    assert found == {"журнал.txt": LINES[:3], "приказ.txt": SHORT}


def test_a_short_document_gives_the_lines_it_has(conn: sqlite3.Connection) -> None:
    assert first_lines(conn, {"журнал.txt": 10_000})["журнал.txt"] == LINES


def test_lines_near_the_start_come_within_a_small_bound(conn: sqlite3.Connection) -> None:
    assert first_lines(conn, {"журнал.txt": 3}, max_bytes=500)["журнал.txt"] == LINES[:3]


def test_the_bytes_bound_holds_for_a_line_far_in(conn: sqlite3.Connection) -> None:
    lines = first_lines(conn, {"журнал.txt": 5000}, max_bytes=1000)["журнал.txt"]
    assert len("\n".join(lines).encode()) <= 1000
    assert lines[:5] == LINES[:5]
    assert len(lines) < 30


def test_a_file_without_text_or_unknown_is_left_out(conn: sqlite3.Connection) -> None:
    assert first_lines(conn, {"скан.pdf": 5, "нет.txt": 5}) == {}
    assert first_lines(conn, {}) == {}
