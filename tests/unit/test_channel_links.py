"""Channel, topic and message link syntax (rules/channel_links.py) through the Markdown
renderer: the reference's markup and addresses, text where nothing resolves, no links
inside code, escapes or other links, and the bound on what one message looks up."""
from __future__ import annotations

import pytest

from chalicelib.rules.channel_links import (
    MAX_LINKED_CHANNELS,
    MAX_LINKED_TOPICS,
    LinkTargets,
    channel_slug,
    hash_encode,
    linked_names,
    topic_url,
)
from chalicelib.rules.markdown import MentionTargets, render_message

TARGETS = LinkTargets(
    channels={"general": 3, "design team": 7, "a.b%c": 9, "日本語": 11, "x>y": 12,
              '<img src=x onerror="alert(1)">': 13},
    latest={("general", "deploy plans"): 42})


def render(content: str, targets: LinkTargets | None = TARGETS) -> str:
    return render_message(content, MentionTargets(), channel_links=targets)


@pytest.mark.parametrize(("text", "encoded"), [
    ("general", "general"),
    ("deploy plans", "deploy.20plans"),
    ("v1.2", "v1.2E2"),
    ("100%", "100.25"),
    ("a>b@c", "a.3Eb.40c"),
    ("a/b?c#d&e", "a.2Fb.3Fc.23d.26e"),
    ("café", "caf.C3.A9"),
    ("日本", ".E6.97.A5.E6.9C.AC"),
    ("_-~", "_-~"),
])
def test_names_are_encoded_as_the_reference_encodes_hash_components(text, encoded):
    assert hash_encode(text) == encoded


def test_a_channel_slug_has_its_spaces_as_dashes_and_the_rest_encoded():
    assert channel_slug(7, "design team") == "7-design-team"
    assert channel_slug(9, "a.b%c") == "9-a.2Eb.25c"
    assert topic_url(7, "design team", "v1.2 plan") == (
        "/#narrow/channel/7-design-team/topic/v1.2E2.20plan")


def test_a_channel_link_is_the_reference_stream_link():
    assert render("see #**general**") == (
        '<p>see <a class="stream" data-stream-id="3" href="/#narrow/channel/3-general">'
        "#general</a></p>")
    assert render("#**design team**") == (
        '<p><a class="stream" data-stream-id="7" href="/#narrow/channel/7-design-team">'
        "#design team</a></p>")


def test_a_topic_link_opens_with_the_topics_latest_message_when_there_is_one():
    # Level 400: /with/ the latest message the sender may read (the resolver found 42)
    assert render("#**general>Deploy plans**") == (
        '<p><a class="stream-topic" data-stream-id="3" '
        'href="/#narrow/channel/3-general/topic/Deploy.20plans/with/42">'
        "#general &gt; Deploy plans</a></p>")
    # AND a topic with none known links the topic alone
    assert render("#**general>new idea**") == (
        '<p><a class="stream-topic" data-stream-id="3" '
        'href="/#narrow/channel/3-general/topic/new.20idea">#general &gt; new idea</a></p>')


def test_a_message_link_names_its_message():
    assert render("#**general>lunch@123**") == (
        '<p><a class="message-link" href="/#narrow/channel/3-general/topic/lunch/near/123">'
        "#general &gt; lunch @ \U0001f4ac</a></p>")


def test_the_empty_topic_is_shown_by_its_fallback_name():
    assert render("#**general>**") == (
        '<p><a class="stream-topic" data-stream-id="3" href="/#narrow/channel/3-general/'
        'topic/">#general &gt; <em>general chat</em></a></p>')


def test_names_with_special_and_non_ascii_characters_are_escaped_and_encoded():
    assert render("#**a.b%c>x & <y> \"z\"**") == (
        '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-a.2Eb.25c/'
        'topic/x.20.26.20.3Cy.3E.20.22z.22">#a.b%c &gt; x &amp; &lt;y&gt; "z"</a></p>')
    assert render("#**日本語>café @ noon**") == (
        '<p><a class="stream-topic" data-stream-id="11" href="/#narrow/channel/'
        '11-.E6.97.A5.E6.9C.AC.E8.AA.9E/topic/caf.C3.A9.20.40.20noon">'
        "#日本語 &gt; café @ noon</a></p>")
    # A channel whose name has ">" is linked when no topic link reads it otherwise
    assert render("#**x>y**") == (
        '<p><a class="stream" data-stream-id="12" href="/#narrow/channel/12-x.3Ey">'
        "#x&gt;y</a></p>")


def test_a_hostile_channel_name_is_text_in_the_link():
    assert render('#**<img src=x onerror="alert(1)">**') == (
        '<p><a class="stream" data-stream-id="13" href="/#narrow/channel/13-.3Cimg-src.3Dx-'
        'onerror.3D.22alert.281.29.22.3E">#&lt;img src=x onerror="alert(1)"&gt;</a></p>')


def test_what_does_not_resolve_stays_as_typed():
    # An unknown channel, a name of another case (names match exactly), and no targets
    assert render("#**nowhere** #**General**") == (
        "<p>#<strong>nowhere</strong> #<strong>General</strong></p>")
    assert render("#**general**", None) == "<p>#<strong>general</strong></p>"


def test_code_escapes_links_and_words_keep_the_syntax():
    assert render("`#**general**`") == "<p><code>#**general**</code></p>"
    assert render("```\n#**general**\n```") == "<pre><code>#**general**\n</code></pre>"
    assert render("\\#**general**") == "<p>#<strong>general</strong></p>"
    assert render("word#**general**") == "<p>word#<strong>general</strong></p>"
    # Inside a Markdown link's text: no link within a link
    assert render("[#**general**](https://example.com)") == (
        '<p><a href="https://example.com">#<strong>general</strong></a></p>')
    # After an opening bracket or quote it is a link
    assert render("(#**general**)").startswith('<p>(<a class="stream"')


def test_link_text_is_not_read_for_emoji_or_linkifiers():
    html = render("#**general>:smile: https://example.com**")
    assert ":smile: https://example.com</a>" in html
    assert "emoji" not in html


def test_one_message_looks_up_a_bounded_number_of_names():
    many = " ".join(f"#**c{i}>t{i}**" for i in range(3 * MAX_LINKED_CHANNELS))
    found = linked_names(many)
    assert len(found.channels) == MAX_LINKED_CHANNELS
    assert len(found.topics) == MAX_LINKED_TOPICS
    assert not any(">" in name for name in found.channels)   # topic links' channels first
    # AND the same channel and topic count once, topics case-insensitively
    again = linked_names("#**general** #**general>Deploy** #**general>deploy**")
    assert again.channels == ["general", "general>Deploy", "general>deploy"]
    assert again.topics == [("general", "deploy")]
    assert linked_names("no links here") == linked_names("")
