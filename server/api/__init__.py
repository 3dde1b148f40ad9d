"""The HTTP and WebSocket API: thin routes and the ``/ws`` endpoint over the game service and the store."""
