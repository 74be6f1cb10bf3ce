"""Rondell's move features: what each lift captures and what the opponent can take back.

Every lift is played by the kernel's ``apply`` on a copy of the position's state
(``rondell.apply``), and so is every reply of the opponent on the afterstate (package docstring).
``P`` blocks of ``ROND_PER_PILE`` columns, block ``a`` for action ``a`` (lifting pile ``a``;
with ``partial`` the mover's ``a``-th pile, as the actions count them), then ``ROND_SUMMARY``
columns. A block is all 0 for a pile that cannot be lifted
(``legal_mask``: fewer than 2 cards, the reserved pile, the other player's area). The *lifter*
is the player to move; in a reservation step (``reservation``: the mover has just moved and
may reserve a pile) it is the opponent, and the blocks are their lifts after the kernel plays
"reserve nothing" (action ``P``): what reserving each pile would deny them. A lift's *gain*
is the change of the lifter's point difference (``scores``: the lifter's points minus the
opponent's) that the kernel's move makes: the pairs it captures on every lap (a blue pair 2
points, a red pair 1) and, if it ends the game, the leftovers to their taker. Points are
divided by 2 (a blue pair is 1).

=====  =====================================================================================
col    meaning (the lifter plays action ``a``; ``afterstate``: the kernel's state after it,
       after "reserve nothing" if the lifter's reservation step follows)
=====  =====================================================================================
0      1 (the lift is legal)
1      the lifted pile's height / ``T`` (``T`` the deck size; the observation's height)
2      its gain / 2 (every sow-on lap included)
3      1 if the gain is > 0 (it captures, or ends the game taking the leftovers)
4      1 if the move ends the game
5      then the result for the lifter (+1, -1; ``returns``); else 0
6      the opponent's best reply: the most gain one of their legal lifts on the afterstate
       makes for them (may be negative: a repetition hands the leftovers back) / 2; 0 if
       the game ended or the opponent passes (``partial``: the lifter moves again)
7      the share of their replies with a gain > 0
8      1 if one of their replies ends the game with the lifter losing
9      column 2 - column 6: the lifter's gain after the move and the best reply
10     the opponent's legal replies / ``P``
=====  =====================================================================================

The summary: the best column 2 and the best column 9 over the legal lifts (0 without any),
the share of the ``P`` piles whose lift gains (column 3), and the lifter's legal lifts / ``P``.
Cost: at most ``P`` lifts and ``P`` replies to each, each a state copy and a kernel move;
``benchmarks/leaf_cost.py --env rondell-v0`` measures what that adds to a search node.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.rondell import RondellGame
from mancala_envs.games.rondell import apply as rondell_apply
from mancala_envs.games.rondell import current_player as rondell_current_player
from mancala_envs.games.rondell import legal_mask as rondell_legal_mask
from mancala_envs.games.rondell import returns as rondell_returns
from mancala_envs.games.rondell import scores as rondell_scores

from .common import NO_GAIN, MoveFeatureSet, batch_of, clear, difference_with, register, replies_with

__all__ = ["RONDELL_FEATURES", "ROND_PER_PILE", "ROND_SUMMARY", "rondell_features_into"]

ROND_PER_PILE = 11
ROND_SUMMARY = 4


_rondell_difference = cached_njit(difference_with(rondell_scores), inline="always")  # points


@cached_njit
def _rondell_lift_next(state, params, piles, mask):
    """Bring ``state`` (a copy the caller owns) to where a pile is lifted next and write its legal
    mask into ``mask`` (int8[piles + 1], zeros past the game's actions); returns the legal count.
    A reservation step (the only position where action ``piles``, reserve nothing, is legal) is
    played by the kernel as reserve nothing."""
    count = rondell_legal_mask(state, params, mask)
    if mask[piles] != 0:
        rondell_apply(state, params, piles)
        count = rondell_legal_mask(state, params, mask)
    return count


_rondell_replies = cached_njit(replies_with(rondell_legal_mask, rondell_apply, rondell_current_player,
                                            rondell_returns, _rondell_difference))


@cached_njit
def _rondell(state, params, P, T, obs, out):
    """Every block and the summary (module docstring), each lift played by the kernel on a copy."""
    mask = np.zeros(P + 1, np.int8)
    reply_mask = np.zeros(P + 1, np.int8)
    base = np.empty_like(state)
    after = np.empty_like(state)
    reply = np.empty_like(state)
    buffer = np.zeros(2, np.float64)
    copy_into(base, state)
    legal = _rondell_lift_next(base, params, P, mask)
    lifter = rondell_current_player(base, params)
    if lifter < 0:
        return
    lead = _rondell_difference(base, params, lifter, buffer)
    best_gain, best_net, capturing = -NO_GAIN, -NO_GAIN, 0
    for a in range(P):
        if mask[a] == 0:
            continue
        copy_into(after, base)
        rondell_apply(after, params, a)
        _rondell_lift_next(after, params, P, reply_mask)
        gained = _rondell_difference(after, params, lifter, buffer) - lead
        o = a * ROND_PER_PILE
        out[o] = 1.0
        out[o + 1] = obs[P * T + a] / T
        out[o + 2] = gained / 2.0
        out[o + 3] = 1.0 if gained > 0 else 0.0
        net = gained
        mover = rondell_current_player(after, params)
        if mover < 0:
            rondell_returns(after, params, buffer)
            out[o + 4] = 1.0
            out[o + 5] = buffer[lifter]
        elif mover != lifter:
            count, best, gaining, losing = _rondell_replies(after, params, lifter, reply, reply_mask, buffer)
            out[o + 6] = best / 2.0
            out[o + 7] = gaining / count
            out[o + 8] = losing
            out[o + 10] = count / P
            net -= best
        out[o + 9] = net / 2.0
        best_gain = max(best_gain, gained)
        best_net = max(best_net, net)
        capturing += 1 if gained > 0 else 0
    o = P * ROND_PER_PILE
    if best_gain > -NO_GAIN:
        out[o] = best_gain / 2.0
        out[o + 1] = best_net / 2.0
    out[o + 2] = capturing / P
    out[o + 3] = legal / P


@cached_njit
def rondell_features_into(layout, state, params, obs, out):
    """Rondell's features of one position into ``out`` (float32[P * ROND_PER_PILE + ROND_SUMMARY]):
    its state and ``params`` (the kernel's) and its player to move's observation ``obs``;
    ``layout``: (piles ``P``, deck size ``T``, 0). ``out`` is zeroed, then filled only if it has
    the width the layout gives (``common``)."""
    clear(out)
    if out.shape[0] == layout[0] * ROND_PER_PILE + ROND_SUMMARY:
        _rondell(state, params, layout[0], layout[1], obs, out)


def _piles(options) -> int:
    return int(options["piles"])


def _layout(options) -> np.ndarray:
    piles = int(options["piles"])
    return np.array([piles, piles * int(options["cards_per_pile"]), 0], np.int64)


#: Rondell's set. Version 2: every column read from the afterstates the kernel plays, the
#: opponent's replies included (version 1: the first landing of each lift simulated on the observation).
RONDELL_FEATURES = register(MoveFeatureSet(
    name="rondell", game=RondellGame, version=2, per_block=ROND_PER_PILE, summary=ROND_SUMMARY,
    blocks=_piles, layout=_layout,
    features_into=rondell_features_into, features_batch=batch_of(rondell_features_into)))
