"""The opponent model: how the opponent chooses its cards, and the worlds it makes likely.

The opponent's hidden cards all come from its first ten (every card drawn from the stock
is shown), so every play it made while cards were hidden was made from a hand holding
exactly today's hidden cards plus cards whose place the agent knows.  Given a candidate
set of hidden cards the agent can therefore rebuild the opponent's hand at each of its
past decisions and ask how likely the card it really played was.

The policy is a conditional logit: each legal card gets a score ``theta . f(card)`` from a
few features of the card in its hand and trick (points, strength, suit length, whether it
is the best card left in its suit, whether it takes the trick, ...), and the player picks
card ``c`` with probability ``exp(score_c) / sum exp(score)``.  Leads and answers have
their own weights, and so has each variant.  ``theta`` is fit on recorded games
(``python -m lab.inference fit-policy``) and shipped as ``policy.json``.

At a decision the agent draws a pool of candidate hidden hands (uniform, consistent with
what it knows), weighs each by the likelihood of the opponent's plays so far (tempered by
``temper``), and its search then draws worlds from the pool by weight (a particle
posterior).  The history must carry the trick's draws for the hands to be rebuilt; without
them the agent falls back to uniform worlds.

Modules: :mod:`agent.opponent.policy` (the features and the fitted policy, shipped as
``policy.json``), :mod:`agent.opponent.past` (the opponent's past plays on rebuilt hands),
:mod:`agent.opponent.posterior` (the pool of candidate hidden hands weighed by them).
"""
