"""Reading channels: lookups and permission checks. Imports no command."""
