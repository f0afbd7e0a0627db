"""Tests of `bot.digests.notices`: the folder's changes, digests and when they are due."""
