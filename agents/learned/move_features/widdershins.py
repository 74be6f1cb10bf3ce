"""Widdershins' move features: what each move captures, the best reply, the threat, the line of three plies.

Every move is played by the kernel's ``apply`` on a copy of the position's state
(``widdershins.apply``), and so is every reply and follow-up (package docstring); the captures are
read from the afterstates with ``widdershins.player_cards``.

24 blocks of ``WIDD_PER_MOVE`` columns, block ``a`` for action ``a`` (0..11: move view stack
``a``; 12..23: the single Ace at view position ``a - 12`` moves clockwise), then
``WIDD_SUMMARY`` columns. A block is all 0 for a move that is
not legal (``legal_mask``: the row rule, an Ace's second direction); pass and resign have none.
"Cards" are the cards of a player's colour in play; a move's *gain* is the change of the
mover's score difference (``scores``: the mover's score minus the opponent's) that the kernel's
move makes. Under Gering's ending that is the opponent's cards captured minus the mover's cards
lost, except that a move completing a repetition (a draw, scored 0-0) gains minus the lead:
so a network sees that repeating a position throws a lead away.

=====  =====================================================================================
col    meaning (the mover plays action ``a``; ``afterstate``: the kernel's state after it)
=====  =====================================================================================
0      1 (the move is legal)
1      the opponent's cards the whole move captured / 13 (every sow-on lap included)
2      the mover's cards it lost / 13
3      its gain (Gering: column 1 - column 2, unless it draws by repetition) / 13
4      1 if the move ends the game
5      then the result for the mover (+1, 0, -1; ``returns``); else 0
6      the opponent's best reply: the most gain one of their legal replies on the afterstate
       makes for them (may be negative) / 13; 0 if the game ended
7      the share of their replies with a gain > 0
8      1 if one of their replies ends the game with the mover losing
9      column 3 - column 6: the mover's gain after the move and the best reply
10     the opponent's legal replies / 12
11     the mover's follow-up threat: the most gain one move of the mover could make on the
       afterstate were it their turn again (the opponent's turn skipped,
       ``widdershins.pass_turn``; 0 if the mover would have no move there) / 13
12     the move's *line*: the change of the mover's score difference after the move, the
       opponent's reply that leaves the mover least, and the mover's best follow-up to that
       reply (the minimax of every reply and every follow-up, all played by the kernel; a game
       end stops the line, and a line ending the game is weighed by its result first, as
       plain alpha-beta weighs a won or lost end above any score) / 13
13     the line's result for the mover: +1 or -1 if it ends the game won or lost (the
       opponent cannot avoid the loss, or the mover cannot avoid it, within the three plies);
       else 0
14     1 if the move's line (columns 13, 12) is the best of the legal moves (ties all 1)
=====  =====================================================================================

The summary: the best column 3 and the best column 9 over the legal moves (0 without any), the
mover's legal actions / 12, the mover's score difference now / 13, the threat now: the
most gain one move of the opponent could make on the position were it their turn (a null
move) / 13, and the best move's column 12 (0 without any).

Columns 6-11 and the threat are look-ahead of one move by each side; columns 12-14 carry the
line of three plies (move, reply, follow-up), the score difference a plain ``alphabeta:depth=3``
values the move by: the bare policy network (``policy:RUN``) sees what a move wins, what the
reply can win back, what the move threatens next, and what the mover keeps after the best
reply and its own best answer. Cost: at most 24 moves, their replies and the follow-ups to each
reply, each a state copy and a kernel move; ``benchmarks/leaf_cost.py`` (Widdershins by default)
measures what that adds to a search node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.widdershins import A_ACE_CW, CAP, NUM_ACTIONS, WiddershinsGame
from mancala_envs.games.widdershins import apply as widdershins_apply
from mancala_envs.games.widdershins import current_player as widdershins_current_player
from mancala_envs.games.widdershins import legal_mask as widdershins_legal_mask
from mancala_envs.games.widdershins import pass_turn as widdershins_pass_turn
from mancala_envs.games.widdershins import player_cards as widdershins_player_cards
from mancala_envs.games.widdershins import returns as widdershins_returns
from mancala_envs.games.widdershins import scores as widdershins_scores

from .common import NO_GAIN, MoveFeatureSet, batch_of, clear, difference_with, register, replies_with

__all__ = ["WIDDERSHINS_FEATURES", "WIDD_PER_MOVE", "WIDD_SUMMARY", "widdershins_features_into"]

WIDD_PER_MOVE = 15
WIDD_SUMMARY = 6
LINE_WIN = 1000  # a line's result outweighs any change of the score difference (plain alpha-beta: 1e6 * result)
WIDD_CAP, WIDD_MOVES, WIDD_ACTIONS = CAP, 2 * A_ACE_CW, NUM_ACTIONS  # the kernel's sizes
WIDD_WIDTH = WIDD_MOVES * WIDD_PER_MOVE + WIDD_SUMMARY


_score_difference = cached_njit(difference_with(widdershins_scores), inline="always")  # cards


_widdershins_replies = cached_njit(replies_with(widdershins_legal_mask, widdershins_apply, widdershins_current_player,
                                                widdershins_returns, _score_difference))


@cached_njit
def _widdershins_follow_up(after, params, me, null, reply, mask, result):
    """The most gain ``me`` could make with one move on ``after`` were it their
    turn again: the opponent's turn skipped (``widdershins.pass_turn``, a null move), each of
    ``me``'s moves played by the kernel. 0 when ``me`` would have no move there."""
    copy_into(null, after)
    widdershins_pass_turn(null, params)
    if widdershins_current_player(null, params) != me:
        return 0
    count, best, _, _ = _widdershins_replies(null, params, 1 - me, reply, mask, result)
    return best if count > 0 else 0


@njit(cache=True, inline="always")
def _line_leaf(state, params, me, lead, result):
    """A line's value for ``me`` where it stops: the change of ``me``'s score difference since the
    root (``lead``), plus ``LINE_WIN`` times the result if the game has ended (``returns``)."""
    value = _score_difference(state, params, me, result) - lead
    if widdershins_current_player(state, params) < 0:
        widdershins_returns(state, params, result)
        value += LINE_WIN * np.int64(result[me])
    return value


@njit(cache=True, inline="always")
def _extreme(best, value, maximise):
    """The better of ``best`` and ``value`` for the player choosing: the larger if ``maximise``."""
    return max(best, value) if maximise else min(best, value)


@cached_njit
def _widdershins_line(after, params, me, lead, reply, follow, reply_mask, follow_mask, result):
    """A move's line of three plies, the move made (``after``): the minimax value for ``me`` over the
    replies on ``after`` and the follow-ups to each, every one played by the kernel (``reply``,
    ``follow``: scratch states); a game end stops the line."""
    if widdershins_current_player(after, params) < 0:
        return _line_leaf(after, params, me, lead, result)
    widdershins_legal_mask(after, params, reply_mask)
    replier_maximises = widdershins_current_player(after, params) == me
    best = -NO_GAIN if replier_maximises else NO_GAIN
    for b in range(reply_mask.shape[0]):
        if reply_mask[b] == 0:
            continue
        copy_into(reply, after)
        widdershins_apply(reply, params, b)
        value = _line_leaf(reply, params, me, lead, result)
        if widdershins_current_player(reply, params) >= 0:  # the follow-ups: the best of the player to move
            widdershins_legal_mask(reply, params, follow_mask)
            follower_maximises = widdershins_current_player(reply, params) == me
            value = -NO_GAIN if follower_maximises else NO_GAIN
            for c in range(follow_mask.shape[0]):
                if follow_mask[c] != 0:
                    copy_into(follow, reply)
                    widdershins_apply(follow, params, c)
                    value = _extreme(value, _line_leaf(follow, params, me, lead, result), follower_maximises)
        best = _extreme(best, value, replier_maximises)
    return best


@njit(cache=True, inline="always")
def _line_result(value):
    """A line value's result part (+1, 0, -1): the nearest multiple of ``LINE_WIN``."""
    return (value + LINE_WIN // 2) // LINE_WIN


@cached_njit
def _widdershins(state, params, out):
    """Every block and the summary (module docstring), each move played by the kernel on a copy."""
    me = widdershins_current_player(state, params)
    if me < 0:
        return
    mask = np.zeros(WIDD_ACTIONS, np.int8)
    reply_mask = np.zeros(WIDD_ACTIONS, np.int8)
    follow_mask = np.zeros(WIDD_ACTIONS, np.int8)
    lines = np.zeros(WIDD_MOVES, np.int64)
    after = np.empty_like(state)
    reply = np.empty_like(state)
    null = np.empty_like(state)
    follow = np.empty_like(state)
    result = np.zeros(2, np.float64)
    legal = widdershins_legal_mask(state, params, mask)
    mine, theirs = widdershins_player_cards(state, me), widdershins_player_cards(state, 1 - me)
    lead = _score_difference(state, params, me, result)
    best_gain, best_net, best_line = -2 * WIDD_CAP, -2 * WIDD_CAP, -NO_GAIN
    for a in range(WIDD_MOVES):
        if mask[a] == 0:
            continue
        copy_into(after, state)
        widdershins_apply(after, params, a)
        captured = theirs - widdershins_player_cards(after, 1 - me)
        lost = mine - widdershins_player_cards(after, me)
        gained = _score_difference(after, params, me, result) - lead
        o = a * WIDD_PER_MOVE
        out[o] = 1.0
        out[o + 1] = captured / 13.0
        out[o + 2] = lost / 13.0
        out[o + 3] = gained / 13.0
        net = gained
        if widdershins_current_player(after, params) < 0:
            widdershins_returns(after, params, result)
            out[o + 4] = 1.0
            out[o + 5] = result[me]
        else:
            count, best, gaining, losing = _widdershins_replies(after, params, me, reply, reply_mask, result)
            out[o + 6] = best / 13.0
            out[o + 7] = gaining / count
            out[o + 8] = losing
            out[o + 10] = count / 12.0
            out[o + 11] = _widdershins_follow_up(after, params, me, null, reply, reply_mask, result) / 13.0
            net -= best
        out[o + 9] = net / 13.0
        line = _widdershins_line(after, params, me, lead, reply, follow, reply_mask, follow_mask, result)
        lines[a] = line
        out[o + 12] = (line - LINE_WIN * _line_result(line)) / 13.0
        out[o + 13] = _line_result(line)
        best_gain = max(best_gain, gained)
        best_net = max(best_net, net)
        best_line = max(best_line, line)
    o = WIDD_MOVES * WIDD_PER_MOVE
    if best_gain > -2 * WIDD_CAP:
        out[o] = best_gain / 13.0
        out[o + 1] = best_net / 13.0
        out[o + 5] = (best_line - LINE_WIN * _line_result(best_line)) / 13.0
        for a in range(WIDD_MOVES):
            if mask[a] != 0 and lines[a] == best_line:
                out[a * WIDD_PER_MOVE + 14] = 1.0
    out[o + 2] = legal / 12.0
    out[o + 3] = lead / 13.0
    out[o + 4] = _widdershins_follow_up(state, params, 1 - me, null, reply, reply_mask, result) / 13.0


@cached_njit
def widdershins_features_into(layout, state, params, obs, out):
    """Widdershins' features of one position into ``out`` (float32[WIDD_WIDTH]): its state and
    ``params`` (the kernel's); ``layout`` and ``obs`` unused. ``out`` is zeroed, then filled only
    if it has the set's width (``common``)."""
    clear(out)
    if out.shape[0] == WIDD_WIDTH:
        _widdershins(state, params, out)


def _moves(options) -> int:
    return WIDD_MOVES


def _layout(options) -> np.ndarray:
    return np.zeros(3, np.int64)


#: Widdershins' set. Version 3: columns 12-14 and the sixth summary column, each move's line of
#: three plies (version 2: columns 0-11, every column read from the afterstates the kernel plays;
#: version 1: the first landing simulated on the observation).
WIDDERSHINS_FEATURES = register(MoveFeatureSet(
    name="widdershins", game=WiddershinsGame, version=3, per_block=WIDD_PER_MOVE, summary=WIDD_SUMMARY,
    blocks=_moves, layout=_layout,
    features_into=widdershins_features_into, features_batch=batch_of(widdershins_features_into)))
