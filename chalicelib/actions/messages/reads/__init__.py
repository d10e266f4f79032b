"""Reading messages: access checks, ranges, fetches, dicts, history, previews. Imports no command."""
