"""Questions the documents could not answer: which ones, how they are grouped, and when admins
hear of them. No aiogram here; the Telegram wing shows and sends what these decide.

- `rule`: whether an answer leaves its question unanswered, and why;
- `grouping`: unanswered questions grouped by the word they share, most asked first;
- `report`: the groups of a period, read from the store (`/gaps` and the digest);
- `schedule`: when the digest is due (GAPS_DIGEST), and the loop that sends each one once.
"""
