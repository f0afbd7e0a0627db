"""Voice questions: speech to text before the agent sees them.

- `transcription`: `Transcriber` over any OpenAI-compatible transcription endpoint, its failures
  as the agent's own error families.
"""
