"""FALLBACK_MODELS, FALLBACK_API_KEYS and FALLBACK_COOLDOWN_S as the admin writes them: what
each model is asked with, and every mistake named without the key in it."""

from __future__ import annotations

import pytest

from bot.entrance.loading import SettingsError, load_settings
from bot.settings.fallbacks import FallbackModel

MAIN_KEY = "sk-main-secret-0001"
OWN_KEY = "sk-own-secret-0002"


def problems(monkeypatch: pytest.MonkeyPatch, **env: str) -> list[str]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    return caught.value.problems


class TestTheChain:
    def test_empty_means_no_fallback(self) -> None:
        settings = load_settings()
        assert settings.fallbacks == ()
        assert settings.fallback_cooldown_s == 60

    def test_each_model_with_its_server_and_key(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", MAIN_KEY)
        monkeypatch.setenv(
            "FALLBACK_MODELS",
            " model-b , claude-3@20240620@https://other.example/v1/ ,llama3@http://10.0.0.2:11434/v1",
        )
        monkeypatch.setenv("FALLBACK_API_KEYS", f"claude-3@20240620={OWN_KEY}")
        chain = load_settings().fallbacks
        assert [(m.name, m.base_url) for m in chain] == [
            ("model-b", None),
            ("claude-3@20240620", "https://other.example/v1"),
            ("llama3", "http://10.0.0.2:11434/v1"),
        ]
        keys = [m.api_key.get_secret_value() if m.api_key else None for m in chain]
        assert keys == [MAIN_KEY, OWN_KEY, None], "the main key stays on the main server"

    def test_a_name_with_an_at_but_no_url_is_a_name(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FALLBACK_MODELS", "@cf/meta/llama-3-8b-instruct")
        assert load_settings().fallbacks == (FallbackModel("@cf/meta/llama-3-8b-instruct"),)


class TestMistakes:
    @pytest.mark.parametrize(
        ("value", "says"),
        [
            ("model-b,,model-c", "entry 2 is empty"),
            ("model b", "holds a space"),
            ("model-b@http:/broken", "after @ must come a server's URL"),
            ("model-b,model-b@http://127.0.0.1:1/v1", "model-b named twice"),
            ("gpt-4.1-mini", "is the main model (MODEL)"),
        ],
    )
    def test_the_models(self, monkeypatch: pytest.MonkeyPatch, value: str, says: str) -> None:
        found = problems(monkeypatch, FALLBACK_MODELS=value)
        assert len(found) == 1
        assert found[0].startswith("FALLBACK_MODELS:")
        assert says in found[0]

    @pytest.mark.parametrize(
        ("value", "says"),
        [
            (f"model-x={OWN_KEY}", "gives a key for 'model-x', which FALLBACK_MODELS does not"),
            (OWN_KEY, "entry 1 is not model=key"),
            (f"model-b={OWN_KEY},model-b={OWN_KEY}x", "gives 'model-b' two keys"),
            ("model-b=sk-...", "is still the example value"),
        ],
    )
    def test_the_keys_are_named_never_shown(
        self, monkeypatch: pytest.MonkeyPatch, value: str, says: str
    ) -> None:
        found = problems(monkeypatch, FALLBACK_MODELS="model-b", FALLBACK_API_KEYS=value)
        assert len(found) == 1
        assert found[0].startswith("FALLBACK_API_KEYS:")
        assert says in found[0]
        assert OWN_KEY not in found[0]

    def test_the_cool_down_has_bounds(self, monkeypatch: pytest.MonkeyPatch) -> None:
        found = problems(monkeypatch, FALLBACK_COOLDOWN_S="0")
        assert found[0].startswith("FALLBACK_COOLDOWN_S:")
