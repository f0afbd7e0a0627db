"""The jail: the one way from a path the model sent to a file of the documents folder.

- `sandbox`: `Sandbox`, which resolves every path inside the documents folder, refuses what
  would leave it or reach a hidden or reserved file, and walks the visible entries;
- `scope`: `Scope`, the folders one question may see, which narrows the jail;
- `documents_folder`: what is wrong with the documents folder, in the one wording every front
  door uses.

Imports nothing of `tools` but the floor (`tools.errors`, `tools.jsontext`).
"""
