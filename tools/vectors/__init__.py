"""Search by meaning: passages of the documents, their embeddings and the index of them.

- `builder`: keeps the vector index in step with the keyword index, in a thread of its own;
- `store`: the vector index on disk (a memory-mapped matrix searched exactly, within a scope);
- `codes`: the rows' sign-bit codes in memory and the Hamming prefilter of large searches;
- `cache`: embeddings already paid for, by model and passage digest (`EmbeddingCache`);
- `embeddings`: the OpenAI-compatible `/embeddings` client (`EmbeddingsConfig`), which checks
  each reply holds one vector per text;
- `backoff`: how long the build waits after failed looks, longer after each in a row;
- `passages`: documents cut into passages along their pages, sheets, headings and paragraphs;
- `centre`: the folder's mean passage vector, partly taken from each query (`FolderCentre`);
- `fusion`: keyword and meaning results merged, trusting each side as far as its evidence goes;
- `rerank`: the reranker client (`RerankConfig`), which reorders a search's best candidates and
  keeps the fused order on any failure; `rerank_wire`: the two dialects it speaks;
- `state`: the vector side's file names in DATA_DIR and its progress (`VectorStatus`);
- `progress`: a build's progress as lines on a terminal (`python -m tools reindex`).

Imports the index (its stored texts) and the floor (`places`), nothing of the tools above.
"""
