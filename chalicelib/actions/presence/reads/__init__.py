"""Reading presence. Imports no command."""
