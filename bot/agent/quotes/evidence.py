"""The evidence of a conversation: the document text its tool results showed the model.

Read from the OpenAI-format messages: every `read_file` page (its numbered lines, the place of
its first line, the place markers inside it) and every `search_files` snippet (one line, or a
piece of one, with its place). Lines of one document from several results are merged by their
numbers, so a quote may run on from one page read into the next.

Results are JSON text that may have been cut to fit the context window: a result that is not
valid JSON any more still gives what can be read of its path, place, page and snippets. Results
of other shapes (errors, listings) show no document text and are passed over.

Each result's text is read once per answer (`read_results`): the pages an answer names and the
check of its quotes are both built from what that read gave.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tools.extract.places import Place, Sections, parse_place

_NUMBERED = re.compile(r"^[ \t]*(\d+)\| ?(.*)$", re.MULTILINE)
_FIELD = re.compile(r'"(?P<key>path|place|document|partial)"\s*:\s*"')
_SNIPPET = re.compile(
    r'\{\s*"line"\s*:\s*(?P<line>\d+)\s*,\s*"text"\s*:\s*"(?P<text>(?:[^"\\]|\\.)*)"'
    r'(?:\s*,\s*"place"\s*:\s*"(?P<place>(?:[^"\\]|\\.)*)")?'
)
_JSON_STRING = re.compile(r'(?:[^"\\]|\\.)*')
_CUT_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{0,3}$")


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    """One line of a document as the tools showed it, and the place it lies in."""

    number: int
    text: str
    place: Place | None


@dataclass
class DocumentEvidence:
    """What the tools showed of one document: whole lines (pages read) and pieces of lines
    (snippets), and the places the tools named for some of them."""

    path: str
    whole: dict[int, str] = field(default_factory=dict)
    pieces: dict[int, str] = field(default_factory=dict)
    named: dict[int, Place] = field(default_factory=dict)

    def runs(self) -> list[list[EvidenceLine]]:
        """Runs of consecutive whole lines, and each snippet's piece as a run of its own,
        every line with its place. Marker lines set the place and are not text: a quote runs
        on across a page break."""
        runs: list[list[EvidenceLine]] = []
        run: list[EvidenceLine] = []
        sections = Sections()
        previous = -1
        for number in sorted(self.whole):
            if number != previous + 1:
                if run:
                    runs.append(run)
                run, sections = [], Sections()
            previous = number
            text = self.whole[number]
            named = self.named.get(number)
            if named is not None:
                sections.name(named)
            if sections.read(text) == "marker":
                continue  # it sets the place and is no text
            run.append(EvidenceLine(number, text, sections.place))
        if run:
            runs.append(run)
        for number, piece in self.pieces.items():
            if number not in self.whole:
                runs.append([EvidenceLine(number, piece, self.named.get(number))])
        return sorted(runs, key=lambda lines: lines[0].number)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What one tool result's text holds for the evidence: a page read, or search hits (or
    neither, for results of other shapes)."""

    page: Mapping[str, Any] | None = None
    hits: Sequence[Any] | None = None


def read_result(tool: str, content: str) -> ReadResult:
    """One tool result's text, parsed (`tool`: the tool's name, empty when unknown)."""
    payload = _load(content)
    if tool in ("read_file", "") and isinstance(payload.get("document"), str):
        return ReadResult(page=payload)
    if tool in ("search_files", "") and isinstance(payload.get("results"), list):
        return ReadResult(hits=payload["results"])
    if tool == "search_files" and "results" not in payload:
        return ReadResult(hits=_salvage_hits(content))
    return ReadResult()


def read_results(messages: Sequence[Mapping[str, Any]]) -> list[ReadResult]:
    """Every tool result of OpenAI-format `messages`, parsed once, in order."""
    names: dict[str, str] = {}
    found: list[ReadResult] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            names.update(_call_names(message.get("tool_calls")))
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id")), "")
            found.append(read_result(name, _content_text(message.get("content"))))
    return found


class Evidence:
    """The documents a conversation's tool results showed, by path, in the order first seen."""

    def __init__(self) -> None:
        self.documents: dict[str, DocumentEvidence] = {}
        self.paths: set[str] = set()
        """Every path a result named, text shown or not (a search hit without snippets)."""
        self._places: dict[str, Place | None] = {}

    @classmethod
    def from_messages(cls, messages: Sequence[Mapping[str, Any]]) -> Evidence:
        return cls.from_results(read_results(messages))

    @classmethod
    def from_results(cls, results: Iterable[ReadResult]) -> Evidence:
        evidence = cls()
        for result in results:
            evidence.add(result)
        return evidence

    def document(self, path: str) -> DocumentEvidence:
        doc = self.documents.get(path)
        if doc is None:
            doc = self.documents[path] = DocumentEvidence(path)
        return doc

    def _place(self, text: object) -> Place | None:
        """The place a text form names; the same few forms recur, so each is parsed once."""
        key = text if isinstance(text, str) else ""
        if key not in self._places:
            self._places[key] = parse_place(key)
        return self._places[key]

    def add_result(self, tool: str, content: str) -> None:
        """One tool result's text (`tool`: the tool's name, empty when unknown)."""
        self.add(read_result(tool, content))

    def add(self, result: ReadResult) -> None:
        """One tool result, already parsed."""
        if result.page is not None:
            self._add_page(result.page)
        elif result.hits is not None:
            self._add_hits(result.hits)

    def _add_page(self, payload: Mapping[str, Any]) -> None:
        path = payload.get("path")
        if not isinstance(path, str) or not path:
            return
        self.paths.add(path)
        doc = self.document(path)
        first: int | None = None
        for numbered in _NUMBERED.finditer(payload["document"]):
            number = int(numbered[1])
            first = number if first is None else first
            doc.whole[number] = numbered[2]
        place = self._place(payload.get("place"))
        if first is not None and place is not None:
            doc.named[first] = place

    def _add_hits(self, results: Iterable[Any]) -> None:
        for result in results:
            if not isinstance(result, Mapping):
                continue
            path, snippets = result.get("path"), result.get("snippets")
            if isinstance(path, str):
                self.paths.add(path)
            if not isinstance(path, str) or not isinstance(snippets, list):
                continue
            doc = self.document(path)
            for snippet in snippets:
                if not isinstance(snippet, Mapping):
                    continue
                number, text = snippet.get("line"), snippet.get("text")
                if not isinstance(number, int) or not isinstance(text, str):
                    continue
                doc.pieces.setdefault(number, text.strip().strip("…").strip())
                place = self._place(snippet.get("place"))
                if place is not None:
                    doc.named.setdefault(number, place)


def _call_names(calls: object) -> dict[str, str]:
    """Tool call ids and the names of the tools they called."""
    found: dict[str, str] = {}
    if not isinstance(calls, list):
        return found
    for call in calls:
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str):
            found[str(call.get("id"))] = name
    return found


def _content_text(content: object) -> str:
    """A message's content as text (a string, or the text parts of a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text") or "") for part in content if isinstance(part, Mapping)
        )
    return ""


def _load(content: str) -> dict[str, Any]:
    """A result's JSON object; for text cut short, what can be read of its fields."""
    try:
        payload = json.loads(content)
    except ValueError:
        return _salvage(content)
    if not isinstance(payload, dict):
        return {}
    if isinstance(payload.get("partial"), str):  # a result of no known shape, cut to a head
        return _salvage(payload["partial"])
    return payload


def _salvage(text: str) -> dict[str, Any]:
    """The path, place and page text of a JSON object cut anywhere, string fields only."""
    found: dict[str, Any] = {}
    for match in _FIELD.finditer(text):
        value = _string_from(text, match.end())
        if match["key"] == "partial":
            return _salvage(value)
        found.setdefault(match["key"], value)
    return found


def _salvage_hits(text: str) -> list[dict[str, Any]]:
    """Search results from cut text: each snippet under the path written last before it."""
    hits: list[dict[str, Any]] = []
    marks = [(m.start(), m) for m in _FIELD.finditer(text) if m["key"] == "path"]
    marks += [(m.start(), m) for m in _SNIPPET.finditer(text)]
    for _, match in sorted(marks, key=lambda item: item[0]):
        if match.re is _FIELD:
            hits.append({"path": _string_from(text, match.end()), "snippets": []})
        elif hits:
            snippet = {"line": int(match["line"]), "text": _decode(match["text"])}
            if match["place"] is not None:
                snippet["place"] = _decode(match["place"])
            hits[-1]["snippets"].append(snippet)
    return hits


def _string_from(text: str, start: int) -> str:
    """The JSON string that opens at `start` (just after its quote), up to where it ends or
    the text was cut."""
    body = _JSON_STRING.match(text, start)
    return _decode(body.group() if body else "")


def _decode(raw: str) -> str:
    try:
        value = json.loads(f'"{_CUT_ESCAPE.sub("", raw)}"')
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


def pages_read(results: Iterable[ReadResult]) -> dict[str, tuple[int, ...]]:
    """Per document, the pages (of a PDF or scan) whose text the tool results showed, in page
    order: what an answer's sources line names beside the file."""
    evidence = Evidence.from_results(results)
    pages: dict[str, tuple[int, ...]] = {}
    for path, doc in evidence.documents.items():
        numbers = sorted(
            {
                line.place.page
                for run in doc.runs()
                for line in run
                if line.place and line.place.page
            }
        )
        if numbers:
            pages[path] = tuple(numbers)
    return pages
