"""The benchmarks measure the bot, not their own scaffolding."""
