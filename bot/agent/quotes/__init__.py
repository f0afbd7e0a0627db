"""Quotes in an answer checked against the documents the tools showed, never taken on trust.

- `verify`: `check_quotes`, each blockquote of an answer found (with its document, line and
  place) or not;
- `blockquotes`: the blockquotes of a Markdown answer and their spans in it;
- `evidence`: the document text a conversation's tool results showed, line by line with places;
- `folding`: text folded for comparison (case, ё, spaces, quote marks, dashes, Markdown marks);
- `marks`: the answer's quotes marked for the reader, in the reader's words: a found quote
  followed by its file and place, one not found flagged.

No aiogram here: the agent and the front doors show what the check found.
"""
