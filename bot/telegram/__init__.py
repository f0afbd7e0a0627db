"""The Telegram wing: everything that imports aiogram, and nothing else does.

- `run` (the front door: polling or webhook) and `app` (builds the Bot and the Dispatcher);
- `context` (what each update is: its conversation, language, place, whether it is a group,
  and the sender's scope there, read once on first use), `addressing` (who a message is for),
  `tuning` (timing knobs), `albums`, `downloads` (files from Telegram, with a size limit),
  `uploads` and `upload_parts`, `recordings` (what a voice question carries);
- `middlewares/` (access, rate limit, paste joining, per-conversation order),
  `handlers/` (one router per feature);
- `output/` (the status message, the answer shown as it is written, answer delivery, edit
  pacing, status records for restarts, source buttons and the documents they send),
  `render/` (Markdown to Telegram HTML parts), `texts/` (every text, Russian and English).

Middlewares never import handlers; handlers use `output`, `render` and `texts`, never the
other way round.
"""
