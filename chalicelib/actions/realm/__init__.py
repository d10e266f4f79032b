"""The organization: realms, their settings, custom emoji, playgrounds, id counters' backfill."""
