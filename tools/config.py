"""Settings the file tools need, read from the environment and `.env`.

Kept apart from the bot's settings so `python -m tools` works without a bot token or model key.
"""

from pathlib import Path
from typing import Self

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ToolSettings(BaseSettings):
    """Where the documents are and how much of them one tool call may return."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        case_sensitive=False,
    )

    sandbox_dir: Path = Field(
        default=Path("./sandbox"),
        description="The documents folder the bot answers from.",
    )
    data_dir: Path = Field(
        default=Path("./data"),
        description="Where the bot keeps its own data: history, search index.",
    )
    read_page_chars: int = Field(
        default=12_000,
        ge=1_000,
        le=200_000,
        description="Characters one read_file call returns at most (one page).",
    )
    max_file_mb: float = Field(
        default=50.0,
        gt=0,
        le=2_048,
        description="Documents larger than this (in MB) are not read or indexed.",
    )

    @model_validator(mode="after")
    def _data_apart_from_documents(self) -> Self:
        """The bot's own files (history, index) must never be documents the model can read."""
        if self.data_dir.resolve() == self.sandbox_dir.resolve():
            msg = (
                "DATA_DIR must not be the documents folder (SANDBOX_DIR): the bot's history "
                "would become readable; use a separate folder such as ./data"
            )
            raise ValueError(msg)
        return self
