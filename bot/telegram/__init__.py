"""The Telegram wing: everything that imports aiogram, and nothing else does.

- `run` (the front door: polling or webhook) and `app` (builds the Bot and the Dispatcher);
- `context` (what each update is: its conversation, language, place, whether it is a group,
  and the sender's scope there, read once on first use), `addressing` (who a message is for),
  `tuning` (timing knobs), `albums`, `downloads` (files from Telegram, with a size limit),
  `uploads`, `upload_parts` and `upload_kinds` (what an admin's upload may be, and where it
  goes), `recordings` (what a voice question carries), `picture_files` (which file of a
  message is a picture) and `picture_downloads` (pictures fetched within IMAGE_MAX_MB and made
  ready for the model), `menu` (the command menu per language);
- `access_requests` (a stranger's request, with buttons for every admin), `access_changes`
  (letting someone in or denying them, the same from the commands and the admins' page),
  `check` (getMe for `python -m bot check`), `api_errors` (the Bot API's failures, counted),
  `button_records` (which message carries which button data, recorded as it is sent),
  `reply_models` (aiogram's models of the Bot API's replies, kept built for the bot's life),
  `webhook` and `exactly_once` (the webhook route, each update claimed once), `workers` (the
  parent of several webhook workers); `unanswered` (an answer's question kept when the
  documents had nothing for it) and `gaps_digest` (their digest, sent to every admin when due);
  `inline_search` (the documents an inline query finds in the asker's scope, kept briefly);
  `change_notices` (the digests of changed documents, sent to their subscribers);
  `source_questions` (a source's held-back mass deletion, asked of every admin who may see it);
  `source_notices` (a source broke or works again, told to every admin who may see it), both
  through `source_admins` (the admins who may see a source's folder, each in their language);
  `upkeep` (the background work only start-up and shutdown touch, one entry of the data);
- `middlewares/` (access, a tap counts only on its own message, rate limit, paste joining,
  album gathering, per-conversation order),
  `handlers/` (one router per feature), `admin_app/` (the admins' Mini App: its page and API
  on the bot's own web server);
- `output/` (the status message, the answer shown as it is written, answer delivery, edit
  pacing, status records for restarts, source buttons and the documents they send),
  `render/` (Markdown to Telegram HTML parts), `texts/` (every text, Russian and English).

Middlewares never import handlers; handlers use `output`, `render` and `texts`, never the
other way round.
"""
