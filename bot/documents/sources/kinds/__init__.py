"""The kinds of source, one module each (`webdav`, `s3`, `imap`, `rclone`), each exposing
`open_<kind>(config, credentials) -> Source`. Nothing is imported here, so a kind's client
library (webdav4, boto3, aioimaplib, the rclone binary) loads only when a source of that kind is
opened: an install that mirrors one WebDAV folder never imports boto3. Beside them, `imap_names`
names a message's file and its attachments, `imap_wire` reads an IMAP reply, `imap_structure`
finds a message's attachments in its BODYSTRUCTURE, and `rclone_errors` words what rclone's
stderr means.
"""
