"""The admins' Mini App: the documents, people (and who waits to be let in), scopes and audit
log in a page inside Telegram.

- `init_data`: who opened the page, from Telegram's signed `initData` (checked with the bot's
  token in constant time, and fresh);
- `desk`: what every endpoint shares: the objects it works with, the admin calling (401 or 403
  for anyone else), the JSON body read, and refusals as `{"error": ...}` in their language;
- `documents`: the documents and trash tabs: each document's index state, the trash, and
  move, delete, restore and upload through the jail and services the commands use, audited;
- `form`: the upload's multipart form, read within bounds (a malformed one is a 400);
- `people`: the people tab: who has access and revoking it, who waits to be let in (answered
  as the request's buttons in Telegram answer it), letting someone in by id; and `me`;
- `reports`: the scopes, audit, feedback and usage tabs, read as the commands read them;
- `sources`: the sources tab: the mirrored sources as `/sources` shows them, and confirming a
  held-back mass deletion as the question's button does;
- `page`: the one HTML page (no framework: a few lists and forms), served as it is;
- `routes`: the page and its API under ADMIN_APP_URL's path, on the bot's own web server.

The menu button that opens it is set in each admin's private chat with the admin command menu
(`bot.telegram.menu`).
"""
