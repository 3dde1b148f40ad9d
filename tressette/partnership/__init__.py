"""The four-player partnership game: seats 0 and 2 against 1 and 3, declarations and signals.

Pure standard library, like the rest of ``tressette``; the two-player modules are
untouched by it.  The rules chosen (and the variants left out) are written in
``docs/four-player-rules.md``.

>>> import random
>>> match = PartnershipMatch.start(31, random.Random(5))
>>> while not match.is_over:
...     deal = PartnershipDeal.new(match.next_leader, random.Random(match.deals),
...                                PartnershipOptions.default_for(match.target))
...     while not deal.is_over:
...         _ = deal.play(deal.legal_moves()[0], declarations=deal.declarable())
...     match = match.after(deal.outcome())
>>> max(match.scores) >= 31
True
"""

from tressette.partnership.deal import (
    N_SEATS,
    N_TRICKS,
    SEATS,
    PartnershipDeal,
    PartnershipMove,
    PartnershipOptions,
    PartnershipOutcome,
    PartnershipTrick,
    partner_of,
    partnership_of,
    replay_partnership,
    trick_winner,
)
from tressette.partnership.declarations import (
    DECLARATION_POINTS,
    Declaration,
    DeclarationKind,
    Signal,
    SignalName,
    possible_declarations,
    signal_is_true,
)
from tressette.partnership.match import (
    PARTNERSHIP_TARGETS,
    PartnershipMatch,
    draw_first_leader,
    leader_of_deal,
    partnership_match_winner,
)
from tressette.partnership.view import PartnershipView, parse_partnership_view, view_of_partnership

__all__ = [
    "DECLARATION_POINTS",
    "N_SEATS",
    "N_TRICKS",
    "PARTNERSHIP_TARGETS",
    "SEATS",
    "Declaration",
    "DeclarationKind",
    "PartnershipDeal",
    "PartnershipMatch",
    "PartnershipMove",
    "PartnershipOptions",
    "PartnershipOutcome",
    "PartnershipTrick",
    "PartnershipView",
    "Signal",
    "SignalName",
    "draw_first_leader",
    "leader_of_deal",
    "parse_partnership_view",
    "partner_of",
    "partnership_match_winner",
    "partnership_of",
    "possible_declarations",
    "replay_partnership",
    "signal_is_true",
    "trick_winner",
    "view_of_partnership",
]
