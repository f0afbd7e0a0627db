"""Settings the file tools need, read from the environment and `.env`.

Kept apart from the bot's settings so `python -m tools` works without a bot token or model key.
A rule every setting shares lives here too: a value left empty means the setting's default.
"""

from pathlib import Path
from typing import Any, Self

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class EmptyIsAValue:
    """Marks a setting whose empty value means something of its own, named in its description
    (`TRANSCRIBE_MODEL=` turns voice questions off), instead of its default."""


EMPTY_IS_A_VALUE = EmptyIsAValue()
"""`Annotated[str, EMPTY_IS_A_VALUE]`: the setting keeps an empty value."""


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

    @model_validator(mode="before")
    @classmethod
    def _empty_means_default(cls, data: Any) -> Any:
        """`HISTORY_DAYS=` in .env (as .env.example ships it) reads as if the line were not
        there: every setting left empty takes its default, unless it is marked
        `EMPTY_IS_A_VALUE`."""
        if not isinstance(data, dict):
            return data
        return {
            key: value
            for key, value in data.items()
            if not (isinstance(value, str) and not value.strip()) or cls._keeps_empty(key)
        }

    @classmethod
    def _keeps_empty(cls, key: object) -> bool:
        field = cls.model_fields.get(str(key))
        return field is not None and EMPTY_IS_A_VALUE in field.metadata

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
