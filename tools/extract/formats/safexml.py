"""XML from inside documents, parsed without entity expansion or external references.

A document's XML is written by whoever made the file: a declared entity could expand a few
bytes into gigabytes, and an external one could name a file on the server. defusedxml refuses
both, and `blocks` streams a large part so only one block of it is in memory at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring, iterparse

from tools.extract.formats.base import FormatError


def parse(data: bytes, kind: str) -> Element:
    """The root element of an XML part."""
    try:
        return fromstring(data)
    except DefusedXmlException:
        raise FormatError(f"the {kind} file declares XML entities (refused)") from None
    except ParseError:
        raise FormatError(f"the {kind} file is damaged (broken XML)") from None


def blocks(stream: IO[bytes], container: str, kind: str) -> Iterator[Element]:
    """Each complete child of every `container` element, streamed: a child is dropped from
    memory once the caller has moved on to the next."""
    open_containers: list[Element] = []
    depth_of: list[int] = []
    depth = 0
    try:
        for event, element in iterparse(stream, events=("start", "end")):
            if event == "start":
                depth += 1
                if element.tag == container:
                    open_containers.append(element)
                    depth_of.append(depth)
                continue
            depth -= 1
            if depth_of and depth == depth_of[-1]:
                yield element
                open_containers[-1].remove(element)
            elif element.tag == container and depth_of and depth == depth_of[-1] - 1:
                open_containers.pop()
                depth_of.pop()
    except DefusedXmlException:
        raise FormatError(f"the {kind} file declares XML entities (refused)") from None
    except ParseError:
        raise FormatError(f"the {kind} file is damaged (broken XML)") from None


def local(tag: str) -> str:
    """A tag's name without its namespace."""
    return tag.rsplit("}", 1)[-1]
