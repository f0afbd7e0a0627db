"""The operator's own files a setting names (SCOPES_FILE, LIMITS_FILE), read with one wording
for every way reading fails, so each file's loader only parses and names what is wrong inside."""

from __future__ import annotations

from pathlib import Path


def read_setting_file(path: Path, error: type[ValueError]) -> str:
    """The UTF-8 text of `path`.

    Raises:
        error: the file is missing, not UTF-8 or cannot be read; the message names it.
    """
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise error(f"{path} is not UTF-8 text") from None
    except OSError as exc:
        raise error(f"{path} cannot be read: {exc.strerror or exc}") from None
