"""The event pipeline: outbox records, fan-out into queues, the long-poll reader."""
