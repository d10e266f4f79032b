"""User groups: creating, membership, settings."""
