"""Document formats: which route a file takes by its name (`kinds`) and the parsers that the
isolated worker runs for the risky ones (`registry`), one module per family of formats.

- `kinds`: a file's kind and route by the suffix of its name;
- `registry`: kind → parser, for every kind the worker reads;
- `base`: what every parser shares: its error, its budget, a collector of lines;
- `pdf`: PDF text layers, pages without one recognised by OCR;
- `word`: docx paragraphs and tables;
- `legacy`: Word 97–2003 (.doc) through a converter installed on the machine;
- `rtf`: RTF text without control words;
- `sheets`: spreadsheets (xlsx, xls, ods), a section per sheet;
- `sheet_extent`: how many cells each sheet spans, found before the reader runs;
- `slides`: pptx slide decks, slide by slide;
- `odf`: OpenDocument text and presentations;
- `epub`: EPUB e-books, chapters in reading order;
- `mail`: e-mail messages (.eml): headers, body, attachments listed;
- `images`: images recognised by OCR, frame by frame;
- `pictures`: one page of a PDF or frame of a scan drawn as a JPEG to show in a chat;
- `ocr`: Tesseract, run on one page image at a time;
- `scans`: recognising a scan page by page within the worker's deadline;
- `ocrnote`: the line that marks text recognised from a scan, read back by the bot;
- `archive`: zip-based formats opened only after a bomb check;
- `safexml`: XML from inside documents, without entity expansion.

Nothing here is imported by the bot's own process except `kinds` and `ocrnote`: the parsers
and their libraries load only inside the worker.
"""
