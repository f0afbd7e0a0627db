"""The search index: documents' words and names, kept in step with the documents folder.

- `indexer`: `Indexer`, which builds the index and keeps it in step with the folder;
- `prepare`: one file made ready for the index (extracted, folded, compressed);
- `prepare_pool`, `prepare_child`: child processes that prepare a large pass's plain files,
  so a build uses every core;
- `store`: the index on disk (an SQLite file of documents beside their terms) and its names in
  DATA_DIR;
- `term_index`: the terms of names and contents in Tantivy, and the queries' fields;
- `terms`: words to index terms (folded, split, stemmed);
- `languages`: which languages the indexed documents are written in;
- `globs`: name globs matched against the paths, case- and ё-folded;
- `snippets`: the lines of a document where the query words occur;
- `states`: each visible document indexed, failed (with why) or waiting, for admins;
- `watch`: the changes in the documents folder, as the OS reports them;
- `writer_lock`: one writer for an index several processes share;
- `rebuild_request`: a rebuild asked of that writer from another process (`reindex` beside a
  running bot);
- `allocator`: keeps the C allocator from holding memory a build has finished with.

Imports the jail and extraction below it, nothing of the tools above (`tools.errors` aside).
"""
