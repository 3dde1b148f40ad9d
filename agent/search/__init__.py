"""The searches: determinized ISMCTS, the exact endgame solver, lost-endgame odds, and the worlds they sample.

:mod:`agent.search.worlds` samples worlds consistent with what the agent knows,
:mod:`agent.search.mcts` is the information-set MCTS, :mod:`agent.search.solver` the exact
alpha-beta once every card is known, :mod:`agent.search.odds` a lost endgame's odds against a
fallible opponent, and :mod:`agent.search.evaluate` each legal card's value for the post-game
analysis (the same ISMCTS iteration below each card).
"""
