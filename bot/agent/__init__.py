"""The agent loop: history in, tool calls executed, an answer out. Knows nothing of Telegram."""
