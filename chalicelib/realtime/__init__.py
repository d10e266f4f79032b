"""How clients receive events live: GET /events (the long-poll reader), the WebSocket
push channel's handlers, and the keepalive that sends heartbeats and forgets what is gone."""
