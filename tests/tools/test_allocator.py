"""The C allocator's settings for the index build take where glibc is the allocator."""

from __future__ import annotations

import os
import platform
import subprocess
from typing import Any

import pytest

from tools.index.allocator import tune_allocator


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the settings are glibc's (mallopt)")
def test_glibc_takes_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_child(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"a child process was started to find the C library: {args}")

    monkeypatch.setattr(subprocess, "Popen", no_child)
    assert tune_allocator.__wrapped__() is True
    assert tune_allocator() is True


@pytest.mark.skipif(os.name != "posix", reason="POSIX only")
def test_calling_it_again_is_harmless() -> None:
    first = tune_allocator()
    assert tune_allocator() is first
