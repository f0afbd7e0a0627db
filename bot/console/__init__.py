"""The front doors on a terminal, none of which imports aiogram.

- `terminal/`: `python -m bot chat`, questions asked and answered in the terminal;
- `check/`: `python -m bot check`, the settings then the real things tried, one line each;
- `evaluation/`: `python -m bot eval`, a file of questions asked, the answers checked and
  models compared.
"""
