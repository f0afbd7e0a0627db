"""Document formats: which route a file takes by its name (`kinds`) and the parsers that the
isolated worker runs for the risky ones (`registry`), one module per family of formats.

Nothing here is imported by the bot's own process except `kinds`: the parsers and their
libraries load only inside the worker.
"""
