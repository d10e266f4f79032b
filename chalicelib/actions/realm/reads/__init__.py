"""Reading the organization: server settings. Imports no command."""
