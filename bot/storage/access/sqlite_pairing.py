"""The pairing statements of `SqliteAccessStore`: a new code replaces every earlier one, a
code works once, and wrong codes count towards a lockout. Each runs in one transaction, so a
code made by `python -m bot pair` while the bot runs is seen by the bot at the next attempt,
and two attempts can never both use one code.
"""

from __future__ import annotations

import sqlite3

from bot.storage.access import LOCKOUT_S, MAX_FAILURES, PairingOutcome, Person, codes
from bot.storage.access import sqlite_grants as grants
from bot.storage.sqlite_thread import transaction


def issue(db: sqlite3.Connection, now: float) -> str:
    """Make a new code (replacing every earlier one) and return it; only its hash is kept."""
    code = codes.new_code()
    raw = codes.normalize(code)
    assert raw is not None
    with transaction(db):
        db.execute("DELETE FROM pairing_codes")
        db.execute(
            "INSERT INTO pairing_codes (code_hash, expires_at) VALUES (?, ?)",
            (codes.code_hash(raw), now + codes.LIFETIME_S),
        )
    return code


def redeem(db: sqlite3.Connection, person: Person, raw_code: str, now: float) -> PairingOutcome:
    """Try `raw_code` (normalized) for `person`; the right live code makes them an admin."""
    candidate = codes.code_hash(raw_code)
    with transaction(db):
        locked_until = _locked_until(db, person.user_id)
        if locked_until > now:
            return PairingOutcome("locked", retry_after_s=locked_until - now)
        expires_at = None
        for stored, expires in db.execute("SELECT code_hash, expires_at FROM pairing_codes"):
            if codes.same_hash(candidate, stored):
                expires_at = float(expires)
        if expires_at is None:
            return _failed(db, person.user_id, now)
        db.execute("DELETE FROM pairing_codes")
        if expires_at <= now:
            return PairingOutcome("expired")
        db.execute("DELETE FROM pairing_failures WHERE user_id = ?", (person.user_id,))
        return PairingOutcome("paired", grant=grants.make_admin(db, person, now))


def _locked_until(db: sqlite3.Connection, user_id: int) -> float:
    row = db.execute(
        "SELECT locked_until FROM pairing_failures WHERE user_id = ?", (user_id,)
    ).fetchone()
    return 0.0 if row is None else float(row[0])


def _failed(db: sqlite3.Connection, user_id: int, now: float) -> PairingOutcome:
    """Count a wrong code; the `MAX_FAILURES`th within the window starts the lockout."""
    row = db.execute(
        "SELECT failures, first_at FROM pairing_failures WHERE user_id = ?", (user_id,)
    ).fetchone()
    failures, first_at = (0, now) if row is None or now - row[1] >= LOCKOUT_S else row
    failures += 1
    if failures >= MAX_FAILURES:
        db.execute(
            "INSERT OR REPLACE INTO pairing_failures VALUES (?, 0, ?, ?)",
            (user_id, now, now + LOCKOUT_S),
        )
        return PairingOutcome("locked", retry_after_s=LOCKOUT_S)
    db.execute(
        "INSERT OR REPLACE INTO pairing_failures VALUES (?, ?, ?, 0)",
        (user_id, failures, first_at),
    )
    return PairingOutcome("wrong", attempts_left=MAX_FAILURES - failures)
