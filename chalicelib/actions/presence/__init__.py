"""Presence: reporting one's own."""
