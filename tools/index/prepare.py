"""One file made ready for the index: its text extracted, folded, told its language and
compressed, its name cut into terms.

The same function runs in the indexer's threads and in the processes that prepare a large
pass (`prepare_pool`), so a file is indexed the same whichever did it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tools.errors import ContentError, ExtractionError, SandboxError
from tools.extract.cache import DocumentCache, cached_extract
from tools.extract.extractor import Extractor
from tools.extract.formats.kinds import in_worker, kind_of
from tools.index.languages import text_language
from tools.index.store import Prepared, compress
from tools.index.terms import Stemmer, fold

Signature = tuple[int, int]


def prepare_file(
    rel: str,
    sig: Signature,
    *,
    locate: Callable[[], Path],
    extractor: Extractor,
    cache: DocumentCache,
    stemmer: Stemmer,
    keep: bool,
) -> tuple[Prepared, bool]:
    """Extract, fold and compress one file (any thread); whether it is worth a retry.

    `locate` finds the file's real path through the jail. An unreadable file is stored by
    name with its error. A passing failure (permission, a file vanishing mid-read, shutdown)
    is stored with an impossible size, so the file is tried again later (and after a
    restart). A costly document's text is kept in the extraction cache when `keep` allows: a
    pass over many files leaves the cache to what people read, who get such a text back from
    the index instead of a second parse.
    """
    text, error, retry = "", None, False
    try:
        real = locate()
        costly = keep and in_worker(kind_of(real))
        doc = cached_extract(extractor, cache, real, (rel, *sig), keep=costly, background=True)
        text = "\n".join(doc.lines)
    except ContentError as exc:
        error = exc.message
    except (ExtractionError, SandboxError) as exc:
        error = exc.message
        sig = (-1, sig[1])
        retry = True
    prepared = Prepared(
        path=rel,
        size=sig[0],
        mtime_ns=sig[1],
        chars=len(text),
        error=error,
        name_terms=" ".join(stemmer.name_terms(rel)),
        body_text=fold(text),
        language=text_language(text),
        blob=compress(text),
    )
    return prepared, retry
