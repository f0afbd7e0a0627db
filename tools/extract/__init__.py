"""Text from documents: plain formats in the calling thread, risky ones in an isolated worker.

- `extractor`: `Extractor`, a document's text by its format, bounded in size and lines;
- `isolated`: the parent side of the worker, one child process restarted when it misbehaves;
- `worker`: the child process (`python -m tools.extract.worker`) that runs the parsers under
  memory and time limits;
- `formats/`: which route a file takes by its name, and the parsers the worker runs;
- `cache`: extracted documents kept in memory, so paging a long PDF parses it once;
- `page_pictures`: single pages of PDFs and scans drawn as JPEGs by a worker of their own,
  kept in memory;
- `encodings`: bytes to text, the old Russian code pages included;
- `htmltext`: the visible text of an HTML page;
- `places`: the page, sheet, slide or heading a line lies in, the one grammar of the place
  markers extraction writes and everything after it reads.

Imports nothing of `tools` but the floor (`tools.errors`).
"""
