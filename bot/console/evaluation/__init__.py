"""`python -m bot eval`: a file of questions asked through the bot's own agent, the answers
checked, the models compared. A front door; no aiogram.

- `run`: the front door (`serve`): each model in turn, the table, the reports, the exit code;
- `questions`: the TOML file of questions, validated, each problem named with its place;
- `asking`: each question in a conversation of its own, a bounded number at a time;
- `grading`: whether an answer has the facts it must, lacks those it must not, read the files;
- `results`: one question's outcome, as the table, the reports and the state file keep it;
- `summary`: a model's results added up (accuracy, citing, quotes, tokens, cost, p50/p95);
- `report`: the table for the terminal, the Markdown report and the JSON;
- `state`: the `--resume` file, one JSON line per finished question;
- `progress`: the progress bar on standard error, only on a terminal.
"""
