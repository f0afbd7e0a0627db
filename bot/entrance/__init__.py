"""The entrance hall: what `python -m bot` does before any front door opens.

- `cli`: the commands, their options and the help (every setting listed from the model);
- `loading`: the settings of a command read, every problem with them gathered into one list
  (the system prompt the agent will use is checked here too).

`bot.__main__` reads these, then opens one front door by module name; the door of the container's
probe, `python -m bot.healthcheck`, stands beside it.
"""
