"""Reading IMAP replies and BODYSTRUCTUREs, and naming attachments, without a server: the
shapes dovecot and other servers send, and the broken ones a listing must survive."""

from __future__ import annotations

import logging

import pytest

from bot.documents.sources.config import Credentials, ImapConfig
from bot.documents.sources.kinds.imap import decoded_part, open_imap
from bot.documents.sources.kinds.imap_names import attachment_names
from bot.documents.sources.kinds.imap_structure import Attachment, StructureError, attachments
from bot.documents.sources.kinds.imap_wire import MAX_DEPTH, WireError, fetched, parse

DOVECOT_REPLY = [
    b'1 FETCH (UID 7 RFC822.SIZE 1685 BODYSTRUCTURE (("text" "plain" ("charset" "utf-8") NIL '
    b'NIL "7bit" 4 1 NIL NIL NIL NIL)("application" "pdf" NIL NIL NIL "base64" 346 NIL '
    b'("attachment" ("filename" "report.pdf")) NIL NIL)("application" "octet-stream" NIL NIL '
    b'NIL "base64" 6 NIL ("attachment" ("filename*" "utf-8\'\'%D0%9E%D1%82%D1%87%D1%91%D1%82'
    b'.txt")) NIL NIL)("image" "png" NIL NIL NIL "base64" 6 NIL ("inline" NIL) NIL NIL)'
    b'("text" "plain" ("charset" "utf-8") NIL NIL "7bit" 10 1 NIL ("attachment" ("filename" '
    b'"we\\"ird.txt")) NIL NIL) "mixed" ("boundary" "==b==") NIL NIL NIL) '
    b"BODY[HEADER.FIELDS (SUBJECT)] {12}",
    bytearray(b"Subject: x\r\n"),
    b")",
]


def _structure(text: bytes) -> list[Attachment]:
    return attachments(parse(text))


class TestWire:
    def test_atoms_strings_literals_nil_and_lists(self) -> None:
        value = parse(b'(ATOM "quo\\"ted\\\\" {3}\r\nabc ~{2}\r\n\x00\x01 NIL nil ("a" ()))')
        assert value == ["ATOM", b'quo"ted\\', b"abc", b"\x00\x01", None, None, [b"a", []]]

    def test_a_section_is_one_atom_spaces_and_parens_included(self) -> None:
        assert parse(b"(BODY[HEADER.FIELDS (SUBJECT)] BODY[2]<0>)") == [
            "BODY[HEADER.FIELDS (SUBJECT)]",
            "BODY[2]<0>",
        ]

    def test_a_fetch_reply_from_aioimaplib_lines_with_its_literal(self) -> None:
        [record] = fetched(DOVECOT_REPLY)
        assert record["UID"] == "7"
        assert record["RFC822.SIZE"] == "1685"
        assert record["BODY[HEADER.FIELDS (SUBJECT)]"] == b"Subject: x\r\n"
        assert isinstance(record["BODYSTRUCTURE"], list)

    def test_other_untagged_replies_are_skipped(self) -> None:
        lines = [b'OK [ALERT] a "free (text', b"3 EXPUNGE", b"4 FETCH (UID 9 FLAGS (\\Seen))"]
        assert fetched(lines) == [{"UID": "9", "FLAGS": ["\\Seen"]}]

    @pytest.mark.parametrize(
        "text",
        [b'("open', b"(a (b)", b"({10}\r\nshort)", b"(BODY[1 x)", b")", b"(a) b"],
    )
    def test_a_reply_cut_short_or_malformed_is_refused(self, text: bytes) -> None:
        with pytest.raises(WireError):
            parse(text)

    def test_lists_nested_too_deep_are_refused_not_a_recursion_error(self) -> None:
        with pytest.raises(WireError):
            parse(b"(" * (MAX_DEPTH + 5) + b")" * (MAX_DEPTH + 5))


class TestStructure:
    def test_dovecots_reply_gives_named_and_marked_parts_only(self) -> None:
        [record] = fetched(DOVECOT_REPLY)
        assert attachments(record["BODYSTRUCTURE"]) == [
            Attachment("2", "report.pdf", "application/pdf", "base64", 346),
            Attachment("3", "Отчёт.txt", "application/octet-stream", "base64", 6),
            Attachment("5", 'we"ird.txt', "text/plain", "7bit", 10),
        ]

    def test_a_message_that_is_only_a_file_is_part_one(self) -> None:
        found = _structure(
            b'("application" "pdf" ("name" "scan.pdf") NIL NIL "base64" 6 NIL NIL NIL NIL)'
        )
        assert found == [Attachment("1", "scan.pdf", "application/pdf", "base64", 6)]

    def test_rfc_2231_continuations_and_encoded_words(self) -> None:
        found = _structure(
            b'(("text" "plain" NIL NIL NIL "7bit" 1 1 NIL NIL NIL NIL)'
            b'("a" "b" NIL NIL NIL "base64" 4 NIL ("attachment" ("filename*0*" '
            b'"utf-8\'\'%D0%94%D0%BE" "filename*1*" "%D0%B3.pdf")) NIL NIL)'
            b'("a" "b" ("name" "=?no-such-charset?q?abc?=") NIL NIL "base64" 4 NIL NIL NIL NIL)'
            b'("a" "b" NIL NIL NIL "base64" 4 NIL ("attachment" ("filename" '
            b'"=?utf-8?q?=D0=A1=D1=87=D1=91=D1=82.xlsx?=")) NIL NIL) "mixed")'
        )
        assert [a.name for a in found] == ["Дог.pdf", "=?no-such-charset?q?abc?=", "Счёт.xlsx"]

    def test_a_forwarded_message_attached_is_one_file_and_inline_is_opened(self) -> None:
        envelope = b"(NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL)"
        inner = (
            b'(("text" "plain" NIL NIL NIL "7bit" 1 1 NIL NIL NIL NIL)'
            b'("application" "pdf" NIL NIL NIL "base64" 8 NIL ("attachment" ("filename" '
            b'"inner.pdf")) NIL NIL) "mixed")'
        )
        attached = b'("message" "rfc822" NIL NIL NIL "7bit" 90 ' + envelope + b" " + inner
        found = _structure(
            b'(("text" "plain" NIL NIL NIL "7bit" 1 1 NIL NIL NIL NIL)'
            + attached
            + b' 9 NIL ("attachment" NIL) NIL NIL)'
            + attached
            + b' 9 NIL NIL NIL NIL) "mixed")'
        )
        assert found == [
            Attachment("2", None, "message/rfc822", "7bit", 90),
            Attachment("3.2", "inner.pdf", "application/pdf", "base64", 8),
        ]

    @pytest.mark.parametrize(
        "text",
        [
            b'("text" "plain")',
            b'("a" "b" NIL NIL NIL "base64" "many" NIL NIL NIL NIL)',
            b'("a" "b" ("name") NIL NIL "base64" 4 NIL NIL NIL NIL)',
            b'("a" ("b") NIL NIL NIL "base64" 4 NIL NIL NIL NIL)',
            b"NIL",
        ],
    )
    def test_a_misshapen_structure_is_refused(self, text: bytes) -> None:
        with pytest.raises(StructureError):
            _structure(text)


class TestNames:
    def test_unique_within_the_message_whatever_the_case(self) -> None:
        named = [("a.pdf", "application/pdf"), ("A.PDF", "application/pdf"), ("a.pdf", "x/y")]
        assert attachment_names(named) == ["a.pdf", "A (2).PDF", "a (3).pdf"]

    def test_nameless_parts_take_their_number_and_their_types_extension(self) -> None:
        named = [(None, "image/png"), ("", "application/x-unknown"), (None, "message/rfc822")]
        assert attachment_names(named) == [
            "attachment-1.png",
            "attachment-2.bin",
            "attachment-3.eml",
        ]

    def test_unsafe_hidden_and_long_names_are_made_safe(self) -> None:
        names = attachment_names(
            [("../etc/passwd", "x/y"), (".hidden", "x/y"), ("字" * 100 + ".pdf", "x/y")]
        )
        assert names[:2] == ["etc passwd", "hidden"]
        assert names[2].endswith(".pdf") and len(names[2].encode()) <= 200


def test_a_part_is_decoded_here_from_its_header_and_body() -> None:
    header = b"Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
    assert decoded_part(header, b"caf=C3=A9 =E2=82=AC\r\n") == "café €\r\n".encode()
    header = b"Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n"
    assert decoded_part(header, b"JVBE\r\nRg==\r\n") == b"%PDF"
    forwarded = b"Subject: inner\r\n\r\nbody\r\n"
    assert decoded_part(b"Content-Type: message/rfc822\r\n\r\n", forwarded) == forwarded


def test_an_unreadable_structure_lists_the_message_alone_and_warns_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = ImapConfig(name="mail", kind="imap", host="127.0.0.1", username="u", password_env="P")
    source = open_imap(config, Credentials({"P": "secret"}))
    reply = [
        b'1 FETCH (UID 4 RFC822.SIZE 10 INTERNALDATE "07-Dec-2026 16:35:31 +0100" '
        b'BODYSTRUCTURE ("text") BODY[HEADER.FIELDS (SUBJECT)] {12}',
        bytearray(b"Subject: x\r\n"),
        b")",
    ]
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            [message] = source._messages(reply, 5)
            assert [i.path for i in message.items(5, {})] == ["2026-12/4 x.eml"]
    assert [r.getMessage() for r in caplog.records] == [
        "imap source mail: message 4: its attachments are not listed: "
        "a part has fewer than seven fields"
    ]
