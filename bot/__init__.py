"""docs-bot: answers questions in Telegram from a folder of documents.

Read it from the door in this order:

- the entrance: `__main__` (picks a front door), `cli`, `config` and `settings_loader`
  (settings and their errors), `logs`, `data_files` (what lives in DATA_DIR);
- `services`: what both front doors share (toolbox, history, model client, agent), no aiogram;
- `agent/`: the loop (history in, tool calls run, an answer out), knowing nothing of Telegram;
- `access/`: who may use the bot beyond the environment's lists (pairing codes, grants, access
  requests), kept in DATA_DIR, no aiogram;
- `terminal`: the terminal front door (`python -m bot chat`);
- `telegram/`: the Telegram front door, the only package that imports aiogram.

Imports point down this list and never back; the read-only tools live beside it in `tools`.
"""
