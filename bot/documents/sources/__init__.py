"""Documents that live elsewhere, mirrored into subfolders of the documents folder.

Each configured source (WebDAV, S3, an IMAP mailbox, any rclone remote) is listed and copied
into its own folder under SANDBOX_DIR, so search, quotes, scopes, notices, the trash and the
audit work on it unchanged.

- `remote`: the seam every kind implements (a complete listing, a fetch of one item);
  `kinds/`: one module per kind; `registry`: a source's table to its kind's opened `Source`;
- `config`: the sources file (SOURCES_FILE) and the credentials it names;
- `mirror`: one pass, listing → `plan` → applied to the folder (`folder`: path checks and the
  scan), its deletion guard included; `state`: what each source's mirror placed, in DATA_DIR;
- `runner`: the sources of one process, their status and background loops, one pass at a time
  per source (`locks`); `health`: when the admins hear that a source broke or works again;
  `command`: `python -m bot sources list|sync|check`.
"""
