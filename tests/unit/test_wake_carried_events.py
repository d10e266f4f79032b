"""The events a wake-up carries answer a poll only when they follow on (realtime/reader.py)."""
from chalicelib.realtime.reader import following


def event(event_id: int) -> dict:
    return {"type": "message", "id": event_id}


def test_carried_events_that_follow_the_last_id_are_the_answer_in_order():
    assert following((event(6), event(5), event(7)), 4) == [event(5), event(6), event(7)]


def test_events_the_client_already_has_are_left_out_and_repeats_count_once():
    assert following((event(3), event(4), event(5), event(5)), 3) == [event(4), event(5)]


def test_a_gap_ends_the_answer_and_a_late_start_reads_the_queue_instead():
    assert following((event(5), event(7)), 4) == [event(5)]
    assert following((event(6), event(7)), 4) == []
    assert following((), 4) == []


def test_a_wake_up_carries_events_that_fit_and_only_announces_the_others(monkeypatch):
    import json

    from chalicelib.delivery import wake as wake_module

    sent: list[str] = []

    class Sqs:
        def send_message(self, QueueUrl: str, MessageBody: str) -> None:
            sent.append(MessageBody)

    monkeypatch.setattr(wake_module.aws_clients, "sqs", Sqs)
    wake_module.wake("url", events=[{"id": 1, "type": "message", "text": "é"}])
    wake_module.wake("url", events=[{"id": 2, "text": "x" * wake_module.MAX_CARRIED_CHARS}])
    wake_module.wake("url", wake_module.CREDENTIALS)
    assert json.loads(sent[0]) == {"events": [{"id": 1, "type": "message", "text": "é"}]}
    assert sent[0].isascii()   # SQS refuses some characters; escaped JSON has none
    assert sent[1:] == [wake_module.EVENTS, wake_module.CREDENTIALS]
