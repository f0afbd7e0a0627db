"""Every file the bot keeps in DATA_DIR, named in one place.

The search index is the toolbox's own (`tools.INDEX_FILE`); the conversation log, the record
of status messages on screen, the access granted in Telegram and the ids behind source buttons
are the bot's, and so is the stamp of the data's version that upgrades read. The toolbox is
told about the bot's files so that no path a model names can reach them, whatever the folders'
layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tools import INDEX_FILE, INDEX_TERMS

HISTORY_FILE = "history.sqlite3"
PENDING_STATUS_FILE = "pending_status.sqlite3"
ACCESS_FILE = "access.sqlite3"
SOURCE_LINKS_FILE = "source_links.sqlite3"
SCOPES_FILE = "scopes.sqlite3"
UPDATE_CLAIMS_FILE = "update_claims.sqlite3"
ADMIN_MENUS_FILE = "admin_menus.json"
AUDIT_FILE = "audit.sqlite3"
CONFIRMATIONS_FILE = "confirmations.sqlite3"
FEEDBACK_FILE = "feedback.sqlite3"
UNANSWERED_FILE = "unanswered.sqlite3"
EXPERTS_FILE = "experts.sqlite3"
USAGE_FILE = "usage.sqlite3"
NOTICES_FILE = "notices.sqlite3"
BUTTONS_FILE = "buttons.sqlite3"
DATA_VERSION_FILE = "data_version.json"
HEARTBEAT_FILE = "heartbeat"
SOURCES_DIR = "sources"


class DataDirError(Exception):
    """DATA_DIR cannot be created or written; the text says which folder and why."""


@dataclass(frozen=True, slots=True)
class DataFiles:
    """The paths of the bot's files under one DATA_DIR."""

    root: Path

    @property
    def history(self) -> Path:
        """The conversation log (SQLite)."""
        return self.root / HISTORY_FILE

    @property
    def pending_status(self) -> Path:
        """Status messages whose questions have not ended (SQLite), tidied after a crash."""
        return self.root / PENDING_STATUS_FILE

    @property
    def access(self) -> Path:
        """Access granted in Telegram, pairing codes (as hashes) and access requests (SQLite)."""
        return self.root / ACCESS_FILE

    @property
    def source_links(self) -> Path:
        """The ids on answers' source buttons and the documents they open (SQLite)."""
        return self.root / SOURCE_LINKS_FILE

    @property
    def scopes(self) -> Path:
        """Chats' scopes set with /scope and each conversation's last scope (SQLite)."""
        return self.root / SCOPES_FILE

    @property
    def update_claims(self) -> Path:
        """Which webhook updates were taken and finished, so each is handled once (SQLite)."""
        return self.root / UPDATE_CLAIMS_FILE

    @property
    def audit(self) -> Path:
        """The admins' audit log: uploads, moves, deletions, restores, scopes, access (SQLite)."""
        return self.root / AUDIT_FILE

    @property
    def confirmations(self) -> Path:
        """Actions waiting for their confirm button, for 15 minutes (SQLite)."""
        return self.root / CONFIRMATIONS_FILE

    @property
    def feedback(self) -> Path:
        """Delivered answers and their askers' 👍/👎, kept like the history (SQLite)."""
        return self.root / FEEDBACK_FILE

    @property
    def unanswered(self) -> Path:
        """Questions the documents could not answer, and when their digest last went out
        (SQLite)."""
        return self.root / UNANSWERED_FILE

    @property
    def experts(self) -> Path:
        """Questions sent to the experts and their replies, kept like the history (SQLite)."""
        return self.root / EXPERTS_FILE

    @property
    def usage(self) -> Path:
        """Tokens spent on the model and the budget warnings sent (SQLite)."""
        return self.root / USAGE_FILE

    @property
    def notices(self) -> Path:
        """Subscriptions to change notices and the changes waiting for them (SQLite)."""
        return self.root / NOTICES_FILE

    @property
    def buttons(self) -> Path:
        """Which of the bot's messages carries which button data, for 90 days (SQLite)."""
        return self.root / BUTTONS_FILE

    @property
    def index(self) -> Path:
        """The search index (SQLite), rebuilt from the documents when missing."""
        return self.root / INDEX_FILE

    @property
    def index_terms(self) -> Path:
        """The folder of the search index's terms, rebuilt with it."""
        return self.root / INDEX_TERMS

    @property
    def admin_menus(self) -> Path:
        """The admins whose command menus were set, so a former admin loses theirs (JSON)."""
        return self.root / ADMIN_MENUS_FILE

    @property
    def data_version(self) -> Path:
        """The version of the data's layout, for upgrades and for refusing newer data (JSON)."""
        return self.root / DATA_VERSION_FILE

    @property
    def heartbeat(self) -> Path:
        """Touched every few seconds while the bot runs, for `python -m bot.healthcheck` (text).

        Not among `private_files`: it holds a time and a process id, not data, so it neither
        needs hiding nor makes a folder look like one the bot has used.
        """
        return self.root / HEARTBEAT_FILE

    @property
    def sources(self) -> Path:
        """What each source's mirror placed and its last pass, one JSON file per source, with
        the lock that lets one process sync a source at a time.

        Not among `private_files`: a folder, not a database. `backup` copies its `<name>.json`
        files (not the locks); without them each source is downloaded again in full, and a
        deletion waiting for a confirmation is asked again.
        """
        return self.root / SOURCES_DIR

    def private_files(self) -> tuple[Path, ...]:
        """Every file of the bot's, which the toolbox keeps out of the model's reach."""
        return (*self.bot_databases(), self.admin_menus, self.data_version)

    def bot_databases(self) -> tuple[Path, ...]:
        """The bot's own databases, which the toolbox keeps out of the model's reach."""
        return (
            self.history,
            self.pending_status,
            self.access,
            self.source_links,
            self.scopes,
            self.update_claims,
            self.audit,
            self.confirmations,
            self.feedback,
            self.unanswered,
            self.experts,
            self.usage,
            self.notices,
            self.buttons,
        )
