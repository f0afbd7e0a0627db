"""Word 97–2003 documents (.doc), through a converter installed on the machine.

No maintained Python library reads this binary format, so the worker runs the first of
antiword, catdoc or LibreOffice (`soffice --headless --convert-to txt`) that is installed,
within the document's time limit and the worker's memory cap (the converter inherits it), in
its own process group, killed with the worker if the worker dies. Without any of them a .doc
file is a clear error. A .doc that is really RTF or docx (Word saves both under that name) is
read as what it is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from tools.extract.formats.base import Budget, FormatError, Lines
from tools.extract.formats.rtf import rtf_text
from tools.extract.formats.word import docx_text

NOT_HERE = "not supported here: .doc needs antiword, catdoc or LibreOffice installed"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SHARE_OF_DEADLINE = 0.8
_PR_SET_PDEATHSIG = 1


def doc_text(data: bytes, budget: Budget) -> str:
    """The text of a Word 97–2003 document, one paragraph a line."""
    if data.startswith(b"{\\rtf"):
        return rtf_text(data, budget)
    if data.startswith(b"PK\x03\x04"):
        return docx_text(data, budget)
    if not data.startswith(_OLE_MAGIC):
        raise FormatError("the doc file is damaged (not a Word 97–2003 document)")
    converters = available_converters()
    if not converters:
        raise FormatError(NOT_HERE)
    deadline = time.monotonic() + budget.seconds * _SHARE_OF_DEADLINE
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="doc-") as folder:
        source = Path(folder) / "document.doc"
        source.write_bytes(data)
        for name in converters:
            left = deadline - time.monotonic()
            if left <= 0:
                failures.append(f"{name}: no time left")
                break
            try:
                text = _convert(name, source, left)
            except FormatError as exc:
                failures.append(f"{name}: {exc}")
                continue
            if text.strip():
                return _bounded(text, budget.max_chars)
            failures.append(f"{name}: no text")
    raise FormatError(f"the doc file could not be converted ({'; '.join(failures)})")


def available_converters() -> list[str]:
    """The converters installed here, best first."""
    return [name for name in ("antiword", "catdoc", "soffice") if shutil.which(name)]


def _convert(name: str, source: Path, seconds: float) -> str:
    folder = source.parent
    if name == "antiword":
        return _run(["antiword", "-m", "UTF-8.txt", "-w", "0", str(source)], seconds, folder)
    if name == "catdoc":
        return _run(["catdoc", "-d", "utf-8", "-w", str(source)], seconds, folder)
    out = folder / "out"
    profile = (folder / "profile").as_uri()
    command = ["soffice", "--headless", "--norestore", f"-env:UserInstallation={profile}"]
    command += ["--convert-to", "txt:Text (encoded):UTF8", "--outdir", str(out), str(source)]
    _run(command, seconds, folder)
    try:
        return (out / "document.txt").read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        raise FormatError("it wrote no text") from None


def _run(command: list[str], seconds: float, home: Path) -> str:
    """A converter's standard output; its whole process group is killed past `seconds`."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=home,
        start_new_session=True,
        preexec_fn=_die_with_parent,  # noqa: PLW1509  (the worker has a single thread)
    )
    try:
        out, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise FormatError(f"took over {seconds:.0f} s") from None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # helpers it left behind
    if proc.returncode != 0:
        raise FormatError(f"exit status {proc.returncode}")
    return out.decode("utf-8", errors="replace")


def _die_with_parent() -> None:
    """In the converter, before it starts: the kernel kills it if the worker dies first."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the timeout still holds
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _bounded(text: str, max_chars: int) -> str:
    lines = Lines(max_chars)
    for line in text.splitlines():
        lines.add(line.rstrip())
        if lines.full:
            break
    return lines.text()
