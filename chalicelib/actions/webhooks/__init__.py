"""Outgoing webhooks: which bots a message triggers, and delivering to them."""
