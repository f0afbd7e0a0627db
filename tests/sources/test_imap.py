"""What only a mailbox does: messages named by month, UID and subject, read as the bot reads an
`.eml`, their attachments readable files beside them, never marked as read, and every id
changed when the folder's UIDVALIDITY changes."""

from __future__ import annotations

import imaplib
import io
import json
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from bot.documents.sources.mirror import Mirror
from bot.documents.sources.remote import RemoteItem, Source, SourceError
from bot.documents.sources.state import StateStore
from bot.documents.trash import Trash
from tests.sources.servers.imap import PASSWORD, USER, DovecotRemote, dovecot
from tests.sources.servers.remote import failed_listing
from tools import Toolbox
from tools.config import ToolSettings
from tools.extract.extractor import Extractor, Limits


@pytest.fixture
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot with an empty folder `Archive` beside the INBOX (the INBOX cannot be recreated)."""
    yield from dovecot(tmp_path_factory.mktemp("imap"), mailbox="Archive")


@pytest.fixture
def over_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot answering IMAP over TLS with a certificate of its own, no CA's."""
    if shutil.which("openssl") is None:
        pytest.skip("install openssl (apt-get install openssl)")
    yield from dovecot(tmp_path_factory.mktemp("imaps"), tls=True)


@pytest.fixture
def no_binary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot not saying it decodes parts (RFC 3516 BINARY), as many servers do not."""
    yield from dovecot(tmp_path_factory.mktemp("imap"), binary=False)


def _pdf(text: str) -> bytes:
    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, text)
    page.save()
    return out.getvalue()


def _with_report() -> bytes:
    message = EmailMessage()
    message["Subject"] = "=?utf-8?b?0J7RgtGH0ZHRgiDQt9CwIDEvMjAyNjogKtC40YLQvtCz0LgqPw==?="
    message["From"] = "Finance <finance@example.com>"
    message["To"] = f"{USER}@example.com"
    message.set_content("The quarterly report is attached.")
    message.add_attachment(
        _pdf("Revenue grew by 12 percent"),
        maintype="application",
        subtype="pdf",
        filename="report.pdf",
    )
    return message.as_bytes()


async def test_a_message_is_an_eml_named_by_month_uid_and_subject_and_read_by_the_reader(
    remote_imap: DovecotRemote, tmp_path: Path
) -> None:
    remote_imap.append(_with_report())
    source = remote_imap.source()
    try:
        item, _ = await source.listing()
        target = tmp_path / "message.eml"
        await source.fetch(item, target)
    finally:
        await source.close()
    month, name = item.path.split("/")
    assert len(month) == 7 and month[4] == "-"
    assert name == "1 Отчёт за 1 2026 итоги.eml"
    assert item.item_id.endswith(":1")
    assert item.size == target.stat().st_size
    extractor = Extractor(Limits())
    try:
        text = extractor.extract(target)
    finally:
        extractor.close()
    assert "Subject: Отчёт за 1/2026: *итоги*?" in text
    assert "The quarterly report is attached." in text
    assert "report.pdf (application/pdf," in text


async def test_fetching_leaves_the_message_unread(
    remote_imap: DovecotRemote, tmp_path: Path
) -> None:
    remote_imap.put("Unread", "still unread")
    source = remote_imap.source()
    try:
        [item] = await source.listing()
        await source.fetch(item, tmp_path / "message.eml")
    finally:
        await source.close()
    person = imaplib.IMAP4("127.0.0.1", remote_imap.port)
    try:
        person.login(USER, PASSWORD)
        person.select("INBOX", readonly=True)
        _, flags = person.fetch("1", "(FLAGS)")
    finally:
        person.logout()
    assert isinstance(flags[0], bytes)
    assert b"\\Seen" not in flags[0]


async def test_a_new_uidvalidity_changes_every_id(archive: DovecotRemote) -> None:
    archive.put("first", "one")
    archive.put("second", "two")
    source = archive.source()
    try:
        before = await source.listing()
        archive.recreate()
        after = await source.listing()
    finally:
        await source.close()
    assert len(before) == len(after) == 2
    assert {i.item_id.split(":")[0] for i in before} != {i.item_id.split(":")[0] for i in after}
    assert not {i.item_id for i in before} & {i.item_id for i in after}


async def test_a_missing_folder_is_named(remote_imap: DovecotRemote) -> None:
    remote_imap.mailbox = "No such folder"
    source = remote_imap.source()
    error = await failed_listing(source)
    assert error.problem == "missing"
    assert "'No such folder'" in str(error)


async def test_tls_trusts_only_a_certificate_the_system_trusts(
    over_tls: DovecotRemote, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    over_tls.put("Over TLS", "sealed")
    source = over_tls.source()
    try:
        with pytest.raises(SourceError) as caught:
            await source.listing()
        assert caught.value.problem == "unreachable"
        assert "TLS handshake failed" in str(caught.value)
        monkeypatch.setenv("SSL_CERT_FILE", str(over_tls.certificate))
        [item] = await source.listing()
        await source.fetch(item, tmp_path / "message.eml")
    finally:
        await source.close()
    assert b"sealed" in (tmp_path / "message.eml").read_bytes()


async def test_a_large_folder_is_listed_whole(remote_imap: DovecotRemote) -> None:
    remote_imap.deliver(2_500)
    source = remote_imap.source()
    try:
        items = await source.listing()
    finally:
        await source.close()
    assert len(items) == 2_500
    assert len({i.item_id for i in items}) == len({i.path for i in items}) == 2_500


def _read(path: Path) -> str:
    extractor = Extractor(Limits())
    try:
        return extractor.extract(path)
    finally:
        extractor.close()


async def _fetched(source: Source, tmp_path: Path) -> dict[str, tuple[RemoteItem, bytes]]:
    """Every item of a listing by path, with the bytes its fetch writes."""
    found: dict[str, tuple[RemoteItem, bytes]] = {}
    try:
        for number, item in enumerate(await source.listing()):
            target = tmp_path / f"fetched-{number}"
            await source.fetch(item, target)
            found[item.path.split("/", 1)[1]] = (item, target.read_bytes())
    finally:
        await source.close()
    return found


def _unread(remote: DovecotRemote) -> bool:
    person = imaplib.IMAP4("127.0.0.1", remote.port)
    try:
        person.login(USER, PASSWORD)
        person.select("INBOX", readonly=True)
        _, flags = person.fetch("1:*", "(FLAGS)")
    finally:
        person.logout()
    return all(isinstance(line, bytes) and b"\\Seen" not in line for line in flags)


class TestAttachments:
    async def test_a_pdf_is_listed_beside_the_message_and_its_text_is_read(
        self, remote_imap: DovecotRemote, tmp_path: Path
    ) -> None:
        remote_imap.append(_with_report())
        found = await _fetched(remote_imap.source(), tmp_path)
        assert set(found) == {"1 Отчёт за 1 2026 итоги.eml", "1 Отчёт за 1 2026 итоги/report.pdf"}
        message, _ = found["1 Отчёт за 1 2026 итоги.eml"]
        pdf, data = found["1 Отчёт за 1 2026 итоги/report.pdf"]
        assert pdf.item_id == f"{message.item_id}/2"
        assert pdf.version == message.version
        assert pdf.modified == message.modified
        assert pdf.size == len(data)
        placed = tmp_path / "report.pdf"
        placed.write_bytes(data)
        assert "Revenue grew by 12 percent" in _read(placed)
        assert _unread(remote_imap)

    async def test_two_attachments_of_one_name_are_both_kept(
        self, remote_imap: DovecotRemote, tmp_path: Path
    ) -> None:
        message = EmailMessage()
        message["Subject"] = "Twice"
        message.set_content("Two versions.")
        for text in ("first draft", "second draft"):
            message.add_attachment(text.encode(), "application", "octet-stream", filename="a.txt")
        remote_imap.append(message.as_bytes())
        found = await _fetched(remote_imap.source(), tmp_path)
        assert found["1 Twice/a.txt"][1] == b"first draft"
        assert found["1 Twice/a (2).txt"][1] == b"second draft"

    async def test_cyrillic_names_in_either_encoding_and_a_nameless_part(
        self, remote_imap: DovecotRemote, tmp_path: Path
    ) -> None:
        message = EmailMessage()
        message["Subject"] = "Names"
        message.set_content("Three files.")
        message.add_attachment(
            b"by RFC 2231", "application", "octet-stream", filename="Договор поставки.txt"
        )
        message.add_attachment(b"encoded word", "application", "octet-stream", filename="x")
        message.add_attachment(b"no name", "application", "pdf")
        raw = message.as_bytes().replace(
            b'filename="x"', b'filename="=?utf-8?b?0KHRh9GR0YIg4oSWIDUucGRm?="'
        )
        remote_imap.append(raw)
        found = await _fetched(remote_imap.source(), tmp_path)
        assert found["1 Names/Договор поставки.txt"][1] == b"by RFC 2231"
        assert found["1 Names/Счёт № 5.pdf"][1] == b"encoded word"
        assert found["1 Names/attachment-3.pdf"][1] == b"no name"

    async def test_inline_parts_without_a_name_are_not_attachments(
        self, remote_imap: DovecotRemote, tmp_path: Path
    ) -> None:
        message = EmailMessage()
        message["Subject"] = "Newsletter"
        message.set_content("plain body")
        message.add_alternative("<p>html body</p>", subtype="html")
        html = message.get_body(("html",))
        assert isinstance(html, EmailMessage)
        html.add_related(b"\x89PNG", "image", "png", cid="<logo>")
        remote_imap.append(message.as_bytes())
        found = await _fetched(remote_imap.source(), tmp_path)
        assert list(found) == ["1 Newsletter.eml"]

    async def test_a_server_that_does_not_decode_parts_gets_them_decoded_here(
        self, no_binary: DovecotRemote, tmp_path: Path
    ) -> None:
        message = EmailMessage()
        message["Subject"] = "Plain server"
        message.set_content("See the files.")
        costs = _pdf("Costs fell by 3 percent")
        message.add_attachment(costs, "application", "pdf", filename="c.pdf")
        message.add_attachment("Итого: 5 €\n", filename="notes.txt", cte="quoted-printable")
        no_binary.append(message.as_bytes())
        found = await _fetched(no_binary.source(), tmp_path)
        pdf, data = found["1 Plain server/c.pdf"]
        assert data == costs
        assert pdf.size == -1
        notes, text = found["1 Plain server/notes.txt"]
        assert text.decode().splitlines() == ["Итого: 5 €"]
        assert _unread(no_binary)

    async def test_a_message_deleted_at_the_source_takes_its_attachments_from_answers(
        self, remote_imap: DovecotRemote, tmp_path: Path
    ) -> None:
        remote_imap.put("Keep", "an ordinary message")
        remote_imap.append(_with_report())
        root = (tmp_path / "sandbox").resolve()
        root.mkdir()
        toolbox = Toolbox(
            ToolSettings(sandbox_dir=root, data_dir=tmp_path / "data"),
            watch="rescan",
            watch_interval=3600,
        )
        source = remote_imap.source()
        await toolbox.start()
        try:
            await toolbox.wait_ready()
            mirror = Mirror(
                source,
                folder="mail",
                root=root,
                store=StateStore(tmp_path / "data" / "sources"),
                trash=Trash(root),
                max_delete_percent=100,
                refresh=toolbox.refresh,
            )
            first = await mirror.run_pass()
            assert (first.report.added, first.report.ok) == (3, True)
            [found] = await _found(toolbox, "Revenue")
            assert found.endswith("/2 Отчёт за 1 2026 итоги/report.pdf")
            assert _unread(remote_imap)
            _expunge(remote_imap, 2)
            second = await mirror.run_pass()
            assert await _found(toolbox, "Revenue") == []
        finally:
            await toolbox.close()
            await source.close()
        assert second.report.removed == 2
        left = sorted((root / "mail").rglob("*"))
        assert [p.name for p in left if p.is_file()] == ["1 Keep.eml"]
        assert not any("Отчёт" in p.name for p in left)


async def _found(toolbox: Toolbox, word: str) -> list[str]:
    raw = (await toolbox.execute("search_files", {"query": word})).text
    return [str(r["path"]) for r in json.loads(raw).get("results") or []]


def _expunge(remote: DovecotRemote, uid: int) -> None:
    person = imaplib.IMAP4("127.0.0.1", remote.port)
    try:
        person.login(USER, PASSWORD)
        person.select("INBOX")
        person.uid("STORE", str(uid), "+FLAGS", "(\\Deleted)")
        person.expunge()
    finally:
        person.logout()
