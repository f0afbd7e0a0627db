"""Who may use the bot, as admins read it in `/users` and `/status`.

People from the environment and people granted access in Telegram are listed apart, because
only the second can be changed from Telegram. A granted line says who, with which role, by whom
and when; the list has a line budget so the message stays within one Telegram message.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.access import AccessPolicy, Grant
from bot.telegram.texts import Texts
from bot.telegram.texts.people import when, who

MAX_LINES = 50


def _code(user_id: int) -> str:
    return f"<code>{user_id}</code>"


def grant_line(texts: Texts, grant: Grant) -> str:
    """`• 123 Ann (@ann) — user, let in by Boss, 2025-06-15 14:06 UTC`."""
    person = grant.person
    name = who(person.name, person.username, person.user_id) if person.name else ""
    role = texts.role_admin if grant.role == "admin" else texts.role_user
    if grant.granted_by is None:
        how = texts.grant_paired.format(role=role, when=when(grant.granted_at))
    else:
        by = grant.granted_by
        how = texts.grant_by.format(
            role=role, admin=who(by.name, None, by.user_id), when=when(grant.granted_at)
        )
    head = f"• {_code(person.user_id)} {name}" if name else f"• {_code(person.user_id)}"
    return f"{head} — {how}"


def granted_lines(texts: Texts, grants: Sequence[Grant], limit: int = MAX_LINES) -> list[str]:
    """One line per grant, newest last; what does not fit is counted."""
    lines = [grant_line(texts, grant) for grant in grants[-limit:]]
    if len(grants) > limit:
        lines.insert(0, texts.users_more.format(n=texts.number(len(grants) - limit)))
    return lines


def users_listing(texts: Texts, access: AccessPolicy) -> str:
    """`/users`: the environment's lists, then the grants made in Telegram."""
    lines = [texts.users_title]
    if access.allow_all:
        lines.append(texts.users_allow_all)
    env = [(uid, texts.role_admin) for uid in sorted(access.env_admins)]
    env += [
        (uid, texts.role_user) for uid in sorted(access.env_users) if uid not in access.env_admins
    ]
    if env:
        lines += ["", texts.users_from_env]
        lines += [f"• {_code(uid)} — {role}" for uid, role in env[:MAX_LINES]]
        if len(env) > MAX_LINES:
            lines.append(texts.users_more.format(n=texts.number(len(env) - MAX_LINES)))
    grants = access.grants()
    lines.append("")
    if grants:
        lines += [texts.users_granted, *granted_lines(texts, grants)]
    else:
        lines.append(texts.users_none_granted)
    return "\n".join(lines)


def status_section(texts: Texts, access: AccessPolicy, limit: int = 10) -> str:
    """The admins' part of `/status`: how many were granted access in Telegram, and the latest."""
    grants = access.grants()
    lines = [texts.status_granted.format(n=texts.number(len(grants)))]
    return "\n".join([*lines, *granted_lines(texts, grants, limit)])
