"""Who opened the admins' page: any `Authorization` header that does not prove it is refused
with 401 and one quiet line, never a 500 or a traceback in the log, however it is malformed;
and a signed `initData` whose fields make no sense is refused the same way."""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.telegram.admin_app.init_data import InitDataError, Opener, init_data_of, opener
from bot.telegram.texts.admin_app import ENGLISH_APP
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN
from tests.fakes.init_data import signed_fields, signed_init_data

NOW = 1_750_000_000.0
_HEADER_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=300)
"""Any text but lone surrogates, which no encoding carries."""
_HTTP_TEXT = st.text(st.characters(exclude_categories=["Cs", "Cc"]), max_size=300)
"""What a client can send in a header's value: no control characters (line breaks)."""


def _good() -> str:
    return signed_init_data(BOT_TOKEN, user_id=ADMIN_ID, auth_date=NOW)


def _with_hash(hash_value: str) -> str:
    """The signed `initData` of an admin with its hash replaced (as text, then URL-quoted)."""
    fields = dict(field.split("=", 1) for field in _good().split("&"))
    fields.pop("hash")
    return "&".join(f"{k}={v}" for k, v in fields.items()) + "&" + urlencode({"hash": hash_value})


def _headers(text: st.SearchStrategy[str] = _HEADER_TEXT) -> st.SearchStrategy[str]:
    """Authorization headers: any `text`, `tma` and a query of arbitrary fields, or an admin's
    real `initData` with an arbitrary hash."""
    fields = st.dictionaries(
        st.sampled_from(["hash", "user", "auth_date", "query_id", "x"]) | text, text, max_size=5
    )
    return st.one_of(
        text,
        st.builds(lambda f: "tma " + urlencode(f), fields),
        st.builds(lambda f: "tma " + "&".join(f"{k}={v}" for k, v in f.items()), fields),
        st.builds(lambda h: "tma " + _with_hash(h), text),
    )


def _opened(header: str) -> Opener | InitDataError:
    try:
        return opener(BOT_TOKEN, init_data_of(header), now=NOW)
    except InitDataError as exc:
        return exc


class TestInitData:
    @settings(max_examples=300, deadline=None)
    @given(_headers())
    def test_any_header_opens_as_someone_or_is_refused_with_a_reason(self, header: str) -> None:
        opened = _opened(header)
        assert isinstance(opened, Opener | InitDataError)
        if isinstance(opened, Opener):
            assert opened.user_id == ADMIN_ID

    @pytest.mark.parametrize("hash_value", ["а" * 64, "é", "٣" * 64, "A" * 64, ""])
    def test_a_hash_not_in_telegrams_shape_is_a_bad_signature(self, hash_value: str) -> None:
        with pytest.raises(InitDataError) as refused:
            opener(BOT_TOKEN, _with_hash(hash_value), now=NOW)
        assert refused.value.problem == "signature"

    @settings(max_examples=200, deadline=None)
    @given(
        user=st.one_of(
            st.text(max_size=40),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(
                        st.sampled_from(["id", "first_name", "x"]), inner, max_size=3
                    )
                ),
                max_leaves=8,
            ).map(json.dumps),
        ),
        auth_date=st.one_of(st.text(max_size=20), st.integers().map(str), st.floats().map(str)),
    )
    def test_any_signed_fields_open_or_are_refused(self, user: str, auth_date: str) -> None:
        """Telegram signs what it sends, so only the token's holder could send these; whatever
        they say, they are taken as someone or refused, never raised as anything else."""
        data = signed_fields(BOT_TOKEN, {"user": user, "auth_date": auth_date})
        try:
            opened = opener(BOT_TOKEN, data, now=NOW)
        except InitDataError:
            return
        assert 1 <= opened.user_id < 2**52

    @pytest.mark.parametrize(
        ("user", "auth_date", "problem"),
        [
            ("[1, 2]", str(int(NOW)), "signature"),  # user not an object
            ('"Anna"', str(int(NOW)), "signature"),
            ('{"id": "Anna", "first_name": "Anna"}', str(int(NOW)), "signature"),
            ('{"id": 2002, "first_name": "Anna"}', "yesterday", "signature"),
            ('{"id": 2002, "first_name": "Anna"}', "1e400", "signature"),
            ('{"id": 0, "first_name": "Anna"}', str(int(NOW)), "no_user"),
            ('{"id": -5, "first_name": "Anna"}', str(int(NOW)), "no_user"),
            ('{"id": 18446744073709551616, "first_name": "A"}', str(int(NOW)), "no_user"),
        ],
    )
    def test_each_nonsense_field_is_named(self, user: str, auth_date: str, problem: str) -> None:
        data = signed_fields(BOT_TOKEN, {"user": user, "auth_date": auth_date})
        with pytest.raises(InitDataError) as refused:
            opener(BOT_TOKEN, data, now=NOW)
        assert refused.value.problem == problem


class TestOverHttp:
    async def test_a_malformed_header_gets_401_and_no_traceback(
        self, open_app: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        headers: list[str] = []

        @settings(max_examples=150, database=None, derandomize=True)
        @given(_headers(_HTTP_TEXT))
        def collect(header: str) -> None:
            headers.append(header)

        collect()
        non_ascii_hash = "tma " + _with_hash("а" * 64)
        async with open_app() as app:
            real = app.auth().removeprefix("tma ")
            real_with_bad_hash = "tma " + real.rsplit("hash=", 1)[0] + "hash=%D0%B0"
            for header in [non_ascii_hash, real_with_bad_hash, *headers]:
                async with app.client.get(
                    "/admin/api/me", headers={"Authorization": header}
                ) as response:
                    assert response.status == 401, header
                    assert (await response.json()) == {"error": ENGLISH_APP["error_auth"]}
        loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert loud == [], [r.getMessage() for r in loud]
        assert not [r for r in caplog.records if r.exc_info]
