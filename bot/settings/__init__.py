"""The bot's settings, read once at start and handed down; nothing below reads the environment.

- `model`: `Settings`, every environment variable with its default, rule and description (the
  help text and the docs' configuration page are made from it);
- `fallbacks`: FALLBACK_MODELS and FALLBACK_API_KEYS read into the models after the main one;
- `secret_values`: what the logs mask, found from the model's secret fields, so none is left out;
- `env_file`: what a `.env` file holds that no setting takes (unknown keys, unreadable lines),
  said once at start and by `check`;
- `scopes/`: SCOPES_FILE, which folders a question may see, in which chat or topic;
- `budgets/`: LIMITS_FILE, how many tokens a question may still spend and what they cost.

The loader that turns all of a command's problems into one list sits at the entrance
(`bot.entrance.loading`), since it also checks the system prompt the agent will use.
"""
