"""Users: accounts, bots, profiles, personal settings, drafts, snippets, alert words, status."""
