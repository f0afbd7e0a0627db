"""Reproducible benchmarks of the bot, each measured beside a reference in the same run.

`python -m bench` runs them all and writes `bench/RESULTS.md`; nothing here runs in the tests.
"""
