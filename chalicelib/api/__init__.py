"""HTTP views, one blueprint per area: parse, call one action, respond."""
