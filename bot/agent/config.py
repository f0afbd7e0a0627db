"""What the agent needs from the settings, as one small immutable record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.agent.past_turns import HEADROOM
from bot.agent.prompts import DEFAULT_SYSTEM_PROMPT, choose_system_prompt, with_quote_instruction

if TYPE_CHECKING:
    from bot.settings.model import Settings


@dataclass(frozen=True)
class AgentConfig:
    """The model, its window and the loop's limits.

    `history_turns`: how many past questions are loaded from the store at most; trimming to the
    window decides how many of them are actually sent.
    `stream`: "auto" streams answers and falls back to whole replies for a server that cannot
    stream; "on" always streams; "off" never does.
    `verify_quotes`: the system prompt asks for blockquotes and every answer's quotes are
    checked against the tool results in the conversation (`Answer.quotes`).
    `fallback_cooldown_s`: how long a model that failed is passed over for the next one.
    `trim_headroom`: the share of the window's room for past turns that dropping old turns
    leaves free, so the start of the request stays the same (and cached) for several turns;
    0 drops one turn at a time and keeps as much of the past as fits.
    `vision_model`: the model a question with pictures goes to ("": `model`); `images`:
    "auto" sends pictures as images (their text read by OCR when the model refuses them),
    "off" always sends the text read from them; `image_detail`: each image part's `detail`.
    `context_budget`: the most tokens a request's prompt may use when below the window less
    the answer (CONTEXT_BUDGET_TOKENS); 0: no bound but the window.
    """

    model: str
    context_window: int
    max_output_tokens: int
    max_rounds: int
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    history_turns: int = 100
    stream: str = "auto"
    verify_quotes: bool = False
    fallback_cooldown_s: float = 60.0
    trim_headroom: float = HEADROOM
    vision_model: str = ""
    images: str = "auto"
    image_detail: str = "auto"
    context_budget: int = 0

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            msg = "max_rounds must be at least 1"
            raise ValueError(msg)
        if self.max_output_tokens < 1 or self.max_output_tokens >= self.context_window:
            msg = "max_output_tokens must be positive and smaller than context_window"
            raise ValueError(msg)
        if self.context_budget < 0:
            msg = "context_budget must be 0 (none) or positive"
            raise ValueError(msg)
        if not 0 <= self.trim_headroom < 1:
            msg = "trim_headroom must be at least 0 and below 1"
            raise ValueError(msg)

    @property
    def prompt_budget(self) -> int:
        """Tokens one request may use: the window minus what is kept for the answer, or the
        context budget when that is lower."""
        room = self.context_window - self.max_output_tokens
        return min(room, self.context_budget) if self.context_budget else room

    @property
    def bounded_window(self) -> int:
        """The window a request may fill, the answer included: the context window, or the
        context budget and the answer when that is less."""
        return self.prompt_budget + self.max_output_tokens

    @classmethod
    def from_settings(cls, settings: Settings) -> AgentConfig:
        """Build from the settings; raises `PromptError` when the prompt file is unusable."""
        prompt = choose_system_prompt(settings.system_prompt, settings.system_prompt_file)
        verify = settings.quotes == "verify"
        return cls(
            model=settings.model,
            context_window=settings.context_window,
            max_output_tokens=settings.max_output_tokens,
            max_rounds=settings.max_rounds,
            system_prompt=with_quote_instruction(prompt) if verify else prompt,
            stream=settings.stream,
            verify_quotes=verify,
            fallback_cooldown_s=settings.fallback_cooldown_s,
            vision_model=settings.vision_model,
            images=settings.images,
            image_detail=settings.image_detail,
            context_budget=settings.context_budget_tokens,
        )
