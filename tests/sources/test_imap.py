"""What only a mailbox does: messages named by month, UID and subject, read as the bot reads an
`.eml`, never marked as read, and every id changed when the folder's UIDVALIDITY changes."""

from __future__ import annotations

import imaplib
import io
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from bot.documents.sources.remote import SourceError
from tests.sources.servers.imap import DOVECOT, PASSWORD, USER, DovecotRemote
from tools.extract.extractor import Extractor, Limits


@pytest.fixture
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot with an empty folder `Archive` beside the INBOX (the INBOX cannot be recreated)."""
    if not DOVECOT.exists():
        pytest.skip("install dovecot-imapd (apt-get install dovecot-imapd)")
    remote = DovecotRemote(tmp_path_factory.mktemp("imap"), mailbox="Archive")
    try:
        yield remote
    finally:
        remote.stop()


@pytest.fixture
def over_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot answering IMAP over TLS with a certificate of its own, no CA's."""
    if not DOVECOT.exists():
        pytest.skip("install dovecot-imapd (apt-get install dovecot-imapd)")
    if shutil.which("openssl") is None:
        pytest.skip("install openssl (apt-get install openssl)")
    remote = DovecotRemote(tmp_path_factory.mktemp("imaps"), tls=True)
    try:
        yield remote
    finally:
        remote.stop()


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
        [item] = await source.listing()
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
    try:
        with pytest.raises(SourceError) as caught:
            await source.listing()
    finally:
        await source.close()
    assert caught.value.problem == "missing"
    assert "'No such folder'" in str(caught.value)


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
