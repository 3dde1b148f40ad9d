"""The four-player partnership agent: the double-dummy solver (all four hands open), the hidden hands
sampled from what one seat knows, and the searches over them.

:mod:`agent.partnership.position` is an open position on bitmasks, :mod:`agent.partnership.solver_ref`
the readable reference solver and the brute force it is checked against, and
:mod:`agent.partnership.solver` the compiled (numba, :mod:`agent.partnership.kernel`) solver that
gives the same answers fast; :mod:`agent.partnership.bench` times it (``treset-agent bench partnership``).
:mod:`agent.partnership.constraints` reads what a seat's view rules out, :mod:`agent.partnership.sampling`
draws the hidden hands exactly and uniformly, and :mod:`agent.partnership.pimc` chooses a card over them.
"""
