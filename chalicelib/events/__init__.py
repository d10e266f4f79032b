"""Above the actions: the fan-out (outbox stream -> queues), audience resolution, registration
state, the long-poll reader and the WebSocket and webhook handlers."""
