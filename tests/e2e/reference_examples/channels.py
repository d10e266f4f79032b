"""The rows of the reference's test_streams, in its order."""
from __future__ import annotations

from tests.e2e.reference_dev_data import DevData
from tests.e2e.reference_examples.base import Example, Result, keep, stream_id, that


def _subscribe_newbie(x: DevData) -> Result:
    return x.client.add_subscriptions(streams=[{"name": "python-test"}],
                                      principals=[x.users_newbie()])


def _check_python_test(x: DevData, result: Result) -> None:
    listed = result.get("streams", result.get("subscriptions", []))
    [channel] = [s for s in listed if s["name"] == "python-test"]
    assert channel["description"] == "Channel for testing Python"


def _only_subscribed(x: DevData, result: Result) -> None:
    # The example counts the development data's channels; ours: exactly the subscribed.
    subscribed = {s["stream_id"] for s in x.client.get_subscriptions()["subscriptions"]}
    assert {s["stream_id"] for s in result["streams"]} == subscribed


def _unsubscribed(x: DevData, result: Result) -> None:
    assert not [s for s in x.client.get_subscriptions()["subscriptions"]
                if s["name"] == "python-test"]


def _mute_boat_party(x: DevData, op: str) -> Result:
    if op == "add":
        # The example's own set-up message (it has no content, so it is refused there too).
        x.client.call_endpoint(url="messages", method="POST", request={
            "type": "stream", "to": "Denmark", "topic": "boat party"})
    return x.client.mute_topic({"stream": "Denmark", "topic": "boat party", "op": op})


def _subscription_settings(x: DevData) -> Result:
    subscriptions = x.client.get_subscriptions()["subscriptions"]
    assert len(subscriptions) >= 2
    return x.client.update_subscription_settings([
        {"stream_id": subscriptions[0]["stream_id"], "property": "pin_to_top", "value": True},
        {"stream_id": subscriptions[1]["stream_id"], "property": "color",
         "value": "#f00f00"}])


def _archive(x: DevData) -> Result:
    x.client.add_subscriptions(streams=[{"name": "example to archive"}])
    return x.client.delete_stream(stream_id(x, "example to archive"))


def _add_default(x: DevData) -> Result:
    x.client.add_subscriptions(streams=[{"name": "test channel",
                                         "description": "New channel for testing"}])
    return x.client.add_default_stream(stream_id(x, "test channel"))


def _private_channel(x: DevData, fatal: bool) -> Result:
    if not fatal:
        x.client.add_subscriptions(streams=[{"name": "private-channel"}])
        x.client.call_endpoint(f"streams/{stream_id(x, 'private-channel')}", method="PATCH",
                               request={"is_private": True})
    return x.nonadmin.add_subscriptions(streams=[{"name": "private-channel"}],
                                        authorization_errors_fatal=fatal)


def _user_topic(x: DevData, policy: int) -> Result:
    return x.client.call_endpoint(url="user_topics", method="POST", request={
        "stream_id": stream_id(x, "Denmark"), "topic": "dinner", "visibility_policy": policy})


STREAMS: list[Example] = [
    Example("add_subscriptions", "POST /users/me/subscriptions",
            lambda x: x.client.add_subscriptions(streams=[
                {"name": "python-test", "description": "Channel for testing Python"}])),
    Example("add_subscriptions[principals]", "POST /users/me/subscriptions",
            _subscribe_newbie,
            that(lambda x, r: str(x.users_newbie()) in r["subscribed"], "keyed by user id")),
    Example("add_channel", "POST /channels/create",
            lambda x: x.client.call_endpoint(url="channels/create", method="POST", request={
                "name": "music_group",
                "description": "Channel for discussing and learning about music.",
                "subscribers": []})),
    Example("test_add_subscriptions_already_subscribed", "POST /users/me/subscriptions",
            lambda x: x.client.add_subscriptions(streams=[{"name": "python-test"}],
                                                 principals=[x.email("newbie")])),
    Example("get_subscriptions", "GET /users/me/subscriptions",
            lambda x: x.client.get_subscriptions(), _check_python_test),
    Example("get_stream_id", "GET /get_stream_id",
            lambda x: x.client.get_stream_id("python-test"),
            keep("python-test", lambda r: r["stream_id"])),
    Example("update_stream", "PATCH /streams/{stream_id}",
            lambda x: x.client.update_stream({"stream_id": x.found["python-test"],
                                              "is_private": True})),
    Example("get_streams", "GET /streams", lambda x: x.client.get_streams(),
            _check_python_test),
    Example("get_streams[include_public]", "GET /streams",
            lambda x: x.client.get_streams(include_public=False), _only_subscribed),
    Example("get_subscribers", "GET /streams/{stream_id}/members",
            lambda x: x.client.get_subscribers(stream="python-test"),
            that(lambda x, r: sorted(r["subscribers"]) ==
                 sorted([x.users["iago"], x.users_newbie()]), "iago and newbie")),
    Example("remove_subscriptions", "DELETE /users/me/subscriptions",
            lambda x: x.client.remove_subscriptions(["python-test"]), _unsubscribed),
    Example("remove_subscriptions[principals]", "DELETE /users/me/subscriptions",
            lambda x: x.client.remove_subscriptions(["python-test"],
                                                    principals=[x.email("newbie")])),
    Example("toggle_mute_topic[add]", "PATCH /users/me/subscriptions/muted_topics",
            lambda x: _mute_boat_party(x, "add")),
    Example("toggle_mute_topic[remove]", "PATCH /users/me/subscriptions/muted_topics",
            lambda x: _mute_boat_party(x, "remove")),
    Example("update_user_topic[mute]", "POST /user_topics", lambda x: _user_topic(x, 1)),
    Example("update_user_topic[none]", "POST /user_topics", lambda x: _user_topic(x, 0)),
    Example("update_subscription_settings", "POST /users/me/subscriptions/properties",
            _subscription_settings),
    # The reference passes channel 1 (Denmark in its data) and the topic "test".
    Example("get_stream_topics", "GET /users/me/{stream_id}/topics",
            lambda x: x.client.get_stream_topics(stream_id(x, "Denmark"))),
    Example("delete_topic", "POST /streams/{stream_id}/delete_topic",
            lambda x: x.client.call_endpoint(
                url=f"/streams/{stream_id(x, 'Denmark')}/delete_topic", method="POST",
                request={"topic_name": "test"})),
    Example("archive_stream", "DELETE /streams/{stream_id}", _archive),
    Example("add_default_stream", "POST /default_streams", _add_default),
    Example("remove_default_stream", "DELETE /default_streams",
            lambda x: x.client.call_endpoint(url="/default_streams", method="DELETE",
                                             request={"stream_id": stream_id(x, "test channel")})),
    Example("test_authorization_errors_fatal[false]", "POST /users/me/subscriptions",
            lambda x: _private_channel(x, fatal=False)),
    Example("test_authorization_errors_fatal[true]", "POST /users/me/subscriptions",
            lambda x: _private_channel(x, fatal=True), error="BAD_REQUEST"),
]
