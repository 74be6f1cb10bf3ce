"""Progressive Mancala's move features: what each move takes from the Goal, and the best next move.

``n`` blocks of ``PROG_PER_MOVE`` columns (``n`` the holes), block ``a`` for action ``a``
(emptying the ``a``-th hole the mover's sowing passes after the Goal), then ``PROG_SUMMARY``
columns. A block is all 0 for an empty hole (``legal_mask``).
Every move is played by ``progressive.apply`` on a copy of the state (relay laps, the Goal's
capture, bonus moves and the end all the kernel's), and so is every next move on the afterstate:
the opponent's replies if the turn passes, the mover's own next move if the turn goes on (a
bonus move). A move's *gain* is the change of the mover's score difference (``scores``: the
stones the mover captured minus the opponent's), i.e. the Goal's contents when the move ends in
the Goal. The last stone itself lands in the Goal, so a move gains exactly when it ends in the
Goal; a move without gain ends in an empty hole and gives the opponent a bonus move (rule 5).
Stones are divided by ``S``, the stones a hole starts with (5 on both ids).

=====  =====================================================================================
col    meaning (the mover plays action ``a``; ``afterstate``: the kernel's state after it)
=====  =====================================================================================
0      1 (the move is legal)
1      the stones in the hole / ``S`` (the observation's entry ``a``)
2      its gain / ``S`` (the Goal's contents, stones dropped in passing included)
3      1 if the gain is > 0 (it ends in the Goal); 0: it ends in an empty hole, a bonus move
       for the opponent's next turn
4      1 if the mover moves again (the turn goes on: moves of it left)
5      1 if the move ends the game
6      then the result for the mover (+1, -1, 0 on a custom board's draw; ``returns``); else 0
7      the stones in the Goal on the afterstate / ``S`` (what the next move ending there takes)
8      the opponent's best reply: the most gain one of their legal moves on the afterstate
       makes for them / ``S``; 0 if the game ended or the mover moves again
9      the share of their replies with a gain > 0 (that end in the Goal)
10     1 if one of their replies ends the game with the mover losing
11     the opponent's legal replies / ``n``
12     the mover's follow-up: if the mover moves again, the most gain one of their next moves
       on the afterstate makes / ``S``; else 0
13     column 2 - column 8 + column 12: the move's gain and the best next move's, whoever's
=====  =====================================================================================

The summary: the best column 2 and the best column 13 over the legal moves (0 without any), the
share of the ``n`` holes whose move gains, the mover's legal moves / ``n``, the moves left in
the mover's turn (this one included) and the bonus counted so far (the opponent's extra moves
next turn; both from the observation, raw counts), the mover's score difference / ``T`` (``T``
the board's stones), the stones still in play (row and Goal) / ``T``, and the Goal now / ``S``.

Columns 8-13 are one move of look-ahead, not a search: the opponent's first move of their turn,
or the mover's next move of theirs. There is no follow-up threat when the turn passes (the
kernel has no null move). Cost: at most ``n`` moves and ``n`` next moves to each, each a state
copy and a kernel move; ``benchmarks/leaf_cost.py --env progressive-v0 --depth 4`` measures what
that adds to a search node, and ``configs/README.md`` has what a search that reads them does to
training.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.progressive import ProgressiveGame
from mancala_envs.games.progressive import apply as progressive_apply
from mancala_envs.games.progressive import current_player as progressive_current_player
from mancala_envs.games.progressive import legal_mask as progressive_legal_mask
from mancala_envs.games.progressive import observe as progressive_observe
from mancala_envs.games.progressive import returns as progressive_returns
from mancala_envs.games.progressive import scores as progressive_scores

from .common import NO_GAIN, MoveFeatureSet, batch_of, clear, difference_with, register, replies_with

__all__ = ["PROGRESSIVE_FEATURES", "PROG_PER_MOVE", "PROG_SUMMARY", "progressive_features_into"]

PROG_PER_MOVE = 14
PROG_SUMMARY = 9


_progressive_difference = cached_njit(difference_with(progressive_scores), inline="always")  # captured stones


_progressive_next_moves = cached_njit(replies_with(progressive_legal_mask, progressive_apply, progressive_current_player,
                                                   progressive_returns, _progressive_difference))


@cached_njit
def _progressive(state, params, n, S, T, obs, out):
    """Every block and the summary (module docstring), each move played by the kernel on a copy."""
    me = progressive_current_player(state, params)
    if me < 0:
        return
    mask = np.zeros(n, np.int8)
    next_mask = np.zeros(n, np.int8)
    after = np.empty_like(state)
    reply = np.empty_like(state)
    seen = np.zeros(obs.shape[0], np.float32)
    buffer = np.zeros(2, np.float64)
    legal = progressive_legal_mask(state, params, mask)
    lead = _progressive_difference(state, params, me, buffer)
    best_gain, best_net, gaining = -NO_GAIN, -NO_GAIN, 0
    for a in range(n):
        if mask[a] == 0:
            continue
        copy_into(after, state)
        progressive_apply(after, params, a)
        gained = _progressive_difference(after, params, me, buffer) - lead
        progressive_observe(after, params, me, seen)
        o = a * PROG_PER_MOVE
        out[o] = 1.0
        out[o + 1] = obs[a] / S
        out[o + 2] = gained / S
        out[o + 3] = 1.0 if gained > 0 else 0.0
        out[o + 7] = seen[n] / S
        net = gained
        mover = progressive_current_player(after, params)
        if mover < 0:
            progressive_returns(after, params, buffer)
            out[o + 5] = 1.0
            out[o + 6] = buffer[me]
        elif mover == me:  # a move of the turn left: the mover's own best next move
            out[o + 4] = 1.0
            count, best, _, _ = _progressive_next_moves(after, params, 1 - me, reply, next_mask, buffer)
            out[o + 12] = best / S
            net += best
        else:
            count, best, replies_gaining, losing = _progressive_next_moves(after, params, me, reply, next_mask, buffer)
            out[o + 8] = best / S
            out[o + 9] = replies_gaining / count
            out[o + 10] = losing
            out[o + 11] = count / n
            net -= best
        out[o + 13] = net / S
        best_gain = max(best_gain, gained)
        best_net = max(best_net, net)
        gaining += 1 if gained > 0 else 0
    o = n * PROG_PER_MOVE
    if best_gain > -NO_GAIN:
        out[o] = best_gain / S
        out[o + 1] = best_net / S
    out[o + 2] = gaining / n
    out[o + 3] = legal / n
    out[o + 4] = obs[n + 4]
    out[o + 5] = obs[n + 5]
    out[o + 6] = lead / T
    in_play = T - obs[n + 1] - obs[n + 2]
    out[o + 7] = in_play / T
    out[o + 8] = obs[n] / S


@cached_njit
def progressive_features_into(layout, state, params, obs, out):
    """Progressive's features of one position into ``out`` (float32[n * PROG_PER_MOVE + PROG_SUMMARY]):
    its state and ``params`` (the kernel's) and its player to move's observation ``obs``;
    ``layout``: (holes ``n``, stones a hole starts with ``S``, the board's stones ``T``). ``out``
    is zeroed, then filled only if it has the width the layout gives (``common``)."""
    clear(out)
    if out.shape[0] == layout[0] * PROG_PER_MOVE + PROG_SUMMARY:
        _progressive(state, params, layout[0], layout[1], layout[2], obs, out)


def _holes(options) -> int:
    return int(options["holes"])


def _layout(options) -> np.ndarray:
    holes, stones = int(options["holes"]), int(options["stones"])
    return np.array([holes, stones, holes * stones], np.int64)


#: Progressive's set. Version 1: the first, every column read from the afterstates the kernel plays.
PROGRESSIVE_FEATURES = register(MoveFeatureSet(
    name="progressive", game=ProgressiveGame, version=1, per_block=PROG_PER_MOVE, summary=PROG_SUMMARY,
    blocks=_holes, layout=_layout,
    features_into=progressive_features_into, features_batch=batch_of(progressive_features_into)))
