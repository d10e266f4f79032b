"""What a message's channel, topic and message links (rules/channel_links.py) resolve to
for their sender: only channels the sender may read are linked, as the reference links
only channels the acting user has content access to (a channel they may not see stays
text, so a link never tells them it exists). "May read" is the rule reading messages
asks (actions/messages/reads/access.py): subscribed, or rules/channel_access.py's
readable_unsubscribed (web-public for everyone, public for members and above).

A fixed number of batched reads, none when the content has no link syntax: the name
claims, the channels and the sender's subscriptions, then the linked topics' latest
messages (one BatchGet each, of at most MAX_LINKED_CHANNELS / MAX_LINKED_TOPICS keys).
"""
from __future__ import annotations

from chalicelib.core.principal import Principal
from chalicelib.models.channels import Stream, Subscription, name_claim_key, stream_key, user_key
from chalicelib.models.realms import UniqueName
from chalicelib.models.topics import Topic, topic_item_key
from chalicelib.rules.channel_access import readable_unsubscribed
from chalicelib.rules.channel_links import LinkTargets, linked_names


def resolve_channel_links(realm_id: int, content: str, author: Principal | None
                          ) -> LinkTargets:
    """`author`: the sender, whose access decides (None: the system writes the message,
    and every channel of the organization may be linked, as the reference does)."""
    wanted = linked_names(content)
    keys = {name: key for name in wanted.channels
            if (key := name_claim_key(realm_id, name)) is not None}
    if not keys:
        return LinkTargets()
    claims = {(c.scope, c.name): int(c.target_id)
              for c in UniqueName.batch_get(sorted(set(keys.values())))}
    ids = {claims[key] for key in keys.values() if key in claims}
    streams = {s.stream_id: s for s in Stream.batch_get([(realm_id, i) for i in sorted(ids)])}
    subscriptions: dict[int, Subscription] = {}
    if author is not None and streams:
        subscriptions = {s.stream_id: s for s in Subscription.batch_get(
            [(user_key(realm_id, author.user_id), i) for i in sorted(streams)]) if s.active}
    targets = LinkTargets()
    for name, key in keys.items():
        stream = streams.get(claims.get(key, 0))
        # Names match exactly, as the reference looks channels up for links.
        if stream is None or stream.name != name:
            continue
        if author is None or stream.stream_id in subscriptions or readable_unsubscribed(
                author.role, stream):
            targets.channels[name] = stream.stream_id
    _add_latest(realm_id, targets, wanted.topics, streams, subscriptions)
    return targets


def _add_latest(realm_id: int, targets: LinkTargets, topics: list[tuple[str, str]],
                streams: dict[int, Stream], subscriptions: dict[int, Subscription]) -> None:
    """Level 400: a topic link names the topic's latest message the sender may read (in
    a channel whose history subscribers share, the topic's latest; else the latest if
    it came to the sender, otherwise none)."""
    pairs = [(name, topic) for name, topic in topics if name in targets.channels]
    if not pairs:
        return
    items = Topic.batch_get(sorted({(stream_key(realm_id, targets.channels[name]),
                                     topic_item_key(topic)) for name, topic in pairs}))
    latest = {(item.stream_key, item.topic_key): int(item.max_id) for item in items}
    for name, topic in pairs:
        stream_id = targets.channels[name]
        max_id = latest.get((stream_key(realm_id, stream_id), topic_item_key(topic)))
        if max_id is None:
            continue
        subscription = subscriptions.get(stream_id)
        if streams[stream_id].history_public_to_subscribers or (
                subscription is not None and subscription.has_received(max_id)):
            targets.latest[(name, topic)] = max_id
