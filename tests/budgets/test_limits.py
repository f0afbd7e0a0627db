"""LIMITS_FILE read at start: who has which budget, and every problem named with its line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.settings.budgets import LimitsFileError, load_limits, parse_limits
from bot.settings.budgets.limits import cost
from bot.settings.budgets.periods import name, resets, started
from bot.storage.usage import Tokens

FILE = """
timezone = "Europe/Moscow"
limit_admins = false

[defaults]
user_day = 50_000
chat_month = 1_000_000

[users.42]
day = 100
month = 0

[chats."-1001"]
day = 7

[prices."gpt-4.1-mini"]
input = 0.4
output = 1.6
"""


class TestBudgets:
    def test_own_entries_replace_the_defaults_and_zero_is_none(self) -> None:
        limits = parse_limits(FILE)
        assert limits.user_budget(42, "day", is_admin=False) == 100
        assert limits.user_budget(42, "month", is_admin=False) is None
        assert limits.user_budget(7, "day", is_admin=False) == 50_000
        assert limits.user_budget(7, "month", is_admin=False) is None
        assert limits.chat_budget(-1001, "day", user_id=7, is_admin=False) == 7
        assert limits.chat_budget(-5, "month", user_id=7, is_admin=False) == 1_000_000

    def test_admins_are_held_only_when_limited_or_listed_in_users(self) -> None:
        limits = parse_limits(FILE)
        assert limits.user_budget(7, "day", is_admin=True) is None
        assert limits.chat_budget(-5, "month", user_id=7, is_admin=True) is None
        assert limits.chat_budget(-1001, "day", user_id=7, is_admin=True) is None
        assert limits.user_budget(42, "day", is_admin=True) == 100
        assert limits.chat_budget(-1001, "day", user_id=42, is_admin=True) == 7
        assert limits.chat_budget(-5, "month", user_id=42, is_admin=True) == 1_000_000
        everyone = parse_limits(FILE.replace("limit_admins = false", "limit_admins = true"))
        assert everyone.user_budget(7, "day", is_admin=True) == 50_000
        assert everyone.chat_budget(-1001, "day", user_id=7, is_admin=True) == 7

    def test_no_file_limits_nobody(self) -> None:
        limits = load_limits(None)
        assert not limits.configured
        assert limits.user_budget(7, "day", is_admin=False) is None

    def test_cached_tokens_cost_the_input_price_when_none_is_given(self) -> None:
        limits = parse_limits(FILE)
        spent = Tokens(prompt=1_000_000, cached=500_000, completion=1_000_000)
        assert cost(limits, "gpt-4.1-mini", spent) == pytest.approx(0.2 + 0.2 + 1.6)
        assert cost(limits, "unpriced", spent) is None


class TestProblems:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ('timezone = "Mars/Base"\n', "line 1: timezone: 'Mars/Base' is not a time zone"),
            ("\n[defaults]\nuser_day = -5\n", "line 3: defaults.user_day: Input should be"),
            ("[users.42]\nday = 1\nweek = 3\n", "line 3: users.42.week: is not a setting"),
            ("[users.bob]\nday = 1\n", "line 1: users.bob: a key here is a numeric Telegram id"),
            ('[prices."gpt-4.1"]\ninput = 1\n', "line 1: prices.gpt-4.1.output: Field required"),
            ("[defaults]\nuser_day = 'many'\n", "line 2: defaults.user_day: Input should be"),
            ("x = [", "not valid TOML"),
        ],
    )
    def test_each_problem_names_its_line(self, text: str, expected: str) -> None:
        with pytest.raises(LimitsFileError) as caught:
            parse_limits(text)
        assert str(caught.value).startswith(expected)

    def test_a_missing_file_is_named(self, tmp_path: Path) -> None:
        with pytest.raises(LimitsFileError, match="limits.toml does not exist"):
            load_limits(tmp_path / "limits.toml")


class TestPeriods:
    def test_days_and_months_begin_and_end_in_the_files_time_zone(self) -> None:
        zone = ZoneInfo("Europe/Moscow")
        now = datetime(2026, 12, 31, 22, 30, tzinfo=UTC).timestamp()  # 01:30 on 1 January there
        assert datetime.fromtimestamp(started(now, "day", zone), zone).isoformat() == (
            "2027-01-01T00:00:00+03:00"
        )
        assert datetime.fromtimestamp(resets(now, "month", zone), zone).isoformat() == (
            "2027-02-01T00:00:00+03:00"
        )
        assert name(now, "month", zone) == "2027-01"

    def test_a_day_that_changes_the_clocks_still_ends_at_midnight(self) -> None:
        zone = ZoneInfo("Europe/Berlin")
        now = datetime(2026, 10, 25, 12, 0, tzinfo=zone).timestamp()
        end = datetime.fromtimestamp(resets(now, "day", zone), zone)
        assert (end.day, end.hour, end.minute) == (26, 0, 0)
