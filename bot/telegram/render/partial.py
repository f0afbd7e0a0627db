"""The part of a growing Markdown answer that already renders the way it will at the end.

While the model writes, the answer is shown again and again, and Markdown read too early
changes its mind: `**bo` is two stars and text until `**bold**` turns bold, a table's columns
widen with every row, a half-written `[link](htt` is bracket soup, a line of `-` turns the line
above into a heading. `settled` keeps the finished blocks and, in the block being written,
stops before anything still open, so each snapshot shows a beginning of what the finished
answer shows and never markup that vanishes a moment later. A fenced code block is shown as it
grows: its text is literal and the renderer closes it.

It only looks at the text; the renderer (`render_answer`) does the rest, so a snapshot is
always rendered exactly like a finished answer.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_BEING_TYPED = re.compile(r"(`{2,}|~{2,})[^`]*")
_MARKERS_ONLY = re.compile(r"[-=*_+#\s]*|\d{1,9}(?:[.)]\s*)?")
_CONTAINERS = re.compile(r"^(?: {0,3}>)*\s*")
_NEW_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])\s|\s{0,3}#{1,6}\s")
_ENTITY_START = re.compile(r"&(?:#[0-9]{0,7}|#[xX][0-9a-fA-F]{0,6}|[A-Za-z][A-Za-z0-9]{0,31})?")
_AUTOLINK_START = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.@-]*(?::[^\s<>]*)?)?")
_CLOSER_BEING_TYPED = re.compile(r" {0,3}(`+|~+)")


def settled(markdown: str) -> str:
    """The longest beginning of `markdown` whose rendering more text will not take back."""
    fence: str | None = None
    block_start = 0
    offset = 0
    lines = markdown.split("\n")
    for line in lines[:-1]:  # complete lines; the last one is still being written
        end = offset + len(line) + 1
        if fence is not None:
            if _closes(line, fence):
                fence, block_start = None, end
        elif (opened := _FENCE.match(line)) and "`" not in line[opened.end() :]:
            fence, block_start = opened.group(1), offset
        elif not line.strip():
            block_start = end
        offset = end
    if fence is None:
        return markdown[:block_start] + _settled_block(markdown[block_start:])
    last = lines[-1]
    if _CLOSER_BEING_TYPED.fullmatch(last) and last.strip()[0] == fence[0]:
        markdown = markdown[:offset]
    code = markdown[block_start:].partition("\n")[2]
    return markdown if code.strip() else markdown[:block_start]  # an empty block shows nothing


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and stripped.startswith(fence)
        and not stripped.strip(fence[0])
    )


def _settled_block(block: str) -> str:
    """The block being written, up to its first construct still open."""
    last = block.rpartition("\n")[2]
    if last and _may_become_markup(last):
        block = block[: len(block) - len(last)]
    table = _first_line_with(block, "|")
    if table is not None:
        block = block[:table]  # a table is shown once it is complete
    block = block[: _open_inline(block)]
    last = block.rpartition("\n")[2]
    if _MARKERS_ONLY.fullmatch(_CONTAINERS.sub("", last)):
        block = block[: len(block) - len(last)]  # a marker with nothing after it yet
    return block


def _may_become_markup(line: str) -> bool:
    """Whether an unfinished line may still turn into a block marker, a rule or a fence."""
    bare = _CONTAINERS.sub("", line)
    return bool(_MARKERS_ONLY.fullmatch(bare) or _FENCE_BEING_TYPED.fullmatch(bare))


def _first_line_with(block: str, char: str) -> int | None:
    offset = 0
    for line in block.split("\n"):
        if char in line:
            return offset
        offset += len(line) + 1
    return None


def _open_inline(text: str) -> int:
    """Where the first inline construct still open begins (`len(text)` when none is).

    Emphasis, code and links cannot reach past the start of a list item or a heading: what
    an earlier item left open stays text for good, so only the last item is looked at.
    """
    start = 0
    offset = 0
    for line in text.split("\n"):
        if _NEW_ITEM.match(line):
            start = offset
        offset += len(line) + 1
    found = _InlineScan(text[start:]).first_open()
    return len(text) if found is None else start + found


class _InlineScan:
    """One pass over a paragraph or a list item, remembering what is still open."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.openers: list[tuple[str, int, int]] = []  # (delimiter, position, run left)
        self.brackets: list[int] = []
        self.stop: int | None = None  # an unfinished construct begins here

    def first_open(self) -> int | None:
        """Where the first construct still open begins, if any is."""
        i = 0
        while i < len(self.text) and self.stop is None:
            i = self._step(i)
        found = [position for _, position, _ in self.openers] + self.brackets
        if self.stop is not None:
            found.append(self.stop)
        return min(found) if found else None

    def _step(self, i: int) -> int:
        """Read what starts at `i`; returns where to go on."""
        text = self.text
        char = text[i]
        last = i + 1 == len(text)
        if char == "\\":
            return self._halt(i) if last else i + 2
        if char == "`":
            return self._code(i)
        if char in "*_~":
            return self._delimiter(i)
        if (
            (char == "!" and last)  # may yet start an image
            or (char == "&" and _ENTITY_START.fullmatch(text, i))
            or (char == "<" and _AUTOLINK_START.fullmatch(text, i))
        ):
            return self._halt(i)
        if char == "[":
            self.brackets.append(i - 1 if i and text[i - 1] == "!" else i)
        elif char == "]" and self.brackets:
            start = self.brackets.pop()
            after = _after_link(text, i + 1)
            return self._halt(start) if after is None else after
        return i + 1

    def _halt(self, position: int) -> int:
        self.stop = position
        return len(self.text)

    def _code(self, i: int) -> int:
        run = _run_length(self.text, i)
        closing = _closing_backticks(self.text, i + run, run)
        if closing is None or closing + run == len(self.text):  # the closing run may yet grow
            return self._halt(i)
        return closing + run

    def _delimiter(self, i: int) -> int:
        """A run of `*`, `_` or `~`: it closes, opens, or is text."""
        text = self.text
        char = text[i]
        run = _run_length(text, i)
        before = text[i - 1] if i else " "
        if i + run == len(text):  # may yet grow, or turn into an opener
            closes = i > 0 and not before.isspace() and _close(self.openers, char, run)
            return i + run if closes and not self.openers else self._halt(i)
        if char == "~" and run != 2:
            return i + run
        after = text[i + run]
        can_open = not after.isspace()
        can_close = not before.isspace() and i > 0
        if char == "_":
            can_open = can_open and not before.isalnum()
            can_close = can_close and not after.isalnum()
        if not (can_close and _close(self.openers, char, run)) and can_open:
            self.openers.append((char, i, run))
        return i + run


def _run_length(text: str, i: int) -> int:
    run = 1
    while i + run < len(text) and text[i + run] == text[i]:
        run += 1
    return run


def _closing_backticks(text: str, start: int, run: int) -> int | None:
    i = start
    while (i := text.find("`" * run, i)) != -1:
        length = _run_length(text, i)
        if length == run:
            return i
        i += length
    return None


def _close(openers: list[tuple[str, int, int]], char: str, run: int) -> bool:
    """Close the newest openers of `char` with a run of `run`; False when none was open."""
    if not any(delimiter == char for delimiter, _, _ in openers):
        return False
    while run > 0 and openers:
        delimiter, position, left = openers[-1]
        if delimiter != char:
            openers.pop()  # crossed emphasis stays text: forget the inner opener
            continue
        used = min(left, run)
        run -= used
        if used == left:
            openers.pop()
        else:
            openers[-1] = (delimiter, position, left - used)
    return True


def _after_link(text: str, i: int) -> int | None:
    """Past `](...)` when the address is complete; None while it may still come."""
    if i == len(text):
        return None  # `[text]` may yet be followed by its address
    if text[i] != "(":
        return i
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return None
