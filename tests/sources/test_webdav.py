"""The WebDAV kind beyond the contract: exact bytes, names that need encoding, Nextcloud's
file ids and checksums, and where a URL's own credentials go."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import httpx

from bot.documents.sources.config import Credentials, WebdavConfig
from bot.documents.sources.kinds.webdav import WebdavSource, open_webdav
from tests.sources.servers.remote import failed_listing
from tests.sources.servers.webdav import WebdavRemote

# A Depth: 1 PROPFIND reply in Nextcloud's shape (its developer manual's WebDAV examples): hrefs
# percent-encoded, the asked-for properties the server has under a 200 propstat, those it has
# not under a 404 one, and ownCloud's checksums all in one `oc:checksum`.
CONTRACTS = "%D0%94%D0%BE%D0%B3%D0%BE%D0%B2%D0%BE%D1%80%D1%8B"  # "Договоры", percent-encoded
CHECKSUMS = (
    "SHA1:2fd4e1c67a2d28fced849ee1bb76e7391b93eb12 "
    "MD5:9e107d9d372bb6826bd81d3542a419d6 ADLER32:5bdc0fda"
)
NEXTCLOUD_ROOT = f"""<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns"
 xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
 <d:response>
  <d:href>/remote.php/dav/files/alice/Docs/</d:href>
  <d:propstat>
   <d:prop>
    <d:resourcetype><d:collection/></d:resourcetype>
    <d:getetag>&quot;65f1c0a2b7e41&quot;</d:getetag>
    <d:getlastmodified>Wed, 13 Mar 2024 09:12:02 GMT</d:getlastmodified>
    <oc:fileid>383</oc:fileid>
   </d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
  <d:propstat>
   <d:prop><d:getcontentlength/><oc:checksums/></d:prop>
   <d:status>HTTP/1.1 404 Not Found</d:status>
  </d:propstat>
 </d:response>
 <d:response>
  <d:href>/remote.php/dav/files/alice/Docs/{CONTRACTS}/</d:href>
  <d:propstat>
   <d:prop>
    <d:resourcetype><d:collection/></d:resourcetype>
    <d:getetag>&quot;65f1c0a2b1f07&quot;</d:getetag>
    <d:getlastmodified>Wed, 13 Mar 2024 09:10:40 GMT</d:getlastmodified>
    <oc:fileid>401</oc:fileid>
   </d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
  <d:propstat>
   <d:prop><d:getcontentlength/><oc:checksums/></d:prop>
   <d:status>HTTP/1.1 404 Not Found</d:status>
  </d:propstat>
 </d:response>
 <d:response>
  <d:href>/remote.php/dav/files/alice/Docs/Q1%20%26%20Q2%20report.pdf</d:href>
  <d:propstat>
   <d:prop>
    <d:resourcetype/>
    <d:getcontentlength>48213</d:getcontentlength>
    <d:getetag>&quot;0a3c62fb9d1e4f1b8e2b3c1a7e7f5d21&quot;</d:getetag>
    <d:getlastmodified>Tue, 12 Mar 2024 16:45:31 GMT</d:getlastmodified>
    <oc:fileid>417</oc:fileid>
    <oc:checksums><oc:checksum>{CHECKSUMS}</oc:checksum></oc:checksums>
   </d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
 </d:response>
</d:multistatus>
"""
NEXTCLOUD_FOLDER = f"""<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">
 <d:response>
  <d:href>/remote.php/dav/files/alice/Docs/{CONTRACTS}/</d:href>
  <d:propstat>
   <d:prop><d:resourcetype><d:collection/></d:resourcetype><oc:fileid>401</oc:fileid></d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
 </d:response>
 <d:response>
  <d:href>/remote.php/dav/files/alice/Docs/{CONTRACTS}/lease.txt</d:href>
  <d:propstat>
   <d:prop>
    <d:resourcetype/>
    <d:getcontentlength>12</d:getcontentlength>
    <d:getetag>&quot;c0ffee&quot;</d:getetag>
    <d:getlastmodified>Mon, 11 Mar 2024 08:00:00 GMT</d:getlastmodified>
    <oc:fileid>402</oc:fileid>
   </d:prop>
   <d:status>HTTP/1.1 200 OK</d:status>
  </d:propstat>
  <d:propstat>
   <d:prop><oc:checksums/></d:prop>
   <d:status>HTTP/1.1 404 Not Found</d:status>
  </d:propstat>
 </d:response>
</d:multistatus>
"""


async def test_a_fetch_writes_the_exact_bytes(remote_webdav: WebdavRemote, tmp_path: Path) -> None:
    data = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + secrets.token_bytes(300_000) + b"\n%%EOF\n"
    remote_webdav.put_bytes("scans/contract.pdf", data)
    source = remote_webdav.source()
    try:
        [item] = await source.listing()
        target = tmp_path / "mirror" / "scans" / ".contract.pdf.part"
        target.parent.mkdir(parents=True)
        await source.fetch(item, target)
        assert target.read_bytes() == data
        assert item.size == len(data)
    finally:
        await source.close()


async def test_the_servers_file_id_is_the_item_id(remote_webdav: WebdavRemote) -> None:
    remote_webdav.put("hr/leave.txt", "28 days")
    source = remote_webdav.source()
    try:
        [item] = await source.listing()
        assert item.item_id == str(os.stat(remote_webdav.root / "hr/leave.txt").st_ino)
        assert item.path == "hr/leave.txt"
    finally:
        await source.close()


async def test_names_that_need_encoding_are_listed_and_fetched(
    remote_webdav: WebdavRemote, tmp_path: Path
) -> None:
    name = "Договоры 2026/Q1 & Q2 50% #final (v2)+.txt"
    remote_webdav.put(name, "signed")
    source = remote_webdav.source()
    try:
        [item] = await source.listing()
        assert item.path == name
        await source.fetch(item, tmp_path / "t")
        assert (tmp_path / "t").read_text() == "signed"
    finally:
        await source.close()


async def test_a_folder_that_is_not_there_is_missing(remote_webdav: WebdavRemote) -> None:
    config = WebdavConfig(
        name="nextcloud",
        kind="webdav",
        url=remote_webdav.url + "No%20such%20folder/",
        username="alice",
        password_env="PW",
    )
    source = open_webdav(config, Credentials({"PW": remote_webdav.password}))
    error = await failed_listing(source)
    assert error.problem == "missing"
    assert str(error) == "WebDAV 127.0.0.1: the folder is not there (HTTP 404)"


async def test_credentials_in_the_url_log_in_and_never_show(remote_webdav: WebdavRemote) -> None:
    remote_webdav.put("a.txt", "a")
    netloc = f"alice:{remote_webdav.password}@"
    good = WebdavConfig(
        name="nc", kind="webdav", url=remote_webdav.url.replace("//", "//" + netloc)
    )
    source = open_webdav(good, Credentials({}))
    try:
        assert len(await source.listing()) == 1
        assert remote_webdav.password not in repr(source)
    finally:
        await source.close()
    wrong = good.model_copy(update={"url": good.url.replace(remote_webdav.password, "nope-x")})
    source = open_webdav(wrong, Credentials({}))
    error = await failed_listing(source)
    assert error.problem == "auth"
    assert "nope-x" not in str(error)
    assert "nope-x" not in repr(source)


async def test_a_nextcloud_reply_gives_file_ids_checksums_and_decoded_paths() -> None:
    asked: list[tuple[str, str, bytes]] = []

    def nextcloud(request: httpx.Request) -> httpx.Response:
        asked.append((request.method, request.url.raw_path.decode(), request.content))
        body = NEXTCLOUD_FOLDER if CONTRACTS in request.url.raw_path.decode() else NEXTCLOUD_ROOT
        return httpx.Response(207, text=body)

    base = httpx.URL("https://cloud.example.com/remote.php/dav/files/alice/Docs/")
    source = WebdavSource("nextcloud", base, ("alice", "pw"), 5, httpx.MockTransport(nextcloud))
    try:
        items = {item.path: item for item in await source.listing()}
    finally:
        await source.close()
    assert set(items) == {"Q1 & Q2 report.pdf", "Договоры/lease.txt"}
    report = items["Q1 & Q2 report.pdf"]
    assert report.item_id == "417"
    assert report.size == 48213
    assert report.version == '"0a3c62fb9d1e4f1b8e2b3c1a7e7f5d21"'
    assert report.content_hash == "sha1:2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"
    assert report.modified == 1710261931.0
    lease = items["Договоры/lease.txt"]
    assert (lease.item_id, lease.size, lease.content_hash) == ("402", 12, None)
    assert [method for method, _, _ in asked] == ["PROPFIND", "PROPFIND"]
    assert asked[1][1] == f"/remote.php/dav/files/alice/Docs/{CONTRACTS}/"
    assert all(b"<oc:fileid/>" in body and b"<oc:checksums/>" in body for _, _, body in asked)
