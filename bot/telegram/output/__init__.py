"""What the bot shows in a chat while and after it works: one place for status and delivery.

`progress` keeps the status message and the typing action, `pending_status` remembers status
messages on screen so a restart can tidy them, `delivery` sends an answer's `parts` without
losing or doubling one (each through `part_sender`, with its retries), and `pacing` says where
to write and how fast edits may come. `streaming` shows an answer while the model writes it,
on the screens of `stream_screens` (drafts, where `drafts` remembers Telegram refusing them, or
a message edited), whose calls `screen_calls` makes.
`source_buttons` puts a button per source under an answer (and per quoted page beside it),
`source_files` sends the document behind a tapped one (or, when it is too large for Telegram,
the page the answer read), and `page_photos` a page drawn as a picture behind a page button.
`feedback_buttons` adds the 👍/👎 row below them, and the reasons a 👎 may give;
`expert_buttons` the "Ask an expert" row above it, and the buttons that follow from it.
`inline_cards` answers inline queries: the documents found, the card a chosen one posts with
its deep link to the private chat, and the answers without results.
"""
