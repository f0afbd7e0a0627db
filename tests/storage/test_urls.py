"""A database URL as logs and messages show it: no form of the password survives.

The forms are those libpq and asyncpg read (the user part, with `@` and `:` left unencoded or
percent-encoded; `password` and `sslpassword` in the query; libpq's `key=value` string), and
each is checked on the shown URL and on what the logs are told to hide.
"""

from __future__ import annotations

import re
import string
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.storage import database_secrets, redact_url
from bot.storage.urls import scrub

SECRET = "SECRETVALUE"
TABLE = [
    (
        "postgresql://bot:SECRETVALUE@db:5432/docs",
        "postgresql://bot:***@db:5432/docs",
    ),
    (
        "postgresql://bot@db/docs?sslmode=require&password=SECRETVALUE",
        "postgresql://bot@db/docs?sslmode=require&password=***",
    ),
    (
        "postgres://db/docs?password=SECRETVALUE&user=bot",
        "postgres://db/docs?password=***&user=bot",
    ),
    ("postgresql://db?PASSWORD=SECRETVALUE", "postgresql://db?PASSWORD=***"),
    (
        "postgresql://bot:SECRET@VALUE@db:5432/docs",
        "postgresql://bot:***@db:5432/docs",
    ),
    (
        "postgresql://bot:SECRET:VALUE@[::1]:5432/docs",
        "postgresql://bot:***@[::1]:5432/docs",
    ),
    ("postgresql://bot:SECRET%40VALUE@db/docs", "postgresql://bot:***@db/docs"),
    (
        "postgresql://bot@db/docs?sslkey=/k&sslpassword=SECRETVALUE",
        "postgresql://bot@db/docs?sslkey=/k&sslpassword=***",
    ),
    (
        "host=db user=bot password=SECRETVALUE dbname=docs",
        "host=db user=bot password=*** dbname=docs",
    ),
    (
        "host=db password = 'SECRET VALUE' dbname=docs",
        "host=db password = *** dbname=docs",
    ),
    (
        "postgresql:///docs?host=/run/postgresql&passfile=/etc/bot/pgpass",
        "postgresql:///docs?host=/run/postgresql&passfile=/etc/bot/pgpass",
    ),
    ("postgresql://bot@db/docs", "postgresql://bot@db/docs"),
    ("postgresql://db/docs?user=bot@corp", "postgresql://db/docs?user=bot@corp"),
    ("postgresql://bot:SECRET/VALUE@db/docs", "postgresql://bot:***@db/docs"),
    (
        "postgresql://db/docs?password=SECRET&VALUE&sslmode=require",
        "postgresql://db/docs?password=***&sslmode=require",
    ),
    # a port that is not a number (a placeholder left in) still ends the user part
    ("postgresql://bot:SECRETVALUE@db:PORT/docs", "postgresql://bot:***@db:PORT/docs"),
    ("postgresql://bot:SECRETVALUE@db:5432x", "postgresql://bot:***@db:5432x"),
    # asyncpg decodes the query's names too, so a percent-encoded name is still the password
    ("postgresql://bot@db/docs?pass%77ord=SECRETVALUE", "postgresql://bot@db/docs?pass%77ord=***"),
    (
        "postgresql://bot@db/docs?sslmode=require&%70assword=SECRETVALUE",
        "postgresql://bot@db/docs?sslmode=require&%70assword=***",
    ),
]


@pytest.mark.parametrize(("url", "shown"), TABLE)
def test_every_form_of_the_password_is_masked(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert "SECRET" not in redact_url(url)


@pytest.mark.parametrize("url", [url for url, _ in TABLE if SECRET[:6] in url])
def test_the_logs_are_told_the_password_as_written(url: str) -> None:
    hidden = database_secrets(url)
    assert hidden[0] == url
    assert any(value.startswith(("SECRET", "'SECRET")) for value in hidden[1:]), hidden


def test_decoded_passwords_are_hidden_too() -> None:
    assert "SECRET@VALUE" in database_secrets("postgresql://bot:SECRET%40VALUE@db/docs")
    assert "SECRET VALUE" in database_secrets("postgresql://db/docs?password=SECRET+VALUE")
    assert "SECRET 'VALUE" in database_secrets(r"host=db password='SECRET \'VALUE'")


# Passwords of any printable characters, each marked so that a fragment of it cannot hide. In
# the user part, where neither driver reads an unencoded `/` or `?`, these are hidden too, except
# a `?key=` (which reads as a query); in the query, an `&key=` starts the next field.
passwords = st.text(
    alphabet=string.ascii_letters + string.digits + string.punctuation + " ",
    min_size=0,
    max_size=20,
).map(lambda tail: f"SECRET{tail}")


@given(password=passwords.filter(lambda p: re.search(r"\?[^=/?&]*=", p) is None))
def test_a_password_in_the_user_part_never_shows(password: str) -> None:
    for written in (password, quote(password, safe="")):
        url = f"postgresql://bot:{written}@db.example:5432/docs"
        shown = redact_url(url)
        assert shown == "postgresql://bot:***@db.example:5432/docs"
        assert written in database_secrets(url)


@given(password=passwords.filter(lambda p: re.search(r"&[^&]*=", p) is None))
def test_a_password_in_the_query_never_shows(password: str) -> None:
    for written in (password, quote_plus(password)):
        url = f"postgresql://bot@db.example/docs?sslmode=require&password={written}&port=5432"
        shown = redact_url(url)
        assert "SECRET" not in shown
        assert shown == "postgresql://bot@db.example/docs?sslmode=require&password=***&port=5432"
        assert password in database_secrets(url)


class TestScrub:
    @pytest.mark.parametrize(
        ("url", "said", "shown"),
        [
            (
                "postgresql://bot:SECRET/VALUE@h/db",
                "invalid literal for int() with base 10: 'SECRET'",
                "invalid literal for int() with base 10: '***'",
            ),
            (
                "postgresql://bot@h/db?password=s3cr3t%21",
                "password authentication failed for s3cr3t!",
                "password authentication failed for ***",
            ),
            ("postgresql://bot@h/db", "no password here", "no password here"),
        ],
    )
    def test_a_drivers_words_lose_every_password(self, url: str, said: str, shown: str) -> None:
        assert scrub(said, url) == shown
