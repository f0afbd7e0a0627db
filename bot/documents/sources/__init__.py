"""Documents that live elsewhere, mirrored into subfolders of the documents folder.

Each configured source (WebDAV, S3, an IMAP mailbox, any rclone remote) is listed and copied
into its own folder under SANDBOX_DIR, so search, quotes, scopes, notices, the trash and the
audit work on it unchanged. `remote` is the seam every kind implements.
"""
