"""`python -m bot check`: the third front door. The settings have already passed every rule
`run` applies; this tries the real things, one line each, and exits 0 only when all pass.

One module a line: `run` (the lines in order, and the exit code), `outcome` (one line: what
was checked, passed or not, why), `model_server` (MODEL and each fallback model, on its server
with its key), `embeddings` (the embeddings server and EMBEDDING_MODEL, when set), `rerank`
(the reranker at RERANK_URL, when set), `database`
(the shared database and its schema), `documents` (what SANDBOX_DIR holds and what cannot be read),
`data_folder` (DATA_DIR writable, room left), `scopes` (SCOPES_FILE against the folder),
`sources` (a line per source of SOURCES_FILE: its credentials, and its listing when online),
`tool_round` (MODEL calls a tool, takes its result and answers, as every question needs).

Nothing here imports aiogram: the Telegram check lives in the Telegram wing and is opened by
module name, only when it runs, so `check --offline` never pays for aiogram.
"""

from bot.console.check.run import serve

__all__ = ["serve"]
