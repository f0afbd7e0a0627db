"""The bot's settings: every environment variable, validated and documented in one place."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    Field,
    PrivateAttr,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import NoDecode

from bot.settings.budgets.limits import Limits, LimitsFileError, load_limits
from bot.settings.env_file import EnvFiles, env_file_paths
from bot.settings.fallbacks import FallbackModel, parse_keys, parse_models
from bot.settings.scopes.rules import ScopeRules, ScopesFileError, load_rules
from tools.config import EMPTY_IS_A_VALUE, ToolSettings

_TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]{20,}$")
# Values written to be replaced: the tokens Telegram's documentation shows, the webhook URL
# of .env.example, and the usual stand-ins for a secret ("sk-...", "<your key>", "changeme").
_EXAMPLE_TOKENS = frozenset(
    {"123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"}
)
_EXAMPLE_WEBHOOK_URLS = frozenset({"https://bot.example.com/telegram"})
_STAND_IN = re.compile(
    r"\.\.\.|…|^<.*>$|^\[.*\]$|^sk-x+$|(?:^|[^a-z0-9])your[-_ ]|change[-_ ]?me|paste[-_ ]",
    re.IGNORECASE,
)
_WEBHOOK_PORTS = frozenset({443, 80, 88, 8443})  # the ports Telegram sends webhooks to

IdList = Annotated[frozenset[int], NoDecode]

MAX_USER_ID = 2**52 - 1
"""The largest Telegram user id: "at most 52 significant bits" (Bot API, `User.id`). A user id
is positive, and a larger number would not fit a double nor the databases' 64-bit columns."""

_CHAT_TOPIC = re.compile(r"(-\d+)(?:/(\d+))?")
"""A group's id is negative; a topic's id follows it after a slash."""


@dataclass(frozen=True, slots=True)
class ChatTopic:
    """A chat, and the forum topic in it (None: the chat's general thread)."""

    chat_id: int
    thread_id: int | None = None


def parse_chat_topic(text: str) -> ChatTopic | None:
    """`-100123456` or `-100123456/7` as a `ChatTopic`; None for anything else."""
    match = _CHAT_TOPIC.fullmatch(text.strip())
    if match is None:
        return None
    topic = match.group(2)
    return ChatTopic(int(match.group(1)), None if topic is None else int(topic))


def _parse_ids(value: object) -> object:
    """Accept `1,2,3`, `1 2 3` and JSON `[1,2,3]`; leave anything else to pydantic."""
    if isinstance(value, int):
        return frozenset({value})
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return frozenset()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            msg = f"not valid JSON ({exc.msg}); use 1,2,3 or [1,2,3]"
            raise ValueError(msg) from exc
    parts = [p for p in re.split(r"[,\s;]+", text) if p]
    bad = [p for p in parts if not re.fullmatch(r"-?\d+", p)]
    if bad:
        msg = f"{', '.join(bad)} is not a numeric Telegram user id; use 1,2,3 or [1,2,3]"
        raise ValueError(msg)
    return frozenset(int(p) for p in parts)


MIN_CONTEXT_BUDGET = 1_024
"""The least CONTEXT_BUDGET_TOKENS: the system prompt, the tools and a question need about
this much before any document is read."""


def page_for_window(context_window: int, max_output_tokens: int, largest: int) -> int:
    """The read_file page for a window: two characters for every three tokens of the room left
    for the prompt, in whole thousands, at least 1,000 and at most `largest` (4,000 for an 8k
    window that keeps 2,048 for the answer; 12,000 from about a 20k window up)."""
    room = context_window - max_output_tokens
    return max(1_000, min(largest, room * 2 // 3 // 1_000 * 1_000))


class Settings(ToolSettings):
    """Everything `python -m bot` reads from the environment or `.env`.

    The documents settings (SANDBOX_DIR, DATA_DIR, READ_PAGE_CHARS, MAX_FILE_MB) come from
    `ToolSettings`, which `python -m tools` reads on its own without a token or key.
    """

    bot_token: SecretStr | None = Field(
        default=None, description="Telegram bot token from @BotFather (secret)."
    )
    telegram_api_base: str | None = Field(
        default=None,
        description="Base URL of a self-hosted Bot API server; empty means Telegram's own.",
    )
    telegram_api_local: bool = Field(
        default=False,
        description="The self-hosted Bot API server runs with --local: documents up to "
        "2000 MB are read from its disk.",
    )
    openai_api_key: SecretStr | None = Field(
        default=None,
        description="Key for the model server (secret); any string for local servers.",
    )
    openai_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint (OpenRouter, Ollama, vLLM, LM Studio); "
        "empty means OpenAI's.",
    )
    model: str = Field(default="gpt-4.1-mini", min_length=1, description="Model name.")
    context_window: int = Field(
        default=128_000,
        ge=2_048,
        description="Tokens the model accepts per request (prompt and answer together).",
    )
    max_output_tokens: int = Field(
        default=2_048, ge=64, description="Tokens reserved for the model's answer."
    )
    context_budget_tokens: int = Field(
        default=0,
        ge=0,
        description="Most tokens one request's prompt may use, below the window less the "
        "answer: the main bound on what a long conversation costs (older turns are "
        "shortened, then left out, to stay under it); 0: the window less the answer.",
    )
    max_rounds: int = Field(
        default=6, ge=1, le=50, description="Model calls with tools allowed per question."
    )
    request_timeout: float = Field(
        default=60.0, gt=0, le=600, description="Seconds to wait for one model reply."
    )
    model_max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a model call on 429, 5xx or timeout."
    )
    fallback_models: str = Field(
        default="",
        description="Models asked, in order, when the main one is down (unreachable, timing "
        "out, 5xx, 429 after retries): model-b,model-c@https://other.example/v1 (a model "
        "without @ is on the main server); empty: no fallback.",
    )
    fallback_api_keys: SecretStr | None = Field(
        default=None,
        description="Keys of the fallback models as model-c=sk-...,model-d=sk-... (secret); a "
        "model on the main server without one uses OPENAI_API_KEY, one on its own server gets "
        "none (the main key never leaves the main server).",
    )
    fallback_cooldown_s: float = Field(
        default=60.0,
        ge=1,
        le=3_600,
        description="Seconds a model that failed is passed over before it is tried again.",
    )
    stream: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="Show answers as the model writes them: auto falls back to whole answers "
        "for a model server that cannot stream, on always streams, off never does.",
    )
    quotes: Literal["verify", "off"] = Field(
        default="verify",
        description="verify: the model backs key facts with verbatim quotes, each checked "
        "against the documents read and marked when not found, and an answer for which no "
        "document was read says so; off: no quote instruction, no checks, no marks.",
    )
    vision_model: str = Field(
        default="",
        description="Model a question with pictures goes to (it must take images: GPT-4o/4.1, "
        "Gemini, Claude through a gateway, Qwen2.5-VL or llava on vLLM, Ollama or llama.cpp); "
        "empty: the main model. The fallback models follow it too.",
    )
    vision_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible endpoint of the vision model when it runs on another "
        "server than the main model (e.g. a local vLLM with Qwen2.5-VL); empty: "
        "OPENAI_BASE_URL.",
    )
    vision_api_key: SecretStr | None = Field(
        default=None,
        description="Key for VISION_BASE_URL's server (secret); empty: OPENAI_API_KEY.",
    )
    images: Literal["auto", "off"] = Field(
        default="auto",
        description="auto: pictures go to the vision model as images, as the text OCR reads "
        "from them when the model refuses images; off: always as that text.",
    )
    image_detail: Literal["auto", "low", "high"] = Field(
        default="auto",
        description="How closely the model looks at a picture (OpenAI's detail): low costs "
        "85 tokens a picture, high and auto up to 765 for a photo.",
    )
    image_max_side: int = Field(
        default=2048,
        ge=256,
        le=8192,
        description="Pictures are scaled down to fit this many pixels on their longer side "
        "(and to 768 on their shorter side, what the providers look at).",
    )
    image_max_mb: float = Field(
        default=20.0,
        gt=0,
        le=100,
        description="Largest picture taken with a question, in megabytes.",
    )
    images_per_question: int = Field(
        default=10,
        ge=1,
        le=50,
        description="Most pictures one question (an album) may carry; more are left out.",
    )
    embedding_model: str = Field(
        default="",
        description="Embeddings model for search by meaning (an OpenAI-compatible /embeddings "
        "endpoint); empty: search by words only.",
    )
    embedding_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible server for embeddings; empty means the model server's "
        "(OPENAI_BASE_URL).",
    )
    embedding_api_key: SecretStr | None = Field(
        default=None,
        description="Key for the embeddings server (secret); empty means OPENAI_API_KEY.",
    )
    rerank_url: str | None = Field(
        default=None,
        description="A reranker's endpoint, the whole URL (http://gpu:8080/rerank for TEI, "
        "http://gpu:8000/v1/rerank for vLLM, llama.cpp, Infinity, Jina, Cohere): the "
        "best results of a search (as many as RERANK_CANDIDATES) are reordered by it; empty: "
        "no reranking.",
    )
    rerank_model: str = Field(
        default="",
        description="The reranker model to name in requests (Jina, Cohere and vLLM want one; "
        "TEI and llama.cpp serve one model and need none).",
    )
    rerank_api_key: SecretStr | None = Field(
        default=None,
        description="Key for the reranker (secret); empty: none is sent.",
    )
    rerank_candidates: int = Field(
        default=30,
        ge=2,
        le=200,
        description="How many of a search's best results (keyword and meaning fused) the "
        "reranker reorders.",
    )
    rerank_timeout_s: float = Field(
        default=2.0,
        gt=0,
        le=60,
        description="Seconds a search waits for the reranker; later, or on any error, the "
        "search keeps its own order.",
    )
    rerank_dialect: Literal["auto", "jina", "tei"] = Field(
        default="auto",
        description="What the reranker is sent: jina ({query, documents, top_n}), tei "
        "({query, texts}), or auto (a path ending /v1/rerank or /v2/rerank is jina; another "
        "is tried as tei, then as jina if it refuses that).",
    )
    transcribe_model: Annotated[str, EMPTY_IS_A_VALUE] = Field(
        default="whisper-1",
        description="Speech-to-text model for voice messages, audio files and video notes; "
        "empty turns voice questions off.",
    )
    transcribe_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible server for transcriptions (/audio/transcriptions); "
        "empty means the model server's (OPENAI_BASE_URL).",
    )
    transcribe_api_key: SecretStr | None = Field(
        default=None,
        description="Key for the transcription server (secret); empty means OPENAI_API_KEY.",
    )
    max_voice_seconds: int = Field(
        default=300,
        ge=1,
        description="Longest voice message, audio file or video note transcribed, in seconds.",
    )
    system_prompt: str | None = Field(
        default=None, description="Replaces the built-in system prompt with this text."
    )
    system_prompt_file: Path | None = Field(
        default=None, description="Replaces the built-in system prompt with this file's text."
    )
    allowed_user_ids: IdList = Field(
        default=frozenset(), description="Telegram user ids that may use the bot."
    )
    admin_ids: IdList = Field(
        default=frozenset(),
        description="User ids that may add documents and run admin commands (also users).",
    )
    allowed_chat_ids: IdList = Field(
        default=frozenset(),
        description="Group chat ids where the bot may answer; empty means any group an "
        "allowed user writes in.",
    )
    allow_all: bool = Field(default=False, description="Let anyone use the bot (explicit opt-in).")
    rate_limit_per_hour: int = Field(
        default=20, ge=0, description="Questions one user may ask per hour; 0 turns it off."
    )
    show_progress: bool = Field(
        default=True, description="Edit a status message while the bot searches and reads."
    )
    max_upload_mb: float = Field(
        default=20.0,
        gt=0,
        description="Largest document admins may send (Telegram's own Bot API allows 20 MB).",
    )
    scopes_file: Path | None = Field(
        default=None,
        description="TOML file giving chats and users the folders they may see "
        '(`default = ["common"]`, `-100123 = ["sales"]`, `42 = ["*"]`); empty means '
        "everyone sees every document.",
    )
    _scope_rules: ScopeRules = PrivateAttr(default_factory=ScopeRules)
    limits_file: Path | None = Field(
        default=None,
        description="TOML file of token budgets per user and chat, per day and month "
        "(`[defaults] user_day = 50000`, `[users.42] month = 1000000`) and model prices per "
        'million tokens (`[prices."gpt-4o-mini"] input = 0.15`); empty means no budgets '
        "and reports in tokens only.",
    )
    _limits: Limits = PrivateAttr(default_factory=Limits)
    sources_file: Path | None = Field(
        default=None,
        description="TOML file of sources mirrored into folders of the documents folder "
        '(WebDAV, S3, an IMAP mailbox, any rclone remote: `[[source]] name = "nextcloud"`, '
        '`kind = "webdav"`, `every = "15m"`); empty means none.',
    )
    source_max_delete_percent: float = Field(
        default=20.0,
        ge=0,
        le=100,
        description="A source's pass that would delete more than this % of its folder's files "
        "deletes none and asks the admins to confirm.",
    )
    _env_file_notes: tuple[str, ...] = PrivateAttr(default=())
    _env_files: tuple[Path, ...] | None = PrivateAttr(default=None)
    trash_days: int = Field(
        default=30,
        ge=1,
        description="Days a document deleted with /rm stays in the hidden trash, restorable "
        "with /trash, before it is deleted for good.",
    )
    history_days: int | None = Field(
        default=None,
        ge=1,
        description="Days conversations are kept; older questions and answers are deleted. "
        "Empty keeps them.",
    )
    gaps_digest: Literal["weekly", "daily", "off"] = Field(
        default="weekly",
        description="How often each admin gets the questions the documents could not answer "
        "(Mondays or every day, 09:00 UTC); off sends none (/gaps still shows them).",
    )
    notify_debounce_s: float = Field(
        default=300.0,
        ge=0,
        description="Seconds a subscribed folder must be quiet before its change notice goes "
        "out (/subscribe); a folder that keeps changing is told at most six times this late.",
    )
    experts_chat_id: str | None = Field(
        default=None,
        description="The group of experts an unanswered or disliked answer's question can be "
        "sent to (`-100123456`, or `-100123456/7` for its forum topic 7); empty turns "
        '"Ask an expert" off.',
    )
    experts_folder: str = Field(
        default="FAQ",
        min_length=1,
        description="Folder of the documents folder that experts' answers are saved into as "
        "Markdown files.",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="postgresql://user:password@host:port/database holding the state several "
        "workers share; empty keeps it in SQLite files in the data folder (secret).",
    )
    webhook_url: str | None = Field(
        default=None, description="Public HTTPS URL for webhook mode; empty means long polling."
    )
    webhook_listen: str = Field(
        default="0.0.0.0:8080", description="host:port the webhook server listens on."
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="Secret token Telegram sends with each webhook call (secret)."
    )
    workers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Webhook mode: worker processes sharing WEBHOOK_LISTEN; more than 1 needs "
        "DATABASE_URL. Long polling is always one process.",
    )
    update_lease_s: float = Field(
        default=60.0,
        ge=1.0,
        le=3_600.0,
        description="Seconds a worker's claim on a webhook update lasts unless renewed; an "
        "update whose worker died is answered by another after this.",
    )
    metrics_listen: str | None = Field(
        default=None,
        description="host:port serving /healthz and /metrics in polling mode; empty means "
        "off (webhook mode serves them on WEBHOOK_LISTEN).",
    )
    admin_app_url: str | None = Field(
        default=None,
        description="Public HTTPS URL of the admins' Mini App (documents, users, scopes, audit "
        "log), served under its path by the webhook server or METRICS_LISTEN's; empty means "
        "off.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Logging level."
    )
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="Log lines as text, or json: one object per line with time, level, "
        "logger, message and the conversation and question where known.",
    )

    @field_validator("allowed_user_ids", "admin_ids", "allowed_chat_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        return _parse_ids(value)

    @field_validator("allowed_user_ids", "admin_ids")
    @classmethod
    def _user_ids_in_range(cls, value: frozenset[int]) -> frozenset[int]:
        """A person's id is 1..MAX_USER_ID, the range `/allow` and `/deny` take: a group's
        negative id or a mistyped number would otherwise let nobody in, silently."""
        bad = sorted(n for n in value if not 1 <= n <= MAX_USER_ID)
        if bad:
            shown = ", ".join(str(n) for n in bad)
            hint = "; a group's id goes in ALLOWED_CHAT_IDS" if bad[0] < 0 else ""
            msg = f"{shown} is not a Telegram user id (one from 1 to {MAX_USER_ID}{hint})"
            raise ValueError(msg)
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("transcribe_model", "embedding_model", "rerank_model", mode="before")
    @classmethod
    def _strip_model(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("stream", "quotes", "gaps_digest", mode="before")
    @classmethod
    def _lower_stream(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("fallback_models")
    @classmethod
    def _fallbacks_readable(cls, value: str) -> str:
        parse_models(value)
        return value.strip()

    @model_validator(mode="after")
    def _fallbacks_named_once(self) -> Settings:
        """The chain's names are what /status and the metrics tell its models apart by, and
        each key must find its model: both are checked once here, at start."""
        names = tuple(model.name for model in parse_models(self.fallback_models))
        if self.model in names:
            msg = (
                f"FALLBACK_MODELS: {self.model} is the main model (MODEL); each model of "
                "the chain needs its own name"
            )
            raise ValueError(msg)
        if self.fallback_api_keys is not None:
            try:
                parse_keys(self.fallback_api_keys.get_secret_value(), names)
            except ValueError as exc:
                raise ValueError(f"FALLBACK_API_KEYS: {exc}") from None
        return self

    @model_validator(mode="after")
    def _rerank_needs_url(self) -> Settings:
        """A reranker's model or key without its URL reranks nothing: said at start rather
        than found missing in the results."""
        named = [
            name
            for name, value in (
                ("RERANK_MODEL", self.rerank_model),
                ("RERANK_API_KEY", self.rerank_api_key),
            )
            if value
        ]
        if named and self.rerank_url is None:
            msg = (
                f"{' and '.join(named)} set but RERANK_URL is empty: set RERANK_URL to the "
                "reranker's endpoint (such as http://gpu:8080/rerank), or leave both empty"
            )
            raise ValueError(msg)
        return self

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        token = value.get_secret_value().strip()
        if token in _EXAMPLE_TOKENS or _STAND_IN.search(token):
            msg = "is still the example value; put your bot's own token from @BotFather here"
            raise ValueError(msg)
        if not _TOKEN_SHAPE.match(token):
            msg = "does not look like a bot token (digits, a colon, then letters); copy it again"
            raise ValueError(msg)
        return value

    @field_validator(
        "openai_api_key",
        "transcribe_api_key",
        "embedding_api_key",
        "rerank_api_key",
        "fallback_api_keys",
    )
    @classmethod
    def _real_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and _STAND_IN.search(value.get_secret_value().strip()):
            msg = (
                "is still the example value; put your model server's key here "
                "(any string for a local server such as Ollama)"
            )
            raise ValueError(msg)
        return value

    @field_validator(
        "telegram_api_base",
        "openai_base_url",
        "transcribe_base_url",
        "embedding_base_url",
        "rerank_url",
        "webhook_url",
        "admin_app_url",
    )
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s/]+", value):
            msg = "must be an http:// or https:// URL"
            raise ValueError(msg)
        return value.rstrip("/") if value else value

    @field_validator("webhook_url")
    @classmethod
    def _telegram_accepts_webhook(cls, value: str | None, info: ValidationInfo) -> str | None:
        """Telegram posts webhooks only over HTTPS and only to ports 443, 80, 88 and 8443; a
        local Bot API server (TELEGRAM_API_LOCAL) allows plain HTTP and any port."""
        if value is None:
            return None
        if value in _EXAMPLE_WEBHOOK_URLS:
            msg = "is still the example value from .env.example; put your bot's public URL here"
            raise ValueError(msg)
        if info.data.get("telegram_api_local", False):
            return value
        parts = urlsplit(value)
        if parts.scheme != "https":
            msg = (
                "must be an https:// URL: Telegram sends webhooks only over HTTPS (plain http "
                "works only with a local Bot API server, TELEGRAM_API_LOCAL=true)"
            )
            raise ValueError(msg)
        try:
            port = parts.port or 443
        except ValueError:
            port = -1
        if port not in _WEBHOOK_PORTS:
            msg = "must use port 443, 80, 88 or 8443: Telegram sends webhooks to no other port"
            raise ValueError(msg)
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        secret = value.get_secret_value().strip()
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            msg = "may hold only letters, digits, _ and - (1 to 256 of them), as Telegram requires"
            raise ValueError(msg)
        return SecretStr(secret)

    @field_validator("experts_chat_id")
    @classmethod
    def _experts_chat_shape(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = value.strip()
        if parse_chat_topic(text) is None:
            msg = (
                "must be a group's numeric id (negative, as Telegram gives it), optionally "
                "with a forum topic after a slash: -100123456 or -100123456/7"
            )
            raise ValueError(msg)
        return text

    @field_validator("experts_folder")
    @classmethod
    def _experts_folder_shape(cls, value: str) -> str:
        folder = value.strip().strip("/")
        parts = folder.split("/")
        if not folder or value.strip().startswith("/") or any(p in {"", ".", ".."} for p in parts):
            msg = "must be a folder inside the documents folder, such as FAQ or docs/FAQ"
            raise ValueError(msg)
        return folder

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        url = value.get_secret_value().strip()
        if not re.match(r"postgres(ql)?://[^/\s]", url):
            msg = "must start with postgresql:// (for example postgresql://bot:pw@db:5432/bot)"
            raise ValueError(msg)
        return SecretStr(url)

    @field_validator("webhook_listen", "metrics_listen")
    @classmethod
    def _host_port(cls, value: str | None) -> str | None:
        if value is None:
            return None
        host, sep, port = value.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65_536:
            msg = "must be host:port, for example 0.0.0.0:8080 or [::]:8080"
            raise ValueError(msg)
        return value

    @field_validator("scopes_file")
    @classmethod
    def _scopes_usable(cls, value: Path | None) -> Path | None:
        """A SCOPES_FILE that cannot be used stops the start, named as the setting at fault."""
        try:
            load_rules(value)
        except ScopesFileError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("limits_file")
    @classmethod
    def _limits_usable(cls, value: Path | None) -> Path | None:
        """A LIMITS_FILE that cannot be used stops the start, named as the setting at fault."""
        try:
            load_limits(value)
        except LimitsFileError as exc:
            raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _limits_read(self) -> Settings:
        """The budgets are read at start and kept: a question never reads the file."""
        try:
            self._limits = load_limits(self.limits_file)
        except LimitsFileError as exc:  # changed since it was checked a moment ago
            raise ValueError(f"LIMITS_FILE: {exc}") from None
        return self

    @property
    def limits(self) -> Limits:
        """The budgets and prices LIMITS_FILE gives (none without the file)."""
        return self._limits

    @model_validator(mode="after")
    def _scopes_read(self) -> Settings:
        """The scopes are read at start and kept: a question never reads the file."""
        try:
            self._scope_rules = load_rules(self.scopes_file)
        except ScopesFileError as exc:  # changed since it was checked a moment ago
            raise ValueError(f"SCOPES_FILE: {exc}") from None
        return self

    @property
    def env_file_notes(self) -> tuple[str, ...]:
        """What the .env file holds that no setting takes (an unknown key, a line that cannot
        be parsed), one line each, as the settings loader found it."""
        return self._env_file_notes

    def note_env_file(self, notes: Sequence[str], *, files: EnvFiles = None) -> None:
        """Keep what the loader found wrong in the .env file, for `run` to warn of and
        `check` to show, and which files it read (`_env_file`, when it was given one)."""
        self._env_file_notes = tuple(notes)
        self._env_files = env_file_paths(files)

    @property
    def env_files(self) -> tuple[Path, ...]:
        """The .env files the settings were read from (they may not exist): a source's
        credentials named by variable are looked for there too, as the settings were."""
        if self._env_files is None:
            return env_file_paths(self.model_config.get("env_file"))
        return self._env_files

    @property
    def env_file_encoding(self) -> str:
        """The encoding the .env files are read in."""
        return str(self.model_config.get("env_file_encoding") or "utf-8")

    @property
    def admin_app_path(self) -> str | None:
        """The path the Mini App is served under (`/admin`), None when it is off."""
        if self.admin_app_url is None:
            return None
        return "/" + urlsplit(self.admin_app_url).path.strip("/")

    @property
    def scope_rules(self) -> ScopeRules:
        """The scopes SCOPES_FILE gives (none without the file)."""
        return self._scope_rules

    @model_validator(mode="after")
    def _admin_app_is_served(self) -> Settings:
        """Telegram opens a Mini App only over HTTPS, and the bot serves it on the webhook
        server or METRICS_LISTEN's: without either nothing would answer its URL."""
        url = self.admin_app_url
        if url is None:
            return self
        parts = urlsplit(url)
        if parts.scheme != "https" and parts.hostname not in ("127.0.0.1", "localhost"):
            msg = "ADMIN_APP_URL must be an https:// URL: Telegram opens Mini Apps over HTTPS only"
            raise ValueError(msg)
        if not parts.path.strip("/"):
            msg = (
                "ADMIN_APP_URL needs a path of its own, such as https://bot.example.com/admin: "
                "the server's other paths are the webhook's, /healthz and /metrics"
            )
            raise ValueError(msg)
        if self.webhook_url is None and self.metrics_listen is None:
            msg = (
                "ADMIN_APP_URL is served by the bot's web server: set WEBHOOK_URL (webhook "
                "mode) or METRICS_LISTEN (polling mode), and let the reverse proxy pass the "
                "app's path to it"
            )
            raise ValueError(msg)
        return self

    @model_validator(mode="after")
    def _workers_share_a_database(self) -> Settings:
        """Workers share state through PostgreSQL: SQLite files and in-process locks would
        give each its own history, order and limits."""
        if self.workers > 1 and self.webhook_url and self.database_url is None:
            msg = (
                f"WORKERS={self.workers} needs DATABASE_URL: each worker process would keep "
                "its own SQLite history and locks; set DATABASE_URL=postgresql://... or "
                "WORKERS=1"
            )
            raise ValueError(msg)
        return self

    @model_validator(mode="after")
    def _output_fits_window(self) -> Settings:
        if self.max_output_tokens * 2 > self.context_window:
            msg = (
                f"MAX_OUTPUT_TOKENS ({self.max_output_tokens}) must be at most half of "
                f"CONTEXT_WINDOW ({self.context_window})"
            )
            raise ValueError(msg)
        return self

    @model_validator(mode="after")
    def _budget_below_window(self) -> Settings:
        budget = self.context_budget_tokens
        room = self.context_window - self.max_output_tokens
        if budget and not MIN_CONTEXT_BUDGET <= budget <= room:
            msg = (
                f"CONTEXT_BUDGET_TOKENS ({budget}) must be 0 (no bound below the window) or "
                f"from {MIN_CONTEXT_BUDGET} to CONTEXT_WINDOW less MAX_OUTPUT_TOKENS ({room})"
            )
            raise ValueError(msg)
        return self

    @property
    def prompt_budget(self) -> int:
        """Tokens one request's prompt may use: CONTEXT_BUDGET_TOKENS, else the window less
        the answer."""
        room = self.context_window - self.max_output_tokens
        return min(room, self.context_budget_tokens) if self.context_budget_tokens else room

    @model_validator(mode="after")
    def _page_fits_the_window(self) -> Settings:
        """A page of READ_PAGE_CHARS left unset shrinks with a small CONTEXT_WINDOW (or a small
        CONTEXT_BUDGET_TOKENS): 12,000 characters are half of an 8k model's room by themselves,
        so each read would push the conversation out (and change the start of every request,
        which a provider's prompt cache reuses). Set explicitly, it is used as it is."""
        if "read_page_chars" not in self.model_fields_set:
            self.read_page_chars = page_for_window(
                self.prompt_budget + self.max_output_tokens,
                self.max_output_tokens,
                self.read_page_chars,
            )
        return self

    @property
    def webhook_host(self) -> str:
        """Host part of WEBHOOK_LISTEN, without the brackets of an IPv6 address."""
        return self.webhook_listen.rpartition(":")[0].removeprefix("[").removesuffix("]")

    @property
    def webhook_port(self) -> int:
        """Port part of WEBHOOK_LISTEN."""
        return int(self.webhook_listen.rpartition(":")[2])

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """METRICS_LISTEN as (host, port), without an IPv6 address's brackets; None when off."""
        if self.metrics_listen is None:
            return None
        host, _, port = self.metrics_listen.rpartition(":")
        return host.removeprefix("[").removesuffix("]"), int(port)

    @property
    def experts_chat(self) -> ChatTopic | None:
        """EXPERTS_CHAT_ID as a chat and its topic; None when "Ask an expert" is off."""
        return None if self.experts_chat_id is None else parse_chat_topic(self.experts_chat_id)

    @property
    def voice_enabled(self) -> bool:
        """Whether voice questions are transcribed (TRANSCRIBE_MODEL is set)."""
        return bool(self.transcribe_model)

    @property
    def transcribe_url(self) -> str | None:
        """The transcription server: TRANSCRIBE_BASE_URL, else the model server's URL."""
        return self.transcribe_base_url or self.openai_base_url

    @property
    def transcribe_key(self) -> SecretStr | None:
        """The transcription server's key: TRANSCRIBE_API_KEY, else OPENAI_API_KEY."""
        return self.transcribe_api_key or self.openai_api_key

    @property
    def fallbacks(self) -> tuple[FallbackModel, ...]:
        """The models after the main one, each with the server and key it is asked with."""
        models = parse_models(self.fallback_models)
        names = tuple(model.name for model in models)
        given = self.fallback_api_keys
        keys = parse_keys(given.get_secret_value(), names) if given is not None else {}
        return tuple(
            FallbackModel(
                model.name,
                model.base_url,
                keys.get(model.name) or (self.openai_api_key if model.base_url is None else None),
            )
            for model in models
        )

    @property
    def embedding_url(self) -> str | None:
        """The embeddings server: EMBEDDING_BASE_URL, else the model server's URL."""
        return self.embedding_base_url or self.openai_base_url

    @property
    def embedding_key(self) -> SecretStr | None:
        """The embeddings server's key: EMBEDDING_API_KEY, else OPENAI_API_KEY."""
        return self.embedding_api_key or self.openai_api_key

    def may_use(self, user_id: int) -> bool:
        """Whether this Telegram user may ask questions."""
        return self.allow_all or user_id in self.allowed_user_ids or user_id in self.admin_ids

    def is_admin(self, user_id: int) -> bool:
        """Whether this Telegram user may add documents and run admin commands."""
        return user_id in self.admin_ids
