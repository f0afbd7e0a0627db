"""docs-bot: answers questions in Telegram from a folder of documents.

Read it from the door, top to bottom; imports point down this list and never back up:

- the entrance: `__main__` (loads the settings, then opens one front door by name), `cli`;
  beside it `healthcheck` (`python -m bot.healthcheck`, the container's liveness probe);
- the front doors: `telegram/` (the bot; the only package that imports aiogram), `terminal`
  (`python -m bot chat`), `check/` (`python -m bot check`), `access.command`
  (`python -m bot pair`), `datadir.backup` and `datadir.restore` (`python -m bot backup`,
  `python -m bot restore`);
- `services`: what the front doors share (toolbox, history, model client, agent, metrics), no
  aiogram; it upgrades DATA_DIR (`datadir`) before anything opens it; `retention` deletes on
  time what HISTORY_DAYS and TRASH_DAYS let go;
- `speech`: voice questions turned into text over an OpenAI-compatible endpoint;
- `monitoring/`: the metrics registry the agent and the Telegram wing report to, the health
  check, and the routes serving both;
- `agent/`: the loop (history in, tool calls run, an answer out), knowing nothing of Telegram;
  `access/`: who may use the bot beyond the environment's lists (pairing codes, grants,
  access requests); `datadir/`: DATA_DIR as a whole (its version, upgrades, backups);
  `documents/`: admins' /rm, /mv and the trash, through the jail;
- `config` (the settings model; it reads SCOPES_FILE through `scopes/`, which decides which
  folders a question may see);
- `storage/`: every store but the history, one package per concern (a Protocol, its SQLite
  and its PostgreSQL class), on one SQLite engine and one PostgreSQL database;
- the ground floor: `logs/` (text or JSON lines, each with its conversation), `data_files`
  (what lives in DATA_DIR), `heartbeat` (the file a running bot keeps fresh for the probe),
  `env_file` (the .env file's unknown keys and unreadable lines), `exit_codes` (what each exit
  code means), `version`.

`settings_loader` (settings and their errors, one list) sits beside `services`.

The read-only tools live beside the bot in `tools`, which never imports `bot`.
"""
