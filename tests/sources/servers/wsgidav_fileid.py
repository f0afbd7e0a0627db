"""A wsgidav folder that answers `oc:fileid` as Nextcloud and ownCloud do.

Nextcloud gives every file a number that stays with it through renames and moves; here the
file's inode plays that part, since a rename on disk keeps it. The number is a live property,
sent only when a PROPFIND asks for it, as Nextcloud does. Loaded by the wsgidav server the
WebDAV fixture starts (`provider_mapping` names this class), never by the tests themselves.
"""

from __future__ import annotations

import os
from typing import Any

from wsgidav.fs_dav_provider import FileResource, FilesystemProvider, FolderResource

FILEID = "{http://owncloud.org/ns}fileid"


class _FileId:
    """Adds `oc:fileid` (the inode) to a file's or a folder's properties."""

    _file_path: str

    def get_property_names(self, *, is_allprop: bool) -> list[str]:
        names: list[str] = super().get_property_names(is_allprop=is_allprop)  # type: ignore[misc]
        return [*names, FILEID]

    def get_property_value(self, name: str) -> Any:
        if name == FILEID:
            return str(os.stat(self._file_path).st_ino)
        return super().get_property_value(name)  # type: ignore[misc]


class _File(_FileId, FileResource):  # type: ignore[misc]
    pass


class _Folder(_FileId, FolderResource):  # type: ignore[misc]
    pass


class FileIdProvider(FilesystemProvider):  # type: ignore[misc]
    """A `FilesystemProvider` whose files and folders carry `oc:fileid`."""

    def get_resource_inst(self, path: str, environ: dict[str, Any]) -> Any:
        found = super().get_resource_inst(path, environ)
        if isinstance(found, FolderResource):
            return _Folder(path, environ, found._file_path)
        if isinstance(found, FileResource):
            return _File(path, environ, found._file_path)
        return found
