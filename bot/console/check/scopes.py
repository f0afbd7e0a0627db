"""SCOPES_FILE as `python -m bot check` reads it: how many are listed, and folders it lacks.

A file that cannot be parsed never gets here (the settings refuse it first); a folder it names
that the documents folder lacks is a failure, because a chat given only that folder would see
nothing at all.
"""

from __future__ import annotations

from bot.console.check.outcome import Outcome, failed, passed
from bot.settings.model import Settings
from tools.errors import SandboxError
from tools.jail.sandbox import Sandbox

SUBJECT = "scopes"


def check_scopes(settings: Settings) -> Outcome:
    """One line on SCOPES_FILE (blocking: looks at the documents folder)."""
    rules = settings.scope_rules
    sandbox = Sandbox(settings.sandbox_dir, reserved=(settings.data_dir,))
    missing = []
    for folder in sorted(rules.folders()):
        try:
            present = sandbox.resolve(folder).is_dir()
        except SandboxError:
            present = False
        if not present:
            missing.append(folder)
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        return failed(SUBJECT, f"SCOPES_FILE names folders the documents folder lacks: {names}")
    default = "everything" if rules.default is None else rules.default.shown()
    return passed(
        SUBJECT, f"{rules.entries()} chats, topics and users listed; everyone else sees {default}"
    )
