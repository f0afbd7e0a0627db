"""Fakes of the bot's outside world, shared by the test suite and the benchmarks.

A fake model server, a fake Telegram Bot API (a session inside the process, and a server over
HTTP for the bot run as a process), an `Update` builder and the harness that assembles a
dispatcher over them; the bot as a child process (`processes`), free ports and one-handler
HTTP servers; a real multilingual sentence encoder to serve as embeddings (`real_encoder`);
the signed `initData` a Mini App is opened with (`init_data`); the models `check`'s round trip
with a tool meets (`tool_round`).
The modules here hold no pytest fixtures except `fixtures` and `sandbox_fixtures`, so a
benchmark can import a fake without loading pytest.
"""
