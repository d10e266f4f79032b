"""The local stack's header parser gives what the standard library's gives, for plain
blocks and for the odd ones it leaves to the email parser (infra/local/fast_headers.py)."""
from __future__ import annotations

import email.parser
import http.client
import io

import pytest

from infra.local.fast_headers import parse_headers

BLOCKS = [
    b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n"
    b"x-amzn-RequestId: abc\r\nx-amz-crc32: 123\r\nServer: amazon.com\r\n\r\nbody",
    b"A: 1\r\na: 2\r\nEmpty:\r\nSpaced:   padded value  \r\nTab:\tx\r\n\r\n",
    b"Only: one\n\n",
    b"Colon: a:b:c\r\nUnicode: caf\xe9\r\n\r\n",
    b"\r\n",
    b"",
    # left to the email parser: folded lines, lines without a field, odd names
    b"Folded: first\r\n second\r\n\r\n",
    b"No colon here\r\nX: 1\r\n\r\n",
    b"Bad Name: x\r\n\r\n",
    b"From someone\r\nX: 1\r\n\r\n",
    b": nameless\r\n\r\n",
]


def standard(block: bytes) -> http.client.HTTPMessage:
    fp = io.BytesIO(block)
    lines = http.client._read_headers(fp)  # type: ignore[attr-defined]
    text = b"".join(lines).decode("iso-8859-1")
    return email.parser.Parser(_class=http.client.HTTPMessage).parsestr(text)  # type: ignore[return-value]


@pytest.mark.parametrize("block", BLOCKS)
def test_a_block_parses_as_the_standard_library_parses_it(block: bytes):
    ours, theirs = parse_headers(io.BytesIO(block)), standard(block)
    assert type(ours) is type(theirs)
    assert ours.items() == theirs.items()
    assert ours.get_payload() == theirs.get_payload()
    assert [type(d) for d in ours.defects] == [type(d) for d in theirs.defects]
    assert ours.get("content-length") == theirs.get("content-length")
    assert ours.get_all("a") == theirs.get_all("a")


def test_it_stops_where_the_headers_end_and_keeps_the_standard_limits():
    fp = io.BytesIO(b"X: 1\r\n\r\nthe body")
    parse_headers(fp)
    assert fp.read() == b"the body"
    with pytest.raises(http.client.LineTooLong):
        parse_headers(io.BytesIO(b"X: " + b"a" * 70000 + b"\r\n\r\n"))
    with pytest.raises(http.client.HTTPException):
        parse_headers(io.BytesIO(b"".join(b"X%d: v\r\n" % n for n in range(101)) + b"\r\n"))
