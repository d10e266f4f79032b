"""The domain: permission checks, validation of meaning, writes and their events."""
