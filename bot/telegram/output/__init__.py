"""What the bot shows in a chat while and after it works: one place for status and delivery.

`progress` keeps the status message and the typing action, `pending_status` remembers status
messages on screen so a restart can tidy them, `delivery` sends an answer's parts without
losing or doubling one, and `pacing` says where to write and how fast edits may come.
"""
