"""Documents managed by admins from Telegram: delete to a hidden trash, move, restore.

- `trash`: the hidden `.trash/` folder inside the documents folder and its records;
- `manager`: `Documents`, which checks every path through the jail and keeps the index in step;
- `retention`: what is deleted on time, conversations older than HISTORY_DAYS and trash older
  than TRASH_DAYS;
- `faq`: an expert's answer written as a Markdown document for the next search to find;
- `reindex`: `python -m bot reindex`, a rebuild of the search index (asked of a running bot);
- `sources/`: documents that live elsewhere (WebDAV, S3, a mailbox, any rclone remote),
  mirrored into folders of their own, deletions included.

No aiogram here: the Telegram wing asks for confirmation and calls this. Nothing is imported
here, so reading the sources file at the entrance does not load the toolbox.
"""
