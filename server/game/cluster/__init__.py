"""Several processes, one portal, over Redis: the parts that serve only when processes share a Redis.

The game service never imports this package (it talks to it through :mod:`server.game.ports`); the app
plugs it in when ``TRESET_REDIS_URL`` is set. :mod:`~server.game.cluster.node` is this process's node
(:class:`~server.game.cluster.node.Cluster`), built of :mod:`~server.game.cluster.state` (what a node
knows, the Redis keys and channels), :mod:`~server.game.cluster.bus` (messages between processes),
:mod:`~server.game.cluster.routes` (where commands go) and :mod:`~server.game.cluster.leases` (who owns
which table); :mod:`~server.game.cluster.shared_limits` holds the limits in Redis and
:mod:`~server.game.cluster.seeks` the queue of quick-pairing seeks.
"""
