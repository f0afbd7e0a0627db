"""Pictures as questions: a photo or an image file, alone or in an album, reaches the model.

The real Dispatcher and Agent run against the fake Bot API (which serves the pictures' bytes)
and the fake model server, whose recorded requests show what left the machine: each image part
is decoded here and compared with what `prepare_picture` makes of the picture sent.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
from dataclasses import dataclass
from typing import Any

from aiogram.types import Update
from PIL import Image, ImageDraw

from bot.agent.pictures import prepare_picture
from bot.agent.vision import DESCRIBE_REQUEST
from bot.telegram.texts.numbers import integer
from bot.telegram.tuning import Tuning
from tests.fakes.accounts import ADMIN_ID
from tests.fakes.fake_llm import FakeLLM
from tests.fakes.harness import Harness
from tests.fakes.updates import mention_entity

GROUP_ID = -100_555
CAPTION = "Что это за ошибка и что делать?"
_GPS_IFD = 0x8825
_ORIENTATION = 0x0112


@dataclass(frozen=True)
class Sent:
    """One image part of a request, decoded."""

    mime: str
    data: bytes
    detail: str | None


def _jpeg(width: int = 640, height: int = 480, *, gps: bool = False, shade: int = 0) -> bytes:
    """A photograph-like JPEG (a gradient, so it stays a JPEG), with GPS tags if asked."""
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    if shade:
        image = Image.eval(image, lambda v: (v + shade) % 256)
    exif = Image.Exif()
    exif[_ORIENTATION] = 1
    if gps:
        exif[_GPS_IFD] = {1: "N", 2: (55.0, 45.0, 21.0), 3: "E", 4: (37.0, 37.0, 4.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def _png(width: int = 300, height: int = 200) -> bytes:
    image = Image.new("RGB", (width, height), (250, 250, 250))
    image.paste((20, 20, 20), (10, 10, 200, 40))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _prepared_sha(harness: Harness, raw: bytes) -> str:
    return _sha(prepare_picture(raw, max_side=harness.settings.image_max_side).data)


def _serve(harness: Harness, file_id: str, data: bytes) -> None:
    harness.session.add_file(f"documents/{file_id}", data)


def _question(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts of the request's last user message (a plain text is one text part)."""
    user = [m for m in request["messages"] if m["role"] == "user"][-1]
    content = user["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _text(request: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in _question(request) if p["type"] == "text")


def _images(request: dict[str, Any]) -> list[Sent]:
    sent = []
    for part in _question(request):
        if part["type"] != "image_url":
            continue
        header, encoded = part["image_url"]["url"].split(",", 1)
        assert header.startswith("data:") and header.endswith(";base64"), header
        mime = header.removeprefix("data:").removesuffix(";base64")
        sent.append(Sent(mime, base64.b64decode(encoded), part["image_url"].get("detail")))
    return sent


def _questions(harness: Harness) -> list[dict[str, Any]]:
    """The requests that asked the question (not the one that describes the pictures for the
    history, sent after the answer)."""
    return [r for r in harness.llm.requests if DESCRIBE_REQUEST[:20] not in _text(r)]


def _sent(harness: Harness) -> list[str]:
    return [str(m.text) for m in harness.session.called("sendMessage")]


async def _feed_together(harness: Harness, updates: list[Update]) -> None:
    """Feed an album's updates as the dispatcher would: one task each, in arrival order."""
    await asyncio.wait_for(asyncio.gather(*(harness.feed(u) for u in updates)), 20)


def _album_tuning() -> Tuning:
    return Tuning(edit_interval_s=0.0, progress_settle_s=0.5, album_window_s=0.5)


class TestVisionServer:
    async def test_a_vision_model_on_its_own_server_sees_the_picture_and_text_goes_to_the_main(
        self, make_dispatcher: Any
    ) -> None:
        async with (
            FakeLLM() as seeing,
            make_dispatcher(
                vision_model="qwen2.5-vl",
                vision_base_url=seeing.base_url,
                vision_api_key="vision-secret-key-42",
            ) as harness,
        ):
            raw = _jpeg()
            _serve(harness, "photo1", raw)
            seeing.reply_text("На фото насос.")
            seeing.reply_text("Насос на стене.")
            harness.llm.reply_text("Здравствуйте.")

            await harness.feed(harness.updates.photo(caption=CAPTION))
            await harness.feed(harness.updates.message("привет"))

            asked = [r for r in seeing.requests if DESCRIBE_REQUEST[:20] not in _text(r)]
            [request] = asked
            assert request["model"] == "qwen2.5-vl"
            [image] = _images(request)
            assert _sha(image.data) == _prepared_sha(harness, raw)
            assert {"Bearer vision-secret-key-42"} == {
                h.get("Authorization") for h in seeing.request_headers
            }
            assert [r["model"] for r in harness.llm.requests] == [harness.settings.model]
            assert not _images(harness.llm.requests[0])


class TestPhoto:
    async def test_a_captioned_photo_reaches_the_model_as_an_image_with_the_tools(
        self, harness: Harness
    ) -> None:
        raw = _jpeg()
        _serve(harness, "photo1", raw)
        harness.llm.reply_text("Это ошибка доступа.")

        await harness.feed(harness.updates.photo(caption=CAPTION))

        [request] = _questions(harness)
        [image] = _images(request)
        assert image.mime == "image/jpeg"
        assert _sha(image.data) == _prepared_sha(harness, raw)
        assert CAPTION in _text(request)
        names = {tool["function"]["name"] for tool in request["tools"]}
        assert {"search_files", "read_file"} <= names
        seen = harness.llm.images[0]  # as the server decoded it
        assert seen.request == 0
        assert (seen.sha256, seen.mime, seen.detail) == (_sha(image.data), "image/jpeg", "auto")
        assert CAPTION in seen.text
        assert "search_files" in seen.tools
        assert harness.session.sent_texts()[-1] == "Это ошибка доступа."
        assert [f.file_id for f in harness.session.called("getFile")] == ["photo1"]

    async def test_a_photo_without_a_caption_asks_what_it_shows(self, harness: Harness) -> None:
        _serve(harness, "photo1", _jpeg())
        harness.llm.reply_text("На фото — этикетка насоса.")

        await harness.feed(harness.updates.photo())

        [request] = _questions(harness)
        assert len(_images(request)) == 1
        assert "Что на этой картинке" in _text(request)

    async def test_gps_tags_never_leave_the_machine(self, harness: Harness) -> None:
        raw = _jpeg(gps=True)
        assert Image.open(io.BytesIO(raw)).getexif().get_ifd(_GPS_IFD), "the photo has GPS"
        _serve(harness, "photo1", raw)
        harness.llm.reply_text("Ответ.")

        await harness.feed(harness.updates.photo(caption=CAPTION))

        [image] = _images(_questions(harness)[0])
        assert not harness.llm.images[0].exif
        sent = Image.open(io.BytesIO(image.data))
        assert not sent.getexif().get_ifd(_GPS_IFD)
        assert b"Exif" not in image.data
        assert b"GPS" not in image.data

    async def test_the_largest_size_within_the_cap_is_fetched(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(image_max_mb=1) as harness:
            _serve(harness, "photo1-thumb", _jpeg(90, 67))
            harness.llm.reply_text("Ответ.")

            await harness.feed(harness.updates.photo(file_size=3 * 1024 * 1024))

            assert [f.file_id for f in harness.session.called("getFile")] == ["photo1-thumb"]
            assert len(_images(_questions(harness)[0])) == 1


class TestImageFiles:
    async def test_a_users_image_file_is_a_question(self, harness: Harness) -> None:
        raw = _png()
        _serve(harness, "shot", raw)
        harness.llm.reply_text("Это окно входа.")

        await harness.feed(
            harness.updates.document(
                "screen.png", file_id="shot", file_size=len(raw), mime_type="image/png"
            )
        )

        [request] = _questions(harness)
        [image] = _images(request)
        assert image.mime == "image/png"
        assert _sha(image.data) == _prepared_sha(harness, raw)
        assert not any("только администраторы" in text for text in _sent(harness))

    async def test_an_image_named_so_without_a_type_is_a_picture(self, harness: Harness) -> None:
        _serve(harness, "shot", _jpeg())
        harness.llm.reply_text("Ответ.")

        await harness.feed(
            harness.updates.document("IMG_0001.JPG", file_id="shot", caption=CAPTION)
        )

        assert len(_images(_questions(harness)[0])) == 1

    async def test_an_admins_image_file_is_still_an_upload(self, harness: Harness) -> None:
        raw = _png()
        _serve(harness, "scan", raw)

        await harness.feed(
            harness.updates.document(
                "схема.png", file_id="scan", mime_type="image/png", user_id=ADMIN_ID
            )
        )

        assert (harness.settings.sandbox_dir / "схема.png").read_bytes() == raw
        assert not harness.llm.requests

    async def test_an_admins_captioned_image_file_is_an_upload_too(self, harness: Harness) -> None:
        _serve(harness, "scan", _png())

        await harness.feed(
            harness.updates.document(
                "схема.png",
                file_id="scan",
                mime_type="image/png",
                caption="что на схеме?",
                user_id=ADMIN_ID,
            )
        )

        assert (harness.settings.sandbox_dir / "схема.png").exists()
        assert not harness.llm.requests

    async def test_an_admins_photo_is_a_question(self, harness: Harness) -> None:
        _serve(harness, "photo1", _jpeg())
        harness.llm.reply_text("Ответ.")

        await harness.feed(harness.updates.photo(caption=CAPTION, user_id=ADMIN_ID))

        assert len(_images(_questions(harness)[0])) == 1
        assert not list(harness.settings.sandbox_dir.rglob("photo*"))


class TestAlbums:
    async def test_an_album_is_one_question_with_every_picture(self, make_dispatcher: Any) -> None:
        raws = [_jpeg(shade=40 * index) for index in range(3)]
        async with make_dispatcher(tuning=_album_tuning()) as harness:
            for index, raw in enumerate(raws):
                _serve(harness, f"p{index}", raw)
            harness.llm.reply_text("Три фото одного щита.")
            updates = [
                harness.updates.photo(
                    file_id=f"p{index}",
                    caption=CAPTION if index == 1 else None,
                    media_group_id="album1",
                )
                for index in range(3)
            ]

            await _feed_together(harness, updates)

            [request] = _questions(harness)
            images = _images(request)
            assert [_sha(i.data) for i in images] == [_prepared_sha(harness, r) for r in raws]
            assert CAPTION in _text(request)
            assert harness.session.sent_texts()[-1] == "Три фото одного щита."

    async def test_pictures_past_the_cap_are_left_out_and_said(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(tuning=_album_tuning(), images_per_question=2) as harness:
            for index in range(3):
                _serve(harness, f"p{index}", _jpeg(shade=30 * index))
            harness.llm.reply_text("Ответ.")
            updates = [
                harness.updates.photo(file_id=f"p{index}", media_group_id="album2")
                for index in range(3)
            ]

            await _feed_together(harness, updates)

            [request] = _questions(harness)
            assert len(_images(request)) == 2
            assert any("Я смотрю только первые 2" in text for text in _sent(harness))

    async def test_in_a_group_the_caption_anywhere_in_the_album_addresses_the_bot(
        self, make_dispatcher: Any
    ) -> None:
        caption = f"@docs_test_bot {CAPTION}"
        async with make_dispatcher(tuning=_album_tuning()) as harness:
            for index in range(2):
                _serve(harness, f"g{index}", _jpeg(shade=50 * index))
            harness.llm.reply_text("Ответ.")
            group = {"chat_id": GROUP_ID, "chat_type": "supergroup", "media_group_id": "g"}
            updates = [
                harness.updates.photo(file_id="g0", **group),
                harness.updates.photo(
                    file_id="g1",
                    caption=caption,
                    caption_entities=[mention_entity(caption, "@docs_test_bot")],
                    **group,
                ),
            ]

            await _feed_together(harness, updates)

            [request] = _questions(harness)
            assert len(_images(request)) == 2
            text = _text(request)
            assert CAPTION in text
            assert "@docs_test_bot" not in text

    async def test_a_group_album_not_for_the_bot_is_left_alone(self, make_dispatcher: Any) -> None:
        async with make_dispatcher(tuning=_album_tuning()) as harness:
            group = {"chat_id": GROUP_ID, "chat_type": "supergroup", "media_group_id": "g2"}
            updates = [
                harness.updates.photo(
                    file_id=f"q{index}", caption=CAPTION if index else None, **group
                )
                for index in range(2)
            ]

            await _feed_together(harness, updates)

            assert not harness.llm.requests
            assert not harness.session.called("getFile")
            assert not harness.session.called("sendMessage")


class TestRefusals:
    async def test_a_photo_over_the_cap_is_refused_before_any_download(
        self, make_dispatcher: Any
    ) -> None:
        big = 3 * 1024 * 1024
        async with make_dispatcher(image_max_mb=1) as harness:
            await harness.feed(harness.updates.photo(file_size=big, thumbnail_size=big))

            assert "Картинка слишком большая" in _sent(harness)[-1]
            assert "до 1 МБ" in _sent(harness)[-1]
            assert not harness.session.called("getFile")
            assert not harness.llm.requests

    async def test_a_file_bigger_than_announced_is_stopped_and_told(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(image_max_mb=1) as harness:
            _serve(harness, "big", b"\xff\xd8" + b"x" * (2 * 1024 * 1024))
            await harness.feed(
                harness.updates.document(
                    "big.jpg", file_id="big", file_size=None, mime_type="image/jpeg"
                )
            )

            assert "Картинка слишком большая" in _sent(harness)[-1]
            assert harness.session.streamed["documents/big"] < 2 * 1024 * 1024
            assert not harness.llm.requests

    async def test_a_picture_that_is_not_one_is_told_in_english_too(
        self, harness: Harness
    ) -> None:
        _serve(harness, "photo1", b"this is not a picture at all")
        await harness.feed(harness.updates.photo(caption=CAPTION, language_code="en"))

        assert "I could not open this picture" in _sent(harness)[-1]
        assert not harness.llm.requests

    async def test_one_bad_picture_of_an_album_stops_the_question(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(tuning=_album_tuning()) as harness:
            _serve(harness, "a0", _jpeg())
            _serve(harness, "a1", b"broken")
            updates = [
                harness.updates.photo(file_id=f"a{index}", media_group_id="bad")
                for index in range(2)
            ]

            await _feed_together(harness, updates)

            assert _sent(harness)[-1].startswith("Картинка 2: ")
            assert not harness.llm.requests

    async def test_a_download_failure_is_told(self, harness: Harness) -> None:
        harness.session.add_file_error("documents/photo1", OSError(104, "reset"))
        await harness.feed(harness.updates.photo(caption=CAPTION))

        assert "Не удалось скачать картинку" in _sent(harness)[-1]
        assert not harness.llm.requests


def _page_with_text() -> bytes:
    """A screenshot-like picture whose words OCR can read."""
    image = Image.new("RGB", (900, 200), "white")
    ImageDraw.Draw(image).text((20, 60), "ERROR 403 ACCESS DENIED", fill="black", font_size=56)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


_OCR_NOTE = "Модель не смогла посмотреть картинку"
_REFUSED = {
    "error": {
        "message": "This model does not support image inputs.",
        "type": "invalid_request_error",
    }
}


class TestReadAsText:
    async def test_a_model_refusing_images_gets_their_text_and_the_user_is_told_once(
        self, harness: Harness
    ) -> None:
        _serve(harness, "photo1", _page_with_text())
        harness.llm.reply_error(400, _REFUSED)
        harness.llm.reply_text("Нет доступа: попросите права у администратора.")

        await harness.feed(harness.updates.photo(caption=CAPTION))

        refused, asked = _questions(harness)
        assert _images(refused)
        assert not _images(asked)
        assert CAPTION in _text(asked)
        assert "ACCESS" in _text(asked).upper(), "the text OCR read goes in its place"
        final = harness.session.sent_texts()[-1]
        assert final.startswith("Нет доступа")
        assert final.count(_OCR_NOTE) == 1

    async def test_with_images_off_an_album_is_read_as_text_with_one_note(
        self, make_dispatcher: Any
    ) -> None:
        async with make_dispatcher(tuning=_album_tuning(), images="off") as harness:
            for index in range(2):
                _serve(harness, f"t{index}", _page_with_text())
            harness.llm.reply_text("Ответ.")
            updates = [
                harness.updates.photo(file_id=f"t{index}", media_group_id="ocr")
                for index in range(2)
            ]

            await _feed_together(harness, updates)

            [request] = _questions(harness)
            assert not _images(request)
            assert harness.session.sent_texts()[-1].count(_OCR_NOTE) == 1


class TestUsage:
    async def test_usage_shows_what_the_pictures_took(self, harness: Harness) -> None:
        _serve(harness, "photo1", _jpeg())
        harness.llm.reply_text("Ответ.")
        await harness.feed(harness.updates.photo(caption=CAPTION))
        budgets = harness.dp.workflow_data["budgets"]
        [used] = [s for s in await budgets.store.sums(0) if s.kind == "answer"]
        assert used.tokens.images > 0

        await harness.feed(harness.updates.command("/usage"))

        shown = "из них на картинки: " + integer("ru", used.tokens.images)
        assert shown in _sent(harness)[-1]


class TestHelp:
    async def test_help_says_pictures_are_understood(self, harness: Harness) -> None:
        await harness.feed(harness.updates.command("/help"))
        assert "Можно прислать и фото" in _sent(harness)[-1]
