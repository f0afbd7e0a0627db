"""Pages of documents shown to a model that takes pictures, when read_file is asked to.

A tool message carries text only (Chat Completions), so a page drawn by read_file goes to the
model as a user message of its own right after the round's tool results: a line naming the
page, then the picture as an `image_url` part. The history keeps that line alone, never the
picture; a question shows at most `PAGE_PICTURES` pages.
"""

from __future__ import annotations

from typing import Any

from bot.agent.pictures import Picture
from bot.agent.vision import data_url
from tools.results import PagePicture

Message = dict[str, Any]

PAGE_PICTURES = 4
"""The most pages one question shows as pictures: each costs up to ~1,100 prompt tokens in
every later request of the question."""


def page_message(page: PagePicture, detail: str) -> Message:
    """The message that shows the model a page read_file drew."""
    picture = Picture(page.data, page.mime, page.width, page.height)
    image = {"url": data_url(picture), "detail": detail}
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": f"{_named(page.path, page.page)}, as read_file showed it."},
            {"type": "image_url", "image_url": image},
        ],
    }


def page_note(path: str, page: int, *, shown: bool = True) -> Message:
    """What stands in for the picture: in the history (`shown`), or in the question when the
    model turned out to take no pictures."""
    what = "was shown here; it is not kept" if shown else "could not be shown: no pictures"
    return {"role": "user", "content": f"[{_named(path, page)} {what}.]"}


def _named(path: str, page: int) -> str:
    return f"The page picture of {path}, page {page}"
