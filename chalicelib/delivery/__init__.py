"""Delivery: what actions write events to (the outbox) and how events reach a client's queue (append, payloads, wake-ups, push). Below the actions; imports none of them."""
