"""One module per kind of source, each with `open_<kind>(config, credentials) -> Source`.

`bot.documents.sources.registry` imports a kind's module only when a source of that kind is opened, so
an install without a kind's client library runs every other kind.
"""
