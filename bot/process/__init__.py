"""What the running process shows the world outside it, the floor everything else stands on.

- `data_files`: every file the bot keeps in DATA_DIR, named in one place;
- `heartbeat`: the file a running bot keeps fresh for `python -m bot.healthcheck`;
- `exit_codes`: what each exit code tells whatever restarts the bot;
- `version`: the installed version, for `--version` and `/status`;
- `ticker`: the background loop around a step that tests call with a clock they move;
- `setting_files`: the operator's files a setting names, read with one wording for failures;
- `heap`: the start-up heap set aside from the cycle collector while the bot runs;
- `logs/`: text or JSON lines, each with its conversation, secrets masked.
"""
