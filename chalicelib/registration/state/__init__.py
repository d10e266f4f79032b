"""The initial state POST /register returns, one module per area; each builds the keys
of its fetch types and declares their shape as a `*State` TypedDict."""
