"""docs-bot: answers questions in Telegram from a folder of documents.

The top level is the entrance and the wiring; everything else is a room (a package that says
what it holds). Read it from the door, top to bottom; imports point down this list and never
back up:

- the entrance: `__main__` (loads the settings, then opens one front door by name), `cli` (the
  commands and the help), `settings_loader` (every problem with the settings as one list);
  beside it `healthcheck` (`python -m bot.healthcheck`, the container's liveness probe);
- the front doors: `telegram/` (the bot; the only package that imports aiogram), `terminal/`
  (`python -m bot chat`), `check/` (`python -m bot check`), `evaluation/` (`python -m bot eval`:
  a file of questions asked, the answers checked, models compared), `access.command`
  (`python -m bot pair`), `datadir.backup` and `datadir.restore` (`python -m bot backup`,
  `python -m bot restore`);
- the wiring: `services` opens what the front doors share (toolbox, stores, model client,
  agent, metrics) in one exit stack, after upgrading DATA_DIR (`datadir`); no aiogram;
- `speech/`: voice questions turned into text over an OpenAI-compatible endpoint;
  `monitoring/`: the metrics registry, the health check, and the routes serving both;
  `gaps/`: questions the documents could not answer, grouped, and their digest's schedule;
  `notices/`: the documents folder's changes, who hears of them and when (/subscribe);
  `sources/`: documents that live elsewhere (WebDAV, S3, a mailbox, rclone) mirrored into
  folders of the documents folder, and `python -m bot sources`;
- `agent/`: the loop (history in, tool calls run, an answer out), knowing nothing of Telegram;
  `access/`: who may use the bot beyond the environment's lists (pairing codes, grants,
  access requests); `datadir/`: DATA_DIR as a whole (its version, upgrades, backups);
  `documents/`: admins' /rm, /mv, the trash, and what is deleted on time;
- `settings/`: the settings model and the `.env` file's leftovers; it reads SCOPES_FILE through
  `scopes/`, which decides which folders a question may see, and LIMITS_FILE through
  `budgets/`, which decides how many tokens a question may still spend and what they cost;
- `storage/`: every store, one package per concern (a Protocol, its SQLite and its PostgreSQL
  class), on one SQLite engine and one PostgreSQL database, chosen in one place;
- the ground floor: `logs/` (text or JSON lines, each with its conversation), `process/`
  (the files in DATA_DIR, the heartbeat, the exit codes, the version) and `quotes/` (an
  answer's quotes checked against the document text the tools showed).

The read-only tools live beside the bot in `tools`, which never imports `bot`.
"""
