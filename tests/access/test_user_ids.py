"""A Telegram user id is taken only as a whole number from 1 to 2**52 - 1, however it is
written: the one check every door (commands, the admins' page, its sign-in) asks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.access import MAX_USER_ID, user_id_of


class TestUserIdOf:
    @given(st.integers(min_value=1, max_value=MAX_USER_ID))
    def test_every_id_in_range_is_taken_as_a_number_or_as_its_digits(self, n: int) -> None:
        assert user_id_of(n) == n
        assert user_id_of(str(n)) == n
        assert user_id_of(f" {n} ") == n

    @given(st.integers().filter(lambda n: not 1 <= n <= MAX_USER_ID))
    def test_no_number_out_of_range_is_taken(self, n: int) -> None:
        assert user_id_of(n) is None
        assert user_id_of(str(n)) is None

    @given(st.text())
    def test_any_text_is_an_id_in_range_or_none(self, text: str) -> None:
        found = user_id_of(text)
        assert found is None or (1 <= found <= MAX_USER_ID and int(text) == found)

    @pytest.mark.parametrize(
        "value", [True, 1.0, None, [1], "１２", "٣", "+5", "1_000", "0x10", "", "2" * 5000]
    )
    def test_what_only_looks_like_a_number_is_not_taken(self, value: object) -> None:
        assert user_id_of(value) is None
