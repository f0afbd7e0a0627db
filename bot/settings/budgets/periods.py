"""Days and months in the limits' time zone: when the one in progress began, when it ends,
and its name (the key a warning is sent once under)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.settings.budgets.limits import Period


def _local(now: float, zone: ZoneInfo) -> datetime:
    return datetime.fromtimestamp(now, tz=zone)


def started(now: float, period: Period, zone: ZoneInfo) -> float:
    """When the day or month in progress at `now` began (Unix time)."""
    moment = _local(now, zone).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        moment = moment.replace(day=1)
    return moment.timestamp()


def resets(now: float, period: Period, zone: ZoneInfo) -> float:
    """When the day or month in progress at `now` ends and its budget starts afresh."""
    moment = _local(now, zone).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        following = moment + timedelta(days=1)  # wall-clock arithmetic: the next midnight
    else:
        following = (moment.replace(day=28) + timedelta(days=4)).replace(day=1)
    return following.timestamp()


def name(now: float, period: Period, zone: ZoneInfo) -> str:
    """The period's name: `2026-12-02` for a day, `2026-12` for a month."""
    local = _local(now, zone)
    return local.strftime("%Y-%m-%d" if period == "day" else "%Y-%m")


def utc_offset_s(now: float, zone: ZoneInfo) -> float:
    """How far east of UTC the zone's clocks are at `now`, in seconds."""
    offset = _local(now, zone).utcoffset()
    return offset.total_seconds() if offset is not None else 0.0
