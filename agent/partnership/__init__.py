"""The four-player partnership agent's search: the double-dummy solver (all four hands open).

:mod:`agent.partnership.position` is an open position on bitmasks, :mod:`agent.partnership.solver_ref`
the readable reference solver and the brute force it is checked against, and
:mod:`agent.partnership.solver` the compiled (numba, :mod:`agent.partnership.kernel`) solver that
gives the same answers fast; :mod:`agent.partnership.bench` times it (``treset-agent bench partnership``).
"""
