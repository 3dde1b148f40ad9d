"""The compiled game kernels (numba): card arrays from the rules package, the world as flat integers, playouts.

:mod:`agent.kernels.cards` takes the strength order and points from :mod:`tressette` (never
re-typed), :mod:`agent.kernels.world` plays a deal on bitmasks, :mod:`agent.kernels.playout`
finishes one with a random or guided policy.  Tests hold them to the pure rules engine.
"""
