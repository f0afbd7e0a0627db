"""The Telegram bot: settings, the agent loop, handlers and the composition root."""
