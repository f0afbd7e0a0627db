"""The benchmarks' own machinery: they measure the bot, not their scaffolding, and what they
start is stopped however they end."""
