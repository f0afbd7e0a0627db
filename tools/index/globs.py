"""Name globs (`*.pdf`, `отчет*2024*`) matched against the visible paths, case- and ё-folded.

A glob with `/` must match the whole path; one without matches the file's name or the name of
one of its folders (so `docs*` finds the files in a folder of that name too, at any depth).
"""

from __future__ import annotations

import fnmatch
import re

from tools.index.terms import fold


def glob_match(path: str, globs: list[str]) -> bool:
    """Whether one path matches every glob."""
    folded = fold(path)
    parts = folded.split("/")
    return all(
        fnmatch.fnmatchcase(folded, g)
        if "/" in g
        else any(fnmatch.fnmatchcase(part, g) for part in parts)
        for g in globs
    )


def glob_regex(glob: str, *, within_name: bool) -> str:
    """A folded glob as a regex over one line; `within_name` keeps wildcards off `/`."""
    star, one = ("[^/\n]*", "[^/\n]") if within_name else ("[^\n]*", "[^\n]")
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        end = glob.find("]", i + 2) if char == "[" else -1
        if char == "*":
            out.append(star)
        elif char == "?":
            out.append(one)
        elif end > 0:
            body = glob[i + 1 : end]
            negate = body[:1] == "!"
            body = re.escape(body[1:] if negate else body).replace("\\-", "-")
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


class FoldedNames:
    """The visible paths folded and joined into one text, so a glob is one regex scan.

    A glob with `/` must match the whole path; one without the file's name or one of its
    folders' names.
    """

    def __init__(self, visible: dict[str, tuple[int, int]]) -> None:
        self.source = visible
        self._paths: dict[str, list[str]] = {}
        self._odd: list[str] = []  # a line break in a name would split its line
        for path in visible:
            if "\n" in path:
                self._odd.append(path)
            else:
                self._paths.setdefault(fold(path), []).append(path)
        self._text = "\n".join(self._paths)

    def matching(self, globs: list[str]) -> list[str]:
        found: set[str] | None = None
        for glob in globs:
            if "/" in glob:
                rx = f"^{glob_regex(glob, within_name=False)}$"
            else:
                part = glob_regex(glob, within_name=True)
                rx = f"^(?:[^\n]*/)?{part}(?:/[^\n]*)?$"
            lines = set(re.findall(rx, self._text, re.MULTILINE))
            found = lines if found is None else found & lines
        odd = [p for p in self._odd if glob_match(p, globs)]
        return sorted([*(p for line in found or () for p in self._paths[line]), *odd])
