"""Reading user groups and group-setting values. Imports no command."""
