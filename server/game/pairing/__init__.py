"""Quick pairing ("Play a person"): :mod:`~server.game.pairing.policy` says who pairs with whom (a pure
function, and the queue of seeks of a process alone), :mod:`~server.game.pairing.matchmaker` takes the
seeks of this process's sockets and opens the tables. With several processes the queue is in Redis
(:mod:`server.game.cluster.seeks`).
"""
