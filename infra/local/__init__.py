"""The local stack's parts: moto, the HTTP server, pollers, snapshots and the demo seed."""
