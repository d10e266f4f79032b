"""The organization's custom emoji, linkifiers, playgrounds and the defaults of new users
(its settings change in workflows/realm_update.py)."""
