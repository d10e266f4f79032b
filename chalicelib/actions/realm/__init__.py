"""The organization's settings, custom emoji, linkifiers, playgrounds and the defaults of
new users."""
