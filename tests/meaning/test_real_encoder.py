"""The real sentence encoder knows meaning across Russian and English."""

from __future__ import annotations

import numpy as np
import pytest

from tests.fakes.real_encoder import DIMENSIONS, encode_texts


def _same(vector: list[float]) -> object:
    """Equal to `vector` up to float32 rounding: the BLAS kernel (chosen by CPU, or by
    OPENBLAS_CORETYPE where a host sets it) may sum in another order for a text's place in
    the batch, which moves the eighth digit."""
    return pytest.approx(vector, rel=1e-5, abs=1e-6)


def _cosine(a: list[float], b: list[float]) -> float:
    x, y = np.asarray(a), np.asarray(b)
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_a_translation_is_closer_than_an_unrelated_sentence() -> None:
    russian, english, unrelated = encode_texts(
        [
            "Если я заболею в командировке, кто оплатит гостиницу?",
            "If I get sick on a business trip, who pays for the hotel?",
            "Взбейте яйца с сахаром и добавьте муку.",
        ]
    )
    assert _cosine(russian, english) > _cosine(russian, unrelated) + 0.3


def test_one_vector_of_the_models_size_per_text_in_order() -> None:
    texts = ["отгулы", "days off", "отгулы"]
    vectors = encode_texts(texts)
    assert [len(v) for v in vectors] == [DIMENSIONS] * 3
    assert vectors[2] == _same(vectors[0])
    assert vectors[1] != _same(vectors[0])


def test_an_empty_batch_is_an_empty_answer() -> None:
    assert encode_texts([]) == []
