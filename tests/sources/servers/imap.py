"""A real IMAP server for the contract suite: Debian's dovecot, run in the foreground on loopback.

Everything it keeps (sockets, state, the maildir, its log) is under the test's temporary folder;
one user logs in with a plain password, without TLS. Run as root (as here and in CI), dovecot
refuses to read mail as root, so the mail lives in a chroot owned by dovecot's own user.
The person at the source is Python's `imaplib`, talking to dovecot directly; our source talks
through the `CuttingProxy`.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import socket
import subprocess
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from bot.documents.sources.config import ImapConfig
from bot.documents.sources.remote import Source
from tests.fakes.ports import free_port
from tests.sources.servers.cutting_proxy import CuttingProxy
from tests.sources.servers.listening import end
from tests.sources.servers.remote import Abilities, BehindProxy, Configured

DOVECOT = Path("/usr/sbin/dovecot")
USER = "alice"
PASSWORD = "imap-test-Pa55word"
_PASSWORD_ENV = "IMAP_TEST_PASSWORD"
_READY_S = 20.0


def certificate(root: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made by the openssl program."""
    cert, key = root / "cert.pem", root / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def _config(root: Path, port: int, tls_port: int | None, *, binary: bool = True) -> str:
    """dovecot.conf for one user, maildir under `root`, plain IMAP on 127.0.0.1:`port`, and
    IMAP over TLS on `tls_port` when there is one; without `binary`, dovecot does not say it
    decodes parts (RFC 3516), as many servers do not."""
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::::\n")
    if os.geteuid() == 0:
        owner = pwd.getpwnam("dovecot")
        home = root / "mail" / USER
        home.mkdir(parents=True)
        for folder in (root / "mail", home):
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        users = f"""
default_internal_user = root
default_internal_group = root
default_login_user = dovenull
first_valid_uid = {owner.pw_uid}
first_valid_gid = {owner.pw_gid}
valid_chroot_dirs = {root}
mail_chroot = {root / "mail"}
mail_location = maildir:~/Maildir
userdb {{
  driver = static
  args = uid={owner.pw_uid} gid={owner.pw_gid} home=/{USER}
}}
"""
    else:
        me = pwd.getpwuid(os.getuid()).pw_name
        users = f"""
default_internal_user = {me}
default_login_user = {me}
first_valid_uid = {os.getuid()}
mail_location = maildir:{root}/mail/%u
service imap-login {{
  chroot =
}}
service anvil {{
  chroot =
}}
userdb {{
  driver = static
  args = uid={os.getuid()} gid={os.getgid()} home={root}/mail/%u
}}
"""
    return f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
{"ssl = no" if tls_port is None else _ssl(root)}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
{"" if binary else "imap_capability = IMAP4rev1 SASL-IR LOGIN-REFERRALS ID IDLE LITERAL+"}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port or 0}
  }}
}}
{users}
"""


def _ssl(root: Path) -> str:
    cert, key = certificate(root)
    return f"ssl = yes\nssl_cert = <{cert}\nssl_key = <{key}"


class DovecotRemote(BehindProxy):
    """A dovecot holding one user's mailbox; `put` appends a message, `delete` expunges it."""

    kind = "imap"
    abilities = Abilities(paths=False, change=False, rename=False)

    def __init__(
        self, root: Path, mailbox: str = "INBOX", *, tls: bool = False, binary: bool = True
    ) -> None:
        self.mailbox = mailbox
        self._root = root
        self.port = free_port()
        """dovecot's own port, for the person at the source (the proxy's is the source's)."""
        conf = root / "dovecot.conf"
        self.tls_port = free_port() if tls else None
        conf.write_text(_config(root, self.port, self.tls_port, binary=binary))
        self.certificate = root / "cert.pem"
        with (root / "dovecot.stderr").open("wb") as output:
            self._process = subprocess.Popen(
                [str(DOVECOT), "-F", "-c", str(conf)], stdout=output, stderr=subprocess.STDOUT
            )
        self._ids: dict[str, str] = {}
        self._await_greeting()
        self._proxy = CuttingProxy(self.tls_port or self.port)
        if mailbox != "INBOX":
            with self._person() as imap:
                imap.create(mailbox)

    def put(self, name: str, text: str) -> None:
        message = EmailMessage()
        message["Subject"] = name
        message["From"] = "Sender <sender@example.com>"
        message["To"] = f"{USER}@example.com"
        message["Message-ID"] = self._ids[name] = make_msgid()
        message.set_content(text)
        self.append(message.as_bytes())

    def append(self, raw: bytes) -> None:
        """Append a message as it is written."""
        with self._person() as imap:
            status, _ = imap.append(self.mailbox, None, None, raw)
            assert status == "OK"

    def deliver(self, count: int) -> None:
        """Drop `count` small messages straight into the INBOX's maildir, as a local delivery
        agent does: thousands in a moment, where APPENDs would take a minute."""
        assert self.mailbox == "INBOX"
        with self._person() as imap:
            imap.select("INBOX")  # makes the maildir
        maildir = self._root / "mail" / USER / "Maildir"
        if not maildir.is_dir():
            maildir = self._root / "mail" / USER
        owner = maildir.stat()
        for n in range(count):
            path = maildir / "new" / f"{time.time():.0f}.M{n}P{os.getpid()}.test"
            path.write_bytes(
                f"Subject: delivered {n}\r\nMessage-ID: <{n}@test>\r\n\r\nbody {n}\r\n".encode()
            )
            os.chown(path, owner.st_uid, owner.st_gid)

    def delete(self, name: str) -> None:
        with self._person() as imap:
            imap.select(self.mailbox)
            status, found = imap.uid("SEARCH", "HEADER", "Message-ID", self._ids.pop(name))
            assert status == "OK" and found[0]
            imap.uid("STORE", found[0].decode(), "+FLAGS", "(\\Deleted)")
            imap.expunge()

    def rename(self, old: str, new: str) -> None:
        raise NotImplementedError("a mail message cannot be renamed")

    def recreate(self) -> None:
        """Delete the folder and make it anew with the same messages: a new UIDVALIDITY."""
        assert self.mailbox != "INBOX", "INBOX cannot be deleted"
        with self._person() as imap:
            imap.select(self.mailbox, readonly=True)
            _, numbers = imap.search(None, "ALL")
            messages = []
            for number in numbers[0].split():
                _, data = imap.fetch(number.decode(), "(BODY.PEEK[])")
                part = data[0]
                assert isinstance(part, tuple)
                messages.append(part[1])
            imap.close()
            assert imap.delete(self.mailbox)[0] == "OK"
            assert imap.create(self.mailbox)[0] == "OK"
            for raw in messages:
                imap.append(self.mailbox, None, None, raw)

    def stop(self) -> None:
        self._proxy.close()
        end(self._process)

    def configured(self, *, wrong_credentials: bool = False) -> Configured:
        config = ImapConfig(
            name="mail",
            kind="imap",
            host="127.0.0.1",
            port=self._proxy.port,
            tls=self.tls_port is not None,
            username=USER,
            password_env=_PASSWORD_ENV,
            mailbox=self.mailbox,
            timeout_s=10,
        )
        password = "not-" + PASSWORD if wrong_credentials else PASSWORD
        return Configured(config, {_PASSWORD_ENV: password})

    def source(self, *, wrong_credentials: bool = False) -> Source:
        return self.configured(wrong_credentials=wrong_credentials).open()

    @property
    def secrets(self) -> list[str]:
        return [PASSWORD]

    def _person(self) -> imaplib.IMAP4:
        imap = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        imap.login(USER, PASSWORD)
        return imap

    def _await_greeting(self) -> None:
        """Wait until dovecot greets on its port (or has died, with its log in the failure)."""
        deadline = time.monotonic() + _READY_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as probe:
                    if probe.recv(64).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.05)
        end(self._process)
        log = self._root / "dovecot.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        text += (self._root / "dovecot.stderr").read_text(errors="replace")
        pytest.fail(f"dovecot did not start:\n{text}")


def dovecot(
    root: Path, mailbox: str = "INBOX", *, tls: bool = False, binary: bool = True
) -> Iterator[DovecotRemote]:
    """A fixture's dovecot (as `DovecotRemote` takes it), stopped after the test; skipped
    where dovecot is not installed."""
    if not DOVECOT.exists():
        pytest.skip("install dovecot-imapd (apt-get install dovecot-imapd)")
    remote = DovecotRemote(root, mailbox, tls=tls, binary=binary)
    try:
        yield remote
    finally:
        remote.stop()


@pytest.fixture
def remote_imap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DovecotRemote]:
    """dovecot with an empty INBOX."""
    yield from dovecot(tmp_path_factory.mktemp("imap"))
