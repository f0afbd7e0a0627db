"""docs-bot: answers questions in Telegram from a folder of documents.

The top level is a table of contents: the entrance, the wiring, and one room per job (a package
that says what it holds). Read it from the door, top to bottom; imports point down this list and
never back up:

- `__main__` loads the settings and opens one front door by name, through `entrance/` (`cli`,
  the commands and the help; `loading`, every problem with the settings as one list); beside
  it `healthcheck` (`python -m bot.healthcheck`, the container's liveness probe);
- the front doors: `telegram/` (the bot; the only package that imports aiogram) and `console/`
  (`python -m bot chat`, `check` and `eval` on a terminal);
- the wiring: `services` opens what the front doors share (toolbox, stores, model client,
  agent, metrics) in one exit stack, after upgrading DATA_DIR; no aiogram;
- `digests/`: what admins and subscribers hear on a schedule (unanswered questions, the
  folder's changes); `monitoring/`: the metrics, the health check, and the routes serving both;
- `agent/`: the loop (history in, tool calls run, an answer out, its quotes checked), knowing
  nothing of Telegram; `access/`: who may use the bot beyond the environment's lists (pairing
  codes, grants, access requests); `datadir/`: DATA_DIR as a whole (its version, upgrades,
  backups); `documents/`: the folder as admins and sources change it (/rm, /mv, the trash,
  sources mirrored from elsewhere);
- `settings/`: the settings model, and the rules files it reads (SCOPES_FILE: which folders a
  question may see; LIMITS_FILE: how many tokens it may spend);
- `storage/`: every store, one package per concern (a Protocol, its SQLite and its PostgreSQL
  class), on one SQLite engine and one PostgreSQL database, chosen in one place;
- the floor: `process/` (the files in DATA_DIR, the heartbeat, the exit codes, the version, the
  logs).

The read-only tools live beside the bot in `tools`, which never imports `bot`.
"""
