"""What a failed rclone run means, read from its exit code and stderr, worded by us.

rclone's stderr is never shown: it can name the remote's URL (with the user in it) or quote a
server's reply, and the remote's secrets sit in rclone.conf beside it. Only the class of the
failure is taken from it, by words rclone and the services behind it use; the line the admin
reads is one of ours.
"""

from __future__ import annotations

import re

from bot.documents.sources.remote import Problem

_MISSING_EXIT = frozenset({3, 4})
"""rclone's exit codes for "directory not found" and "file not found"."""

_SIGNS: tuple[tuple[Problem, tuple[str, ...]], ...] = (
    (
        "auth",
        (
            "unable to authenticate",
            "authentication failed",
            "authentication required",
            "unauthorized",
            "unauthenticated",
            "401",
            "invalid_grant",
            "invalid_client",
            "token expired",
            "couldn't fetch token",
            "failed to get token",
            "login failed",
            "logon failure",
            "invalid credentials",
            "incorrect password",
            "wrong password",
            "invalidaccesskeyid",
            "signaturedoesnotmatch",
        ),
    ),
    ("timeout", ("i/o timeout", "timeout", "timed out", "deadline exceeded")),
    (
        "unreachable",
        (
            "connection refused",
            "no such host",
            "network is unreachable",
            "no route to host",
            "connection reset",
            "couldn't connect",
            "handshake failed",
            "eof",
        ),
    ),
    (
        "missing",
        (
            "directory not found",
            "object not found",
            "file not found",
            "not found",
            "no such bucket",
            "didn't find section in config file",
        ),
    ),
    ("refused", ("403", "forbidden", "permission denied", "access denied", "quota")),
)

_SAYS: dict[Problem, str] = {
    "auth": "the remote refused the credentials in rclone.conf",
    "timeout": "the remote did not answer in time",
    "unreachable": "the remote cannot be reached",
    "missing": "the folder, or the remote in rclone.conf, is not there",
    "refused": "the remote refused access (permissions or quota)",
    "broken": "rclone failed",
}


def problem_of(exit_code: int, stderr: str) -> Problem:
    """Why rclone failed: by the first class whose words its stderr holds, else its exit.
    A status code counts as a number of its own: `401` is not the start of port 40123."""
    text = stderr.lower()
    numbers = set(re.findall(r"\d+", text))
    for problem, signs in _SIGNS:
        if any(sign in numbers if sign.isdigit() else sign in text for sign in signs):
            return problem
    if exit_code in _MISSING_EXIT:
        return "missing"
    return "broken"


def worded(problem: Problem, action: str, exit_code: int | None) -> str:
    """One line for the admin: `rclone could not list 'gdrive:Docs': … (rclone exit 1)`."""
    ended = f" (rclone exit {exit_code})" if exit_code is not None and exit_code > 0 else ""
    return f"rclone could not {action}: {_SAYS[problem]}{ended}"
