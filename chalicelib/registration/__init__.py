"""POST /register: the event queue and its initial state (state/, one module per part)."""
