"""The game-playing agent: compiled playouts, exact endgame solver, determinized MCTS."""


def warmup() -> None:
    """Compile or load the numba kernels so the first decision is not slowed by them."""
    from agent.decide import warmup as _warmup  # imported here: numba loads only when asked

    _warmup()
