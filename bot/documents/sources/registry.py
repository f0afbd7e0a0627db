"""From a source's table in the sources file to an opened `Source`: the kind's module, found
by name when the source is opened.

`config.kind` names the module `bot.documents.sources.kinds.<kind>` and its `open_<kind>`
function. The module is imported then, not at start: a kind whose client library is missing
costs only the sources of that kind, with a clear line instead of a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from bot.documents.sources.config import Credentials, SourceConfig, SourcesFileError
from bot.documents.sources.remote import Source

KINDS_PACKAGE = "bot.documents.sources.kinds"


class SourceKindError(SourcesFileError):
    """A source's kind cannot be loaded in this install; the message names the source."""


def open_source(config: SourceConfig, credentials: Credentials) -> Source:
    """The source `config` describes, its credentials read.

    Raises:
        SourceKindError: the kind's module or its `open_<kind>` cannot be loaded.
        SourceSecretError: a credential the source names is missing.
    """
    module_name = f"{KINDS_PACKAGE}.{config.kind}"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        msg = f"source {config.name!r}: the kind {config.kind!r} cannot be loaded: {exc}"
        raise SourceKindError(msg) from None
    opener = getattr(module, f"open_{config.kind}", None)
    if not callable(opener):
        msg = f"source {config.name!r}: {module_name} has no open_{config.kind}"
        raise SourceKindError(msg)
    return cast("Callable[[SourceConfig, Credentials], Source]", opener)(config, credentials)
