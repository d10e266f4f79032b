"""The integrations' pure parts: the payload's bounds before parsing, typed field reads,
and the text helpers, checked against the message renderer itself (a field shown as
typed stays as typed; a quoted body stays inside its quote and notifies nobody)."""
from __future__ import annotations

import html
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.core.errors import ApiError
from chalicelib.integrations.base import AnomalousPayloadError
from chalicelib.integrations.markdown import (
    code,
    fenced,
    link,
    plain,
    quoted,
    safe_url,
    topic,
    when,
)
from chalicelib.integrations.payload import Field, check_shape, decode_payload
from chalicelib.rules.markdown import MentionTargets, render_message
from chalicelib.rules.mentions import find_mentions

TAG = re.compile(r"<[^>]+>")


def text_of(markdown: str) -> str:
    return html.unescape(TAG.sub("", render_message(markdown, MentionTargets()))).strip()


# Emoji (symbols, and :name: between colons) are the one markup a field keeps: the
# renderer shows them as emoji, by design.
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Cn", "So"),
                                      exclude_characters=":"), max_size=80))
def test_a_plain_field_renders_as_typed(text):
    shown = " ".join(text.split())
    if not shown:
        return
    # In the middle of a sentence and at the start of a line alike
    assert text_of(f"x {plain(text)}") == f"x {shown}"
    assert text_of(plain(text)) == shown
    assert not find_mentions(plain(text)).names | find_mentions(plain(text)).groups
    assert not find_mentions(plain(text)).channel_wildcard


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>", "@**all** @*everyone* @**Olivia Owner**",
    "[click](javascript:alert(1))", "![img](http://x/y.png)", "# heading", "1. list",
    "> quote", "`code` ``more``", "*bold* _it_ ~~gone~~ | a | b |", "&amp; &lt;",
    "<https://autolink.example>", ":smile: and http://bare.example.com"])
def test_hostile_fields_stay_text(hostile):
    rendered = render_message(f"by {plain(hostile)}", MentionTargets())
    assert rendered.count("<p>") == 1 and "<a " not in rendered and "<img" not in rendered
    assert "<script" not in rendered and "mention" not in rendered


def test_links_only_to_web_addresses():
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("data:text/html,x") is None and safe_url("//host/path") is None
    assert safe_url("https://x.example/a (b)<c>") == "https://x.example/a%20%28b%29%3Cc%3E"
    assert safe_url("http://h/" + "a" * 3000) is None
    assert link("label", "ftp://x") == "label"
    rendered = render_message(link("ok", "https://x.example/)](javascript:alert(1))"),
                              MentionTargets())
    assert rendered.count("<a ") == 1 and 'href="https://x.example/' in rendered
    assert "javascript:alert(1)\"" not in rendered


def test_a_quoted_body_stays_inside_and_mentions_nobody():
    body = "line one\n\n```\nunclosed fence\n@**all** and @*team*\n\n# Heading"
    markdown = f"said:\n\n{quoted(body)}\n\nafter"
    rendered = render_message(markdown, MentionTargets())
    assert rendered.endswith("<p>after</p>")
    assert rendered.count("<blockquote>") == 1
    assert not find_mentions(markdown).channel_wildcard
    assert not find_mentions(markdown).loud_groups and not find_mentions(markdown).loud_names
    long = quoted("x\n" * 100)
    assert long.count("\n") == 30 and long.endswith("> …")


def test_code_and_fences_outlast_what_they_hold():
    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``"
    fence = fenced("```\n````\n@**all**", "json")
    assert fence.startswith("`````json\n") and fence.endswith("\n`````")
    assert "@_**all**" in fence


def test_topics_fit_and_times_read():
    assert topic("a\nb\tc") == "a b c" and topic("") == "(no topic)"
    assert len(topic("x" * 100)) == 60 and topic("x" * 100).endswith("…")
    assert when("2022-06-17T00:41:00.782137894Z") == "2022-06-17 00:41 UTC"
    assert when("0001-01-01T00:00:00Z") is None and when("yesterday") is None


def test_the_payloads_shape_is_bounded_before_parsing():
    check_shape(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')   # in a string
    with pytest.raises(ApiError, match="nested too deeply"):
        check_shape(b"[" * 33 + b"]" * 33)
    check_shape(b"[" * 32 + b"]" * 32)
    with pytest.raises(ApiError, match="too many values"):
        check_shape(b"[" + b"1," * 50_001 + b"1]")
    with pytest.raises(ApiError, match="too large") as error:
        check_shape(b" " * 1_048_577)
    assert error.value.http_status == 413
    # Unterminated strings, quotes and escapes cannot make the scan slow: its CPU time
    # grows in proportion to the body (a quarter of the body, about a quarter of the
    # time; a quadratic scan would take sixteen times as long for four times the body)
    for start, unit, end in ((b'"', b'\\"', b"\\"), (b"", b'"', b""), (b"", b"\\", b"")):
        small, large = (_cpu_seconds(start + unit * (n // len(unit)) + end)
                        for n in (200_000, 800_000))
        assert large < 10 * max(small, 0.005), (unit, small, large)


def _cpu_seconds(body: bytes) -> float:
    """The least CPU time of three scans of the body (the others' noise left out)."""
    times = []
    for _ in range(3):
        started = time.process_time()
        check_shape(body)
        times.append(time.process_time() - started)
    return min(times)


def test_bodies_decode_as_json_or_from_a_form_field():
    assert decode_payload(b'{"a": 1}', "text/plain", None) == {"a": 1}
    assert decode_payload(b"payload=%7B%22a%22%3A1%7D", "application/x-www-form-urlencoded",
                          "payload") == {"a": 1}
    for bad in (b"", b"{", b"\xff\xfe", b"NaN-ish"):
        with pytest.raises(ApiError) as error:
            decode_payload(bad, "application/json", None)
        assert error.value.code == "INVALID_JSON"


def test_fields_read_by_type_and_name_what_is_wrong():
    payload = Field({"a": {"n": 1, "s": "x", "b": True, "l": [1, 2, 3]}})
    assert payload["a"]["n"].number() == 1 and payload["a"]["s"].text() == "x"
    assert payload["a"].get("missing").opt_text() is None
    assert [f.value for f in payload["a"]["l"].items(2)] == [1, 2]
    with pytest.raises(AnomalousPayloadError, match=r"payload\.a\.missing is missing"):
        payload["a"]["missing"]
    with pytest.raises(AnomalousPayloadError, match=r"payload\.a\.b is not a whole number"):
        payload["a"]["b"].number()
    with pytest.raises(AnomalousPayloadError, match=r"payload\.a\.l is not a string"):
        payload["a"]["l"].text()
