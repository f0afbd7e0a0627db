"""Tests of `bot.notices`: the folder's changes, digests and when they are due."""
