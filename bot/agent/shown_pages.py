"""Pages of documents shown to a model that takes pictures, when read_file is asked to.

A tool message carries text only (Chat Completions), so a page drawn by read_file goes to the
model as a user message of its own right after the round's tool results: a line naming the
page, then the picture as an `image_url` part. The history keeps that line alone, never the
picture. A question shows at most `PAGE_PICTURES` pages, and its pages take at most half the
prompt budget (`PAGE_SHARE`): a picture cannot be cut like a tool result.
"""

from __future__ import annotations

from typing import Any, Literal

from bot.agent.pictures import Picture
from bot.agent.vision import image_question
from tools.results import PagePicture

Message = dict[str, Any]

PAGE_PICTURES = 4
"""The most pages one question shows as pictures: each costs up to ~1,100 prompt tokens in
every later request of the question."""
PAGE_SHARE = 0.5
"""The share of the prompt budget a question's page pictures may take together."""


def page_message(page: PagePicture, detail: str) -> Message:
    """The message that shows the model a page read_file drew."""
    picture = Picture(page.data, page.mime, page.width, page.height)
    return image_question(
        f"{_named(page.path, page.page)}, as read_file showed it.", [picture], detail
    )


NoteReason = Literal["kept", "refused", "no_room"]
_NOTES: dict[NoteReason, str] = {
    "kept": "was shown here; it is not kept",
    "refused": "could not be shown: the model takes no pictures",
    "no_room": "could not be shown: the context window has no room for it",
}


def page_note(path: str, page: int, reason: NoteReason = "kept") -> Message:
    """What stands in for the picture: in the history ("kept"), or in the question when the
    model turned out to take no pictures or the window has no room for it."""
    return {"role": "user", "content": f"[{_named(path, page)} {_NOTES[reason]}.]"}


def _named(path: str, page: int) -> str:
    return f"The page picture of {path}, page {page}"
