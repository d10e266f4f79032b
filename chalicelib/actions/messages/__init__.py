"""Messages: sending, editing, moving, deleting, reactions, uploads, typing."""
