"""Read state: unread markers, flags, marking read."""
