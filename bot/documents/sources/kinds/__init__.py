"""The kinds of source, one module each, every one implementing `bot.documents.sources.remote.Source`.

A kind's module exposes `open_<kind>(config, credentials) -> Source`, reads its credentials
when it is opened, and words its own errors (`SourceError`) so that no secret, URL with a
password or raw client exception reaches the admin; the mirror engine treats every kind alike.
"""
