"""Change notices: which documents appeared, changed, moved or went, who hears of it, and when.
No aiogram here; the Telegram wing takes subscriptions and sends what these decide.

- `changes`: the documents folder's changes, from the index's snapshots of it, starting from the
  folder as the store remembers it (so changes made while no bot ran are told);
- `digest`: a batch of changes as one subscriber sees it (each document once, moves paired);
- `audience`: who may still hear what, asked when a digest is sent (access and scope);
- `folders`: the folder a subscription names, checked within the subscriber's scope;
- `schedule`: when a subscription's digest is due (NOTIFY_DEBOUNCE_S), and the loop that
  records the changes and sends each digest once across workers and restarts.
"""
