"""The terminal front door, for trying the bot without Telegram.

- `chat`: `python -m bot chat`, the same agent and services over stdin and stdout.
"""
