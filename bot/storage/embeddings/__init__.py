"""Embeddings kept in the shared database, so several machines pay for each passage once.

The store's users are the toolbox's vector builders, which call the tools' own seam
(`tools.vectors.cache.EmbeddingCache`: `get_many`, `put_many`, blocking, from the builder's
thread); without DATABASE_URL they keep embeddings in a SQLite file in DATA_DIR themselves, so
this concern has only its PostgreSQL class:

- `postgres`: `PostgresEmbeddingCache`, the seam over the shared database: (model, passage
  digest) → the packed vector, each call hopped onto the event loop that owns the pool.
"""
