"""What the exit code of `python -m bot` tells whatever restarts it (systemd, Docker, the parent
of several workers).

`FIX_SETTINGS` means a restart cannot help: the settings are wrong, Telegram refuses the token,
the database refuses the login. The README's systemd unit stops on it
(`RestartPreventExitStatus=2`), and the parent of several workers stops them all at once
instead of starting the failed one again. `TRY_AGAIN` is a failure that may pass by itself (the
network, a server that is down or answers 5xx), worth a restart.
"""

from __future__ import annotations

from typing import Final

STOPPED: Final = 0
TRY_AGAIN: Final = 1
FIX_SETTINGS: Final = 2
FELL_SHORT: Final = 1
"""`eval`: a model answered fewer questions right than `--min-accuracy` asks."""
OUTPUT_CLOSED: Final = 1
"""Whoever read the output went away (`python -m bot check | head -1`); the rest is dropped."""
INTERRUPTED: Final = 130
"""Ctrl-C before the bot had its own handler in place (128 + SIGINT, as shells report it)."""
