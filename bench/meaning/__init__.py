"""The meaning benchmark's folder and questions: does search find what people mean?

- `documents`: the company rules the questions are about, written out by hand;
- `corpus`: the folder around them (a few hundred other documents, some English), generated;
- `sets`: the two query sets (`paraphrase.json`, `keyword.json`), loading them, building the
  folder, and the word stems a query shares with its files.
"""
