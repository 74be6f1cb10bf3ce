"""Kalah's move features: what each sowing banks, whether it moves again, and the best reply.

``A`` blocks of ``KALAH_PER_MOVE`` columns (``A`` the play actions: ``pits``, twice that with
``directions=2``), block ``a`` for action ``a``, then ``KALAH_SUMMARY`` columns. A block is all 0
for a hole that cannot be played (``legal_mask``). Every move is played by ``kalah.apply`` on a
copy of the state (sowing, skipping the origin, the extra turn, the capture, the end and its
leftovers all the kernel's), and so is every next move on the afterstate: the opponent's replies
if the turn passes, the mover's own next move if it moves again. A move's *gain* is the change
of the mover's store difference (``scores``: the mover's store minus the opponent's): the seeds
it sows into the store, plus a capture, plus the leftovers if it ends the game. Seeds are
divided by ``S``, the seeds a hole starts with, or by ``T``, the board's seeds.

=====  =====================================================================================
col    meaning (the mover plays action ``a``; ``afterstate``: the kernel's state after it)
=====  =====================================================================================
0      1 (the move is legal)
1      the seeds in the hole / ``S``
2      its gain / ``S`` (store seeds, capture and leftovers)
3      1 if the gain is more than 1 seed (a capture, a lap or leftovers: more than the one
       seed a single pass of the store banks)
4      1 if the mover moves again (an extra turn)
5      1 if the move ends the game
6      then the result for the mover (+1, -1, 0; ``returns``); else 0
7      the seeds left in the mover's row on the afterstate / ``T``
8      the seeds in the opponent's row on the afterstate / ``T``
9      the opponent's best reply: the most gain one of their legal moves on the afterstate
       makes for them / ``S``; 0 if the game ended or the mover moves again
10     the share of their replies with a gain > 0
11     1 if one of their replies ends the game with the mover losing
12     the mover's follow-up: if the mover moves again, the most gain one of their next moves
       on the afterstate makes / ``S``; else 0
13     column 2 - column 9 + column 12: the move's gain and the best next move's, whoever's
=====  =====================================================================================

The summary: the best column 2 and the best column 13 over the legal moves (0 without any),
the share of the ``A`` actions that move again, the mover's legal moves / ``A``, the mover's
store difference / ``T`` and the seeds still in the rows / ``T``.

Columns 9-13 are one move of look-ahead, not a search: the opponent's first move of their turn,
or the mover's next move of theirs. Cost: at most ``A`` moves and ``A`` next moves to each, each a
state copy and a kernel move; ``benchmarks/leaf_cost.py --env kalah-v0 --depth 4`` measures what
that adds to a search node. The chosen-start setup has no move features (its phases are not
sowing moves): ``chosen_start=True`` is refused.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.kalah import KalahGame
from mancala_envs.games.kalah import apply as kalah_apply
from mancala_envs.games.kalah import current_player as kalah_current_player
from mancala_envs.games.kalah import legal_mask as kalah_legal_mask
from mancala_envs.games.kalah import observe as kalah_observe
from mancala_envs.games.kalah import returns as kalah_returns
from mancala_envs.games.kalah import scores as kalah_scores

from .common import NO_GAIN, MoveFeatureError, MoveFeatureSet, batch_of, clear, difference_with, register, replies_with

__all__ = ["KALAH_FEATURES", "KALAH_PER_MOVE", "KALAH_SUMMARY", "kalah_features_into"]

KALAH_PER_MOVE = 14
KALAH_SUMMARY = 6


_kalah_difference = cached_njit(difference_with(kalah_scores), inline="always")  # store seeds

_kalah_next_moves = cached_njit(replies_with(kalah_legal_mask, kalah_apply, kalah_current_player, kalah_returns,
                                             _kalah_difference))


@cached_njit
def _row_seeds(seen, start, n):
    """The seeds in ``n`` holes of an observation from entry ``start``."""
    total = 0.0
    for i in range(n):
        total += seen[start + i]
    return total


@cached_njit
def _kalah(state, params, actions, S, T, obs, out):
    """Every block and the summary (module docstring), each move played by the kernel on a copy."""
    me = kalah_current_player(state, params)
    if me < 0:
        return
    pits = obs.shape[0] // 2 - 1  # the observation: the mover's holes and store, then the opponent's, then the turn
    mask = np.zeros(actions, np.int8)
    next_mask = np.zeros(actions, np.int8)
    after = np.empty_like(state)
    reply = np.empty_like(state)
    seen = np.zeros(obs.shape[0], np.float32)
    buffer = np.zeros(2, np.float64)
    legal = kalah_legal_mask(state, params, mask)
    lead = _kalah_difference(state, params, me, buffer)
    best_gain, best_net, again = -NO_GAIN, -NO_GAIN, 0
    for a in range(actions):
        if mask[a] == 0:
            continue
        copy_into(after, state)
        kalah_apply(after, params, a)
        gained = _kalah_difference(after, params, me, buffer) - lead
        kalah_observe(after, params, me, seen)
        o = a * KALAH_PER_MOVE
        out[o] = 1.0
        out[o + 1] = obs[a % pits] / S
        out[o + 2] = gained / S
        out[o + 3] = 1.0 if gained > 1 else 0.0
        out[o + 7] = _row_seeds(seen, 0, pits) / T
        out[o + 8] = _row_seeds(seen, pits + 1, pits) / T
        net = gained
        mover = kalah_current_player(after, params)
        if mover < 0:
            kalah_returns(after, params, buffer)
            out[o + 5] = 1.0
            out[o + 6] = buffer[me]
        elif mover == me:  # an extra turn: the mover's own best next move
            out[o + 4] = 1.0
            again += 1
            _, best, _, _ = _kalah_next_moves(after, params, 1 - me, reply, next_mask, buffer)
            out[o + 12] = best / S
            net += best
        else:
            count, best, replies_gaining, losing = _kalah_next_moves(after, params, me, reply, next_mask, buffer)
            out[o + 9] = best / S
            out[o + 10] = replies_gaining / count
            out[o + 11] = losing
            net -= best
        out[o + 13] = net / S
        best_gain = max(best_gain, gained)
        best_net = max(best_net, net)
    o = actions * KALAH_PER_MOVE
    if best_gain > -NO_GAIN:
        out[o] = best_gain / S
        out[o + 1] = best_net / S
    out[o + 2] = again / actions
    out[o + 3] = legal / actions
    out[o + 4] = lead / T
    out[o + 5] = (_row_seeds(obs, 0, pits) + _row_seeds(obs, pits + 1, pits)) / T


@cached_njit
def kalah_features_into(layout, state, params, obs, out):
    """Kalah's features of one position into ``out`` (float32[A * KALAH_PER_MOVE + KALAH_SUMMARY]):
    its state and ``params`` (the kernel's) and its player to move's observation ``obs``;
    ``layout``: (play actions ``A``, seeds a hole starts with ``S``, the board's seeds ``T``).
    ``out`` is zeroed, then filled only if it has the width the layout gives (``common``)."""
    clear(out)
    if out.shape[0] == layout[0] * KALAH_PER_MOVE + KALAH_SUMMARY:
        _kalah(state, params, layout[0], layout[1], layout[2], obs, out)


def _actions(options) -> int:
    if options["chosen_start"]:
        raise MoveFeatureError("Kalah's move features read sowing moves; the chosen-start setup "
                               "(chosen_start=True) has none: use features 'none'")
    return int(options["pits"]) * int(options["directions"])


def _layout(options) -> np.ndarray:
    pits, seeds = int(options["pits"]), int(options["seeds"])
    return np.array([_actions(options), seeds, 2 * pits * seeds], np.int64)


#: Kalah's set. Version 1: the first, every column read from the afterstates the kernel plays.
KALAH_FEATURES = register(MoveFeatureSet(
    name="kalah", game=KalahGame, version=1, per_block=KALAH_PER_MOVE, summary=KALAH_SUMMARY,
    blocks=_actions, layout=_layout,
    features_into=kalah_features_into, features_batch=batch_of(kalah_features_into)))
