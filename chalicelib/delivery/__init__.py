"""Delivery: the outbox actions write events to, and how an event reaches a client's queue
(append, payloads, wake-ups, push). Below the actions; imports none of them."""
