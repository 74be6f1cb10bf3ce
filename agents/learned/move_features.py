"""Move features: what each move does, as extra network inputs for the card games and Progressive.

A network that reads every card of every pile (Rondell: 499 observation entries, Widdershins:
1901) must learn from a few thousand positions where a move ends, which depends on the
height of the lifted pile and on which piles are still in the ring. It does not: fitted on
the raw observation, the bare policy networks of both card games played like random
(``configs/README.md``). The *move features* give, for every move, what it does, so a
network weighs each move by its effect. They are inputs, not rules.

Both are read from the game's own kernel: every legal move is played by the kernel's
``apply`` on a copy of the position's state (``rondell.apply``, ``widdershins.apply``), and so
is every reply of the opponent on the afterstate; the columns are counts read from those
afterstates (the kernels' ``scores``, ``current_player``, ``returns``, ``legal_mask``, and
Widdershins' ``player_cards``). No sowing, landing or capture is computed here: the rules stay
in the kernels, sow-on laps, repetitions and the endings included.

``features: moves`` in a value config (``value.features``) appends them to the encoded
observation (``mancala_envs.core.encodings``) as extra input columns; the evaluation file
records the set and its version (``FEATURE_VERSIONS``; ``mancala_envs.agents.learned.learned_eval``
refuses a file of another version), and the jitted forward pass inside alpha-beta and MCTS
computes them at the leaf from its state (``features_into``, through
``learned_eval.load_features``).

Rondell (family ``rondell``): ``P`` blocks of ``ROND_PER_PILE`` columns, block ``a`` for
action ``a`` (lifting pile ``a``; with ``partial`` the mover's ``a``-th pile, as the actions
count them), then ``ROND_SUMMARY`` columns. A block is all 0 for a pile that cannot be lifted
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
Cost: at most ``P`` lifts and ``P`` replies to each, each a state copy and a kernel move:
measured about 28 us a node inside alpha-beta on ``rondell-v0`` at load 11 (20,000 nodes/s
against 45,000 for the learned evaluation without them; ``benchmarks/leaf_cost.py --env
rondell-v0``).

Widdershins (family ``widdershins``): 24 blocks of ``WIDD_PER_MOVE`` columns, block ``a``
for action ``a`` (0..11: move view stack ``a``; 12..23: the single Ace at view position
``a - 12`` moves clockwise), then ``WIDD_SUMMARY`` columns. A block is all 0 for a move that is
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
reply, each a state copy and a kernel move (2.6 legal moves a position on average in self-play):
inside alpha-beta the learned evaluation with them runs at 0.80x the nodes per second of the one
without them (``benchmarks/leaf_cost.py --positions 60 --depth 4``, load 17.7; 0.92x before the
line's columns).

Progressive (family ``progressive``): ``n`` blocks of ``PROG_PER_MOVE`` columns (``n`` the
holes), block ``a`` for action ``a`` (emptying the ``a``-th hole the mover's sowing passes after
the Goal), then ``PROG_SUMMARY`` columns. A block is all 0 for an empty hole (``legal_mask``).
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
kernel has no null move). Cost: at most ``n`` moves and ``n`` next moves to each (132 on
``progressive-v0``), each a state copy and a kernel move: measured about 16 us a node inside
alpha-beta on ``progressive-v0`` at load 10.6 (53,000 nodes/s against 313,000 for the learned
evaluation without them: 0.17x; ``benchmarks/leaf_cost.py --env progressive-v0 --depth 4``), about
5 us a position called alone. A search that reads them visits its leaves about 6 times slower:
``configs/README.md`` has what that does to training.

``move_feature_set(name, family, options)`` gives the set's code, layout, width and version
for a game (``MoveFeatureError`` for a game without move features); ``move_features`` the
features of a batch of positions (states and observations; numpy callers), ``features_into``
one position (jitted code).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.errors import MancalaError
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.progressive import apply as progressive_apply
from mancala_envs.games.progressive import current_player as progressive_current_player
from mancala_envs.games.progressive import legal_mask as progressive_legal_mask
from mancala_envs.games.progressive import observe as progressive_observe
from mancala_envs.games.progressive import returns as progressive_returns
from mancala_envs.games.progressive import scores as progressive_scores
from mancala_envs.games.rondell import apply as rondell_apply
from mancala_envs.games.rondell import current_player as rondell_current_player
from mancala_envs.games.rondell import legal_mask as rondell_legal_mask
from mancala_envs.games.rondell import returns as rondell_returns
from mancala_envs.games.rondell import scores as rondell_scores
from mancala_envs.games.widdershins import A_ACE_CW, CAP, NUM_ACTIONS, N_POS
from mancala_envs.games.widdershins import apply as widdershins_apply
from mancala_envs.games.widdershins import current_player as widdershins_current_player
from mancala_envs.games.widdershins import legal_mask as widdershins_legal_mask
from mancala_envs.games.widdershins import pass_turn as widdershins_pass_turn
from mancala_envs.games.widdershins import player_cards as widdershins_player_cards
from mancala_envs.games.widdershins import returns as widdershins_returns
from mancala_envs.games.widdershins import scores as widdershins_scores

__all__ = ["FEATURE_SETS", "MoveFeatureError", "MoveFeatures", "features_into", "move_feature_set",
           "move_features"]

#: Feature sets by name (what ``value.features`` names): ``none``, or ``moves`` (the game's own).
FEATURE_SETS = ("none", "moves")
F_NONE, F_RONDELL, F_WIDDERSHINS, F_PROGRESSIVE = 0, 1, 2, 3
ROND_PER_PILE = 11
ROND_SUMMARY = 4
WIDD_PER_MOVE = 15
WIDD_SUMMARY = 6
LINE_WIN = 1000  # a line's result outweighs any change of the score difference (plain alpha-beta: 1e6 * result)
NO_GAIN = 1 << 30  # more than any gain: -NO_GAIN starts a maximum over no move yet
WIDD_POSITIONS, WIDD_CAP, WIDD_MOVES, WIDD_ACTIONS = N_POS, CAP, 2 * A_ACE_CW, NUM_ACTIONS  # the kernel's sizes
#: Each family's feature set version, stored in evaluation files (``learned_eval``): a file written
#: with another version of the columns is refused (its weights would read the wrong inputs).
#: Widdershins 3: columns 12-14 and the sixth summary column, each move's line of three plies (version 2: columns 0-11,
#: every column read from the afterstates the kernel plays; version 1: the first landing simulated on the observation).
#: Rondell 2: every column read from the afterstates the kernel plays, the opponent's replies included
#: (version 1: the first landing of each lift simulated on the observation).
#: Progressive 1: the first version, every column read from the afterstates the kernel plays.
FEATURE_VERSIONS = {"rondell": 2, "widdershins": 3, "progressive": 1}


class MoveFeatureError(MancalaError):
    """A feature set that the game does not have."""


class MoveFeatures(NamedTuple):
    """One game's feature set: its code for jitted code, the layout numbers, the columns."""

    name: str
    code: int  # F_NONE, F_RONDELL, F_WIDDERSHINS, F_PROGRESSIVE
    layout: np.ndarray  # int64: Rondell (piles P, deck size T, 0); Progressive (holes n, stones S, total T); Widdershins: unused
    width: int
    blocks: int = 0  # actions 0 .. blocks-1 have a block of per_block columns each, first in the features
    per_block: int = 0
    version: int = 0  # FEATURE_VERSIONS[family] (0: no features)


def move_feature_set(name: str, family: str, options: dict[str, Any]) -> MoveFeatures:
    """The feature set ``name`` (``FEATURE_SETS``) of a game of ``family`` with ``options``."""
    if name not in FEATURE_SETS:
        raise MoveFeatureError(f"unknown feature set {name!r}; feature sets are {', '.join(FEATURE_SETS)}")
    if name == "none":
        return MoveFeatures(name, F_NONE, np.zeros(3, np.int64), 0)
    if family == "rondell":
        piles = int(options["piles"])
        layout = np.array([piles, piles * int(options["cards_per_pile"]), 0], np.int64)
        return MoveFeatures(name, F_RONDELL, layout, piles * ROND_PER_PILE + ROND_SUMMARY, piles, ROND_PER_PILE,
                            FEATURE_VERSIONS[family])
    if family == "widdershins":
        return MoveFeatures(name, F_WIDDERSHINS, np.zeros(3, np.int64), WIDD_MOVES * WIDD_PER_MOVE + WIDD_SUMMARY,
                            WIDD_MOVES, WIDD_PER_MOVE, FEATURE_VERSIONS[family])
    if family == "progressive":
        return _progressive_set(name, options)
    raise MoveFeatureError(
        f"the {family} family has no move features (feature set 'moves' exists for rondell, widdershins and "
        f"progressive); "
        f"use features 'none'"
    )


# -- both games: the opponent's replies ------------------------------------------------------


def _replies_with(legal_mask, apply, current_player, returns, difference):
    """The replies function of one game, from its kernel's ``legal_mask``, ``apply``,
    ``current_player`` and ``returns`` and its score ``difference(state, params, me, buffer)``."""

    def replies(after, params, me, reply, mask, buffer):
        """The opponent's moves on ``after`` (their turn), each played by the kernel on ``reply``:
        (legal moves, their best gain (the change of their score difference), moves with a gain,
        1 if one ends the game with ``me`` losing). ``mask``: int8 scratch of at least the
        game's actions, zeros past them; ``buffer``: float64[2] scratch."""
        count = legal_mask(after, params, mask)
        base = difference(after, params, me, buffer)
        best, gaining, losing = -NO_GAIN, 0, 0
        for b in range(mask.shape[0]):
            if mask[b] == 0:
                continue
            copy_into(reply, after)
            apply(reply, params, b)
            gain = base - difference(reply, params, me, buffer)
            best = max(best, gain)
            gaining += 1 if gain > 0 else 0
            if current_player(reply, params) < 0:
                returns(reply, params, buffer)
                losing = 1 if buffer[me] < 0 else losing
        return count, best, gaining, losing

    return replies


def _difference_with(scores):
    """The score difference function of one game, from its kernel's ``scores``."""

    def difference(state, params, me, buffer):
        """``me``'s score minus the opponent's (``buffer``: float64[2] scratch)."""
        scores(state, params, buffer)
        return np.int64(buffer[me] - buffer[1 - me])

    return difference


# -- Rondell ----------------------------------------------------------------------------------


_rondell_difference = cached_njit(_difference_with(rondell_scores), inline="always")  # points


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


_rondell_replies = cached_njit(_replies_with(rondell_legal_mask, rondell_apply, rondell_current_player,
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


# -- Widdershins ------------------------------------------------------------------------------


_score_difference = cached_njit(_difference_with(widdershins_scores), inline="always")  # cards


_widdershins_replies = cached_njit(_replies_with(widdershins_legal_mask, widdershins_apply, widdershins_current_player,
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


# -- Progressive ------------------------------------------------------------------------------

PROG_PER_MOVE = 14
PROG_SUMMARY = 9

def _progressive_set(name: str, options: dict[str, Any]) -> MoveFeatures:
    holes, stones = int(options["holes"]), int(options["stones"])
    layout = np.array([holes, stones, holes * stones], np.int64)
    return MoveFeatures(name, F_PROGRESSIVE, layout, holes * PROG_PER_MOVE + PROG_SUMMARY, holes, PROG_PER_MOVE,
                        FEATURE_VERSIONS["progressive"])


_progressive_difference = cached_njit(_difference_with(progressive_scores), inline="always")  # captured stones


_progressive_next_moves = cached_njit(_replies_with(progressive_legal_mask, progressive_apply, progressive_current_player,
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


# -- both ---------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _clear(out):
    for i in range(out.shape[0]):
        out[i] = 0.0


@cached_njit
def features_into(code, layout, state, params, obs, out):
    """Write the move features of one position into ``out`` (float32[width]): its state ``state``
    and parameters ``params`` (the kernel's) and its player to move's observation ``obs``."""
    _clear(out)
    if code == F_RONDELL:
        _rondell(state, params, layout[0], layout[1], obs, out)
    elif code == F_WIDDERSHINS:
        _widdershins(state, params, out)
    elif code == F_PROGRESSIVE:
        _progressive(state, params, layout[0], layout[1], layout[2], obs, out)


@cached_njit
def rondell_features_into(code, layout, state, params, obs, out):
    """``features_into`` with Rondell's set only: what Rondell's search loops compile in."""
    _clear(out)
    if code == F_RONDELL:
        _rondell(state, params, layout[0], layout[1], obs, out)


@cached_njit
def widdershins_features_into(code, layout, state, params, obs, out):
    """``features_into`` with Widdershins' set only: what Widdershins' search loops compile in."""
    _clear(out)
    if code == F_WIDDERSHINS:
        _widdershins(state, params, out)


@cached_njit
def progressive_features_into(code, layout, state, params, obs, out):
    """``features_into`` with Progressive's set only: what Progressive's search loops compile in."""
    _clear(out)
    if code == F_PROGRESSIVE:
        _progressive(state, params, layout[0], layout[1], layout[2], obs, out)


@cached_njit
def no_features_into(code, layout, state, params, obs, out):
    """``features_into`` without any set: what the loops of the games without move features compile in."""
    _clear(out)


def features_into_for(kernel) -> Any:
    """The features function a loop built for ``kernel`` (alpha-beta, MCTS) compiles in.

    Each set plays its own game's moves, so a loop compiles in only its own kernel's set:
    compiling Widdershins' kernel into every other game's search loop doubled their first-ever
    compile (alpha-beta 15 s -> 31 s). A loop never sees another family's evaluation
    (``learned_eval`` refuses another game's file)."""
    if kernel.apply is widdershins_apply:
        return widdershins_features_into
    if kernel.apply is rondell_apply:
        return rondell_features_into
    if kernel.apply is progressive_apply:
        return progressive_features_into
    return no_features_into


@cached_njit
def _features_batch(code, layout, states, params, observations, out):
    for i in range(observations.shape[0]):
        features_into(code, layout, states[i], params, observations[i], out[i])


def move_features(features: MoveFeatures, params: np.ndarray, states: np.ndarray,
                  observations: np.ndarray) -> np.ndarray:
    """The move features of a batch of positions: their states (n, S) (``State.array``), the game's
    ``params`` and the player to move's observations (n, O); float32 (n, width)."""
    obs = np.ascontiguousarray(np.atleast_2d(observations), dtype=np.float32)
    arrays = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
    if arrays.shape[0] != obs.shape[0]:
        raise MoveFeatureError(f"move features need one state per observation, got {arrays.shape[0]} states "
                               f"and {obs.shape[0]} observations")
    out = np.zeros((obs.shape[0], features.width), np.float32)
    if features.width:
        _features_batch(features.code, features.layout, arrays, np.asarray(params, np.int64), obs, out)
    return out
