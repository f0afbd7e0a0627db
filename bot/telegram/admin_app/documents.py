"""The documents and trash tabs: the documents with each one's index state, the trash, and
the changes (move, delete, restore, upload) the page makes to them.

As `/rm`, `/mv`, `/trash` and an upload in the admin's private chat would, each goes through
the same jail and services as the commands (`bot.documents`, the upload's saving), within the
admin's scope, and each change is written to the audit log.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from aiohttp import BodyPartReader, MultipartReader, web

from bot.documents.manager import DocumentError
from bot.telegram.admin_app.desk import AdminDesk, Caller, bad, json_body, plain, refusal
from bot.telegram.admin_app.form import (
    MAX_FOLDER_BYTES,
    FormError,
    file_chunks,
    folder_field,
    next_part,
)
from bot.telegram.texts import texts_for
from bot.telegram.uploads import UploadError, safe_file_name, save_stream, upload_problem
from tools.jail.scope import Scope

log = logging.getLogger(__name__)


class DocumentsApi:
    """The documents' and the trash's routes; each public method is one route's handler."""

    def __init__(self, desk: AdminDesk) -> None:
        self._desk = desk

    async def documents(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        states = await _in_thread(self._desk.toolbox.document_states, caller.scope)
        return web.json_response(
            {
                "documents": [
                    {"path": s.path, "size": s.size, "state": s.state, "error": s.error}
                    for s in states
                ]
            }
        )

    async def trash(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        items = await self._desk.documents.trashed(caller.scope)
        return web.json_response(
            {
                "items": [
                    {"id": i.item_id, "path": i.path, "deleted_at": i.deleted_at, "dir": i.is_dir}
                    for i in items
                ]
            }
        )

    async def move(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "source", "target")
        try:
            moved = await self._desk.documents.move(body["source"], body["target"], caller.scope)
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        person = caller.person
        await self._desk.audit.record(
            "move",
            moved.source,
            detail=moved.target,
            actor_id=person.user_id,
            actor_name=person.name,
        )
        return web.json_response({"source": moved.source, "target": moved.target})

    async def delete(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "path", confirmed=True)
        person = caller.person
        try:
            item = await self._desk.documents.delete(
                body["path"], by=person.user_id, scope=caller.scope
            )
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        await self._desk.audit.record(
            "delete", item.path, actor_id=person.user_id, actor_name=person.name
        )
        return web.json_response({"path": item.path, "id": item.item_id})

    async def restore(self, request: web.Request) -> web.Response:
        caller = await self._desk.caller(request)
        body = await json_body(request, caller, "id")
        try:
            item = await self._desk.documents.restore(body["id"], caller.scope)
        except DocumentError as exc:
            raise self._problem(caller, exc) from None
        if item is None:
            raise refusal(web.HTTPNotFound, texts_for(caller.lang).restore_gone)
        person = caller.person
        await self._desk.audit.record(
            "restore", item.path, actor_id=person.user_id, actor_name=person.name
        )
        return web.json_response({"path": item.path})

    async def upload(self, request: web.Request) -> web.Response:
        """A multipart form: `folder` (optional, first, at most `MAX_FOLDER_BYTES`) and
        `file`; saved as a sent document is, within the admin's scope."""
        caller = await self._desk.caller(request)
        try:
            reader = await request.multipart()
        except (AssertionError, ValueError):  # aiohttp asserts on a body that is not multipart
            raise bad(caller, "multipart/form-data") from None
        try:
            saved = await self._saved_from(caller, reader)
        except FormError as exc:
            raise _form_problem(caller, exc) from None
        person = caller.person
        await self._desk.audit.record(
            "upload", saved["path"], actor_id=person.user_id, actor_name=person.name
        )
        return web.json_response(saved)

    async def _saved_from(self, caller: Caller, reader: MultipartReader) -> dict[str, Any]:
        """The form's folder, then its file saved there."""
        folder: str | None = None
        while (part := await next_part(reader)) is not None:
            if part.name == "folder":
                folder = await folder_field(part)
            elif part.name == "file":
                return await self._save(caller, part, folder)
        raise bad(caller, "file")

    async def _save(
        self, caller: Caller, part: BodyPartReader, folder: str | None
    ) -> dict[str, Any]:
        texts = texts_for(caller.lang)
        max_mb = self._desk.max_upload_mb
        try:
            saved = await save_stream(
                file_chunks(part),
                part.filename,
                folder,
                self._desk.toolbox,
                max_mb,
                scope=caller.scope,
            )
        except UploadError as exc:
            log.warning("admin app: upload of %r refused: %s", part.filename, exc)
            name = safe_file_name(part.filename, None)
            text = upload_problem(texts, exc, max_mb, folder, scope=caller.scope, name=name)
            raise refusal(web.HTTPBadRequest, plain(text)) from None
        return {"path": saved.path, "chars": saved.chars, "error": saved.error}

    def _problem(self, caller: Caller, exc: DocumentError) -> web.HTTPException:
        texts = texts_for(caller.lang)
        if exc.problem == "exists" and exc.path:
            text = texts.restore_conflict.format(path=exc.path)
        else:
            text = texts.path_problem(exc.problem, exc.path)
        return refusal(web.HTTPConflict, plain(text))


def _form_problem(caller: Caller, exc: FormError) -> web.HTTPException:
    if exc.problem == "folder_long":
        text = caller.words["error_folder_long"].format(max=MAX_FOLDER_BYTES)
        return refusal(web.HTTPBadRequest, text)
    return bad(caller, "folder" if exc.problem == "folder_text" else "multipart/form-data")


async def _in_thread(function: Callable[[Scope | None], Any], scope: Scope | None) -> Any:
    try:
        return await asyncio.to_thread(function, scope)
    except sqlite3.Error:
        log.exception("admin app: the index could not be read")
        raise refusal(web.HTTPServiceUnavailable, "index unavailable") from None
