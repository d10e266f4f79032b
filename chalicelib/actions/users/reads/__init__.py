"""Reading users: who may see whom, and the shapes of user events. Imports no command."""
