"""Whatever an admin's client sends the page's API, a malformed request gets a 400 saying what
is wrong and changes nothing: never a 500 and a traceback in the log."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.telegram.admin_app.form import MAX_FOLDER_BYTES
from bot.telegram.texts.admin_app import RUSSIAN_APP
from tests.bot.admin_app_support import App

CHANGES = ["move", "trash", "restore", "revoke", "allow", "requests"]
FIELDS = {"source": "a.md", "target": "b.md", "path": "a.md", "id": "1", "user_id": 4242}
BOUNDARY = "xx"


def _files(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


def _no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert loud == [], [r.getMessage() for r in loud]


async def _post_raw(app: App, path: str, body: bytes, content_type: str) -> tuple[int, Any]:
    headers = {"Authorization": app.auth(), "Content-Type": content_type}
    data = io.BytesIO(body)  # aiohttp warns of a large body given as bytes
    async with app.client.post(f"/admin/api/{path}", data=data, headers=headers) as response:
        return response.status, await response.json()


def _form(*parts: bytes) -> bytes:
    """A multipart body of `parts` (each its headers, a blank line, its content)."""
    body = b"".join(b"--" + BOUNDARY.encode() + b"\r\n" + part + b"\r\n" for part in parts)
    return body + b"--" + BOUNDARY.encode() + b"--\r\n"


_FORM_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
_FILE = b'Content-Disposition: form-data; name="file"; filename="note.txt"\r\n\r\nhello'
_FOLDER = b'Content-Disposition: form-data; name="folder"'


def _folder(content: bytes) -> bytes:
    return _FOLDER + b"\r\n\r\n" + content


class TestJsonBodies:
    @pytest.mark.parametrize("path", CHANGES)
    async def test_a_body_that_is_no_json_object_is_a_400(
        self, open_app: Any, path: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with open_app() as app:
            for body, content_type in [
                (b"[" * 100_000 + b"]" * 100_000, "application/json"),
                (b'{"source": "a.md"}', "application/json; charset=bogus"),
                (b"\xff\xfe{}", "application/json"),
                (b"[1]", "application/json"),
                (b'"x"', "application/json"),
                (b"null", "application/json"),
                (b"", "application/json"),
            ]:
                status, answer = await _post_raw(app, path, body, content_type)
                assert status == 400, (body[:20], content_type)
                assert answer["error"]
        _no_errors_logged(caplog)

    @pytest.mark.parametrize("path", CHANGES)
    async def test_a_field_of_the_wrong_type_is_a_400(
        self, open_app: Any, path: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with open_app() as app:
            for wrong in (None, True, 1.5, [1], {"a": 1}, ""):
                body = {**FIELDS, "action": "allow", "confirmed": True}
                for name in ("source", "path", "id", "user_id"):
                    body[name] = wrong
                status, _ = await app.post(path, body)
                assert status == 400, wrong
            assert app.harness.dp["access"].grants() == []
        _no_errors_logged(caplog)


class TestUploadForms:
    async def test_a_folder_field_too_long_is_refused_and_nothing_stored(
        self, open_app: Any, sandbox_dir: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        async with open_app() as app:
            before = _files(sandbox_dir)
            too_long = RUSSIAN_APP["error_folder_long"].format(max=MAX_FOLDER_BYTES)
            for length in (MAX_FOLDER_BYTES + 1, 2_000_000):
                form = _form(_folder(b"a" * length), _FILE)
                status, answer = await _post_raw(app, "upload", form, _FORM_TYPE)
                assert (status, answer) == (400, {"error": too_long}), length
            assert _files(sandbox_dir) == before
            _, audit = await app.get("audit")
            assert "upload" not in [e["action"] for e in audit["entries"]]
        _no_errors_logged(caplog)

    async def test_a_malformed_form_is_a_400_and_nothing_stored(
        self, open_app: Any, sandbox_dir: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        forms = {
            "garbage after the boundary": b"--xx\r\ngarbage",
            "a header without a colon": _form(b"Content-Disposition form-data\r\n\r\nx"),
            "a NUL in the file name": _form(
                b'Content-Disposition: form-data; name="file"; filename="a\x00.txt"\r\n\r\nhi'
            ),
            "a folder not in UTF-8": _form(_folder(b"\xff\xfe"), _FILE),
            "a folder in an unknown charset": _form(
                _FOLDER + b"\r\nContent-Type: text/plain; charset=bogus\r\n\r\n\xff", _FILE
            ),
            "a nested form": _form(
                b"Content-Type: multipart/mixed; boundary=yy\r\n\r\n--yy\r\n\r\nx\r\n--yy--"
            ),
            "no file": _form(_folder(b"hr")),
        }
        async with open_app() as app:
            before = _files(sandbox_dir)
            for why, body in forms.items():
                status, answer = await _post_raw(app, "upload", body, _FORM_TYPE)
                assert status == 400, why
                assert answer["error"], why
            assert _files(sandbox_dir) == before
        _no_errors_logged(caplog)
