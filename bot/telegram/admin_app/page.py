"""The page itself: one HTML file and its script, shipped inside the package and served as
they are. The page holds no data; it asks the API with the `initData` Telegram gave it."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' https://telegram.org; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'"
)
"""Only the page's own script and Telegram's; no inline script, no requests elsewhere."""


@dataclass(frozen=True, slots=True)
class PageFiles:
    """The page's HTML and script, read once."""

    html: bytes
    script: bytes

    @classmethod
    def load(cls) -> PageFiles:
        folder = files("bot.telegram.admin_app").joinpath("static")
        return cls(
            folder.joinpath("admin.html").read_bytes(), folder.joinpath("admin.js").read_bytes()
        )
