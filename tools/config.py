"""Settings the file tools need, read from the environment and `.env`.

Kept apart from the bot's settings so `python -m tools` works without a bot token or model key;
`TerminalSettings` adds search by meaning's and the reranker's, read under the names the bot
reads them by, so the command line embeds and reranks with the bot's servers.
The rules every setting shares live here too: a value left empty means the setting's default,
and the bot's own data folder and the documents folder never hold one another.
"""

from pathlib import Path
from typing import Any, Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from tools.vectors.embeddings import EmbeddingsConfig
from tools.vectors.rerank import CANDIDATES, TIMEOUT_S, RerankConfig, configured_reranker


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
        description="Characters one read_file call returns at most (one page); the bot, when "
        "it is left empty, takes less for a model with a small context window (4000 for 8k).",
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
        """The bot's own files (history, grants, index) are never documents: the model could
        read them, and `/rm` or `/mv` of a folder holding them would move them into the
        trash. Nor are the documents inside DATA_DIR, where `backup` would copy them,
        `restore` would refuse the folder and clearing DATA_DIR would delete them. Compared
        with links resolved, so no spelling or symlink slips past."""
        data = self.data_dir.resolve()
        documents = self.sandbox_dir.resolve()
        if data == documents:
            msg = (
                "DATA_DIR must not be the documents folder (SANDBOX_DIR): the bot's history "
                "would become readable; use a separate folder such as ./data"
            )
            raise ValueError(msg)
        if data.is_relative_to(documents):
            msg = (
                f"DATA_DIR ({data}) must not be inside the documents folder (SANDBOX_DIR, "
                f"{documents}): /rm or /mv of a folder holding it would move the bot's history, "
                "admins and grants into the trash; use a folder outside it, such as ./data"
            )
            raise ValueError(msg)
        if documents.is_relative_to(data):
            msg = (
                f"the documents folder (SANDBOX_DIR, {documents}) must not be inside DATA_DIR "
                f"({data}): `backup` would copy the documents, `restore` would never find "
                "DATA_DIR empty, and clearing DATA_DIR would delete them; keep the two "
                "folders apart, such as ./sandbox and ./data"
            )
            raise ValueError(msg)
        return self


class TerminalSettings(ToolSettings):
    """What `python -m tools` reads: the documents settings, the embeddings server as the
    bot's settings name it (`EMBEDDING_MODEL`; its URL and key default to the model server's,
    `OPENAI_BASE_URL` and `OPENAI_API_KEY`), the reranker (`RERANK_URL` and the rest), and
    whether the bot keeps its embeddings in PostgreSQL (`DATABASE_URL`, only whether it is
    set). Descriptions and checks live in the bot's settings; these are only read."""

    embedding_model: str = ""
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    rerank_url: str | None = None
    rerank_model: str = ""
    rerank_api_key: SecretStr | None = None
    rerank_candidates: int = Field(default=CANDIDATES, ge=2, le=200)
    rerank_timeout_s: float = Field(default=TIMEOUT_S, gt=0, le=60)
    rerank_dialect: Literal["auto", "jina", "tei"] = "auto"
    database_url: SecretStr | None = None

    @field_validator("embedding_model", "rerank_model", mode="before")
    @classmethod
    def _strip_model(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("embedding_base_url", "openai_base_url")
    @classmethod
    def _no_trailing_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    def embeddings(self) -> EmbeddingsConfig | None:
        """Search by meaning as the bot would do it; None when EMBEDDING_MODEL is empty."""
        if not self.embedding_model:
            return None
        key = self.embedding_api_key or self.openai_api_key
        return EmbeddingsConfig(
            model=self.embedding_model,
            base_url=self.embedding_base_url or self.openai_base_url,
            api_key=key.get_secret_value() if key is not None else None,
        )

    def rerank(self) -> RerankConfig | None:
        """Reranking as the bot would do it; None when RERANK_URL is empty. No breaker: one
        command makes one search, and a failure keeps the fused order as the bot's does."""
        return configured_reranker(self)

    @property
    def embeddings_elsewhere(self) -> bool:
        """The bot keeps its embeddings cache in PostgreSQL (DATABASE_URL), out of reach here."""
        return self.database_url is not None
