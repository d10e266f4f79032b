"""Reading read state: unread counts for registration. Imports no command."""
