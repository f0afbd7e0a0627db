"""What admins and subscribers hear on a schedule, decided here and sent by the Telegram wing.

- `gaps/`: questions the documents could not answer, grouped, and their digest's schedule;
- `notices/`: the documents folder's changes, who hears of them and when (/subscribe).
"""
