"""Channels: creating and administering them, subscriptions, topics, folders."""
