"""Move features: what each move's last card meets, read from the mover's observation alone.

A network that reads every card of every pile (Rondell: 499 observation entries, Widdershins:
1901) must learn from a few thousand positions where a move ends, which depends on the
height of the lifted pile and on which piles are still in the ring. It does not: fitted on
the raw observation, the bare policy networks of both card games played like random
(``configs/README.md``). The *move features* compute, for every move, where its last card
lands and what it finds there, from the observation vector only (no kernel call, no move
applied), so a network weighs each move by what it does. They are inputs, not rules: a
chain of further laps after the first landing is not followed.

``features: moves`` in a value config (``value.features``) appends them to the encoded
observation (``mancala_envs.core.encodings``) as extra input columns; the evaluation file
records the set (``mancala_envs.agents.learned_eval``), and the jitted forward pass inside
alpha-beta and MCTS computes them from the leaf's observation (``features_into``).

Rondell (family ``rondell``): ``P`` blocks of ``ROND_PER_PILE`` columns, block ``v`` for view
pile ``v`` (the move lifting it; the ring order of the view is the ring's)

=====  =====================================================================================
col    meaning (lifting view pile ``v`` of ``n`` cards)
=====  =====================================================================================
0      1 if the pile can be lifted (``n >= 2``)
1      ``n / T`` (``T`` the deck size)
2      1 if the last card sown is blue (the bottom card; the top card with ``bottom_up``)
3      1 if the last card captures: it lands (``n - 1`` live piles on, the origin counted,
       piles that left the ring skipped) on a top card of its colour; the top card there is
       the one it had before the move, or the card this move dropped on it a lap earlier
4      points of that capture (blue 2, red 1) / 2; 0 without a capture
5      1 if the capture leaves the landing pile with 2 or more cards (the move sows on from
       there: a further lap these features do not follow)
6      1 if the capture empties the landing pile (it leaves the ring)
7      the landing pile's height before the last card / ``T``
=====  =====================================================================================

then ``ROND_SUMMARY`` columns: the best column 4 over the piles, the share of piles whose
lift captures (column 3), and the best column 4 among the captures that sow on (column 5).
Every pile may be lifted by either player, so these are the captures open to whoever moves.

Widdershins (family ``widdershins``): 24 blocks of ``WIDD_PER_MOVE`` columns, block ``a``
for action ``a`` (0..11: move view stack ``a``; 12..23: the single Ace at view position
``a - 12`` moves clockwise), then ``WIDD_SUMMARY`` columns. A block is all 0 when the position
holds no stack of the mover's colour (and, for 12..23, no single Ace). Pass and resign have
none. The *threat* on a position is the most of the mover's cards one move of the opponent
could capture by landing there, were it the opponent's turn now (the same computation from the
opponent's side of the observation: the view turned by 6 positions, the colours swapped).

=====  =====================================================================================
col    meaning (moving the mover's stack at view position ``j``)
=====  =====================================================================================
0      1 if the row rule allows it (the mover's own row if they own a stack there, else the
       other row)
1      1 if the last card lands on a vacant position (the move ends)
2      1 if it lands, in the mover's colour, on a stack of the mover's: that stack is lifted
       and sown on (a further lap these features do not follow)
3      1 if it lands, in the opponent's colour, on an opponent's stack (the move ends)
4      the opponent's cards captured by the landing / 13
5      the mover's cards captured by the landing / 13
6      column 4 minus column 5
7      1 if the landing position is in the mover's own row
8      the threat on position ``j`` (the stack the move lifts) / 13
9      the threat on the landing position / 13
=====  =====================================================================================

The summary: the best column 6 (times 13) among the moves the row rule allows, at least 0,
/ 13; the same for the opponent's moves (their gain); the share of the 12 positions holding a
threatened stack of the mover's; the largest threat / 13.

The landing follows the kernel's sowing (a stack of ``n >= 2`` sows its cards top first onto
the next ``n`` positions, laps included; a single card moves by its rank, an Ace one
position either way, J/Q/K across the board) and its capture rule; both are exact for the
first landing.

``move_feature_set(family, options, observation_size)`` gives the set's code, layout and width
for a game (``MoveFeatureError`` for a game without move features); ``move_features`` the
features of a batch of observations (numpy callers), ``features_into`` one observation
(jitted code).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..core.compiled import cached_njit
from ..core.errors import MancalaError
from .widdershins import A_ACE_CW, CAP, N_POS, single_card_target

__all__ = ["FEATURE_SETS", "MoveFeatureError", "MoveFeatures", "features_into", "move_feature_set",
           "move_features"]

#: Feature sets by name (what ``value.features`` names): ``none``, or ``moves`` (the game's own).
FEATURE_SETS = ("none", "moves")
F_NONE, F_RONDELL, F_WIDDERSHINS = 0, 1, 2
ROND_PER_PILE = 8
ROND_SUMMARY = 3
WIDD_PER_MOVE = 10
WIDD_SUMMARY = 4
WIDD_POSITIONS, WIDD_CAP, WIDD_MOVES = N_POS, CAP, 2 * A_ACE_CW  # the kernel's board and actions


class MoveFeatureError(MancalaError):
    """A feature set that the game does not have."""


class MoveFeatures(NamedTuple):
    """One game's feature set: its code for jitted code, the layout numbers, the columns."""

    name: str
    code: int  # F_NONE, F_RONDELL, F_WIDDERSHINS
    layout: np.ndarray  # int64: Rondell (P, T, bottom_up); Widdershins: unused
    width: int
    blocks: int = 0  # actions 0 .. blocks-1 have a block of per_block columns each, first in the features
    per_block: int = 0


def move_feature_set(name: str, family: str, options: dict[str, Any]) -> MoveFeatures:
    """The feature set ``name`` (``FEATURE_SETS``) of a game of ``family`` with ``options``."""
    if name not in FEATURE_SETS:
        raise MoveFeatureError(f"unknown feature set {name!r}; feature sets are {', '.join(FEATURE_SETS)}")
    if name == "none":
        return MoveFeatures(name, F_NONE, np.zeros(3, np.int64), 0)
    if family == "rondell":
        piles = int(options["piles"])
        deck = piles * int(options["cards_per_pile"])
        layout = np.array([piles, deck, int(bool(options.get("bottom_up", False)))], np.int64)
        return MoveFeatures(name, F_RONDELL, layout, piles * ROND_PER_PILE + ROND_SUMMARY, piles, ROND_PER_PILE)
    if family == "widdershins":
        return MoveFeatures(name, F_WIDDERSHINS, np.zeros(3, np.int64), WIDD_MOVES * WIDD_PER_MOVE + WIDD_SUMMARY,
                            WIDD_MOVES, WIDD_PER_MOVE)
    raise MoveFeatureError(
        f"the {family} family has no move features (feature set 'moves' exists for rondell and widdershins); "
        f"use features 'none'"
    )


# -- Rondell ----------------------------------------------------------------------------------


@cached_njit
def _rondell_pile(obs, P, T, bottom_up, v, out, o):
    """Columns ``o .. o + ROND_PER_PILE`` for lifting view pile ``v``."""
    n = np.int64(obs[P * T + v])
    if n < 2:
        return
    live = 0
    for u in range(P):
        if obs[P * T + u] > 0:
            live += 1
    steps = (n - 1) % live
    land = v
    for _ in range(steps):
        land = (land + 1) % P
        while obs[P * T + land] <= 0:
            land = (land + 1) % P
    # card k of the sowing (k = 0 first): from the top (default) or from the bottom (bottom_up)
    last = obs[v * T + (0 if bottom_up else n - 1)]
    if n - 1 >= live:  # the landing pile already got a card of this move, a lap earlier
        k = n - 1 - live
        top = obs[v * T + (n - 1 - k if bottom_up else k)]
    elif land == v:
        top = 0.0
    else:
        top = obs[land * T]
    before = (0 if land == v else np.int64(obs[P * T + land])) + (n - 1) // live
    out[o] = 1.0
    out[o + 1] = n / T
    out[o + 2] = 1.0 if last == 2.0 else 0.0
    out[o + 7] = before / T
    if top == last:
        out[o + 3] = 1.0
        out[o + 4] = 1.0 if last == 2.0 else 0.5
        left = before - 1
        out[o + 5] = 1.0 if left >= 2 else 0.0
        out[o + 6] = 1.0 if left == 0 else 0.0


@cached_njit
def _rondell_summary(P, out, o):
    """The best capture's points / 2 over every pile, the share of piles whose lift captures, and the
    best capture's points / 2 among those that sow on."""
    for v in range(P):
        b = v * ROND_PER_PILE
        out[o] = max(out[o], out[b + 4])
        out[o + 1] += out[b + 3] / P
        out[o + 2] = max(out[o + 2], out[b + 4] * out[b + 5])


# -- Widdershins ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _card(obs, v, k, p):
    """(rank, colour: 1 the player's, 2 the other's) of card ``k`` from the top of view stack ``v``,
    seen by the mover (``p`` 0) or by the opponent (``p`` 1: the view turned by 6, colours swapped)."""
    o = ((((v + 6 * p) % WIDD_POSITIONS) * WIDD_CAP + k) * 3)
    colour = np.int64(obs[o + 1])
    return np.int64(obs[o]), (3 - colour if p and colour else colour)


@njit(cache=True, inline="always")
def _height_owner(obs, v, p):
    """(height, owner: 1 the player, 2 the other, 0 vacant) of view position ``v`` for ``p``."""
    heights = WIDD_POSITIONS * WIDD_CAP * 3
    u = (v + 6 * p) % WIDD_POSITIONS
    owner = np.int64(obs[heights + WIDD_POSITIONS + u])
    return np.int64(obs[heights + u]), (3 - owner if p and owner else owner)


@cached_njit
def _row_start(obs, p):
    """The first position of the row ``p`` may move from: its own row (0) if it owns a stack there, else 6."""
    for v in range(6):
        if _height_owner(obs, v, p)[1] == 1:
            return 0
    return 6


@cached_njit
def _widdershins_move(obs, j, clockwise, p, res):
    """Player ``p`` moves its stack at view position ``j``: the landing position (-1: no such move), and in
    ``res``: vacant, sows on, ends on the other's stack, the other's cards captured, the mover's."""
    for i in range(5):
        res[i] = 0
    n, owner = _height_owner(obs, j, p)
    if n == 0 or owner != 1:
        return -1
    if clockwise and not (n == 1 and _card(obs, j, 0, p)[0] == 1):
        return -1
    extra_colour = np.zeros(3, np.int64)  # cards of each colour this move drops on the landing stack before the last
    top_rank, top_colour = np.int64(0), np.int64(0)
    if n >= 2:
        last_rank, last_colour = _card(obs, j, n - 1, p)
        land = (j + n) % WIDD_POSITIONS
        base = 0 if land == j else _height_owner(obs, land, p)[0]
        if base > 0:
            top_rank, top_colour = _card(obs, land, 0, p)
        first = (land - j - 1) % WIDD_POSITIONS  # sowing steps 0, 1, ... drop on j + 1, j + 2, ...
        for k in range(first, n - 1, WIDD_POSITIONS):
            top_rank, top_colour = _card(obs, j, k, p)
            extra_colour[top_colour] += 1
    else:
        last_rank, last_colour = _card(obs, j, 0, p)
        land = single_card_target(j, last_rank, clockwise)
        base = _height_owner(obs, land, p)[0]
        if base > 0:
            top_rank, top_colour = _card(obs, land, 0, p)
    if top_colour == 0:
        res[0] = 1
        return land
    if top_colour == last_colour:
        res[1 if last_colour == 1 else 2] = 1
        return land
    dropped = 14 if last_rank == 1 else last_rank
    lost = np.zeros(3, np.int64)  # cards captured, by colour
    if last_rank == top_rank:
        lost[last_colour] += 1
        lost[top_colour] += 1
    elif dropped > top_rank:
        count = extra_colour[top_colour]
        if land != j:
            for k in range(base):
                if _card(obs, land, k, p)[1] == top_colour:
                    count += 1
        lost[top_colour] += count
    else:
        lost[last_colour] += 1
    res[3] = lost[2]
    res[4] = lost[1]
    return land


@cached_njit
def _widdershins(obs, out):
    """Every block and the summary (module docstring)."""
    res = np.zeros(5, np.int64)
    threat = np.zeros(WIDD_POSITIONS, np.int64)  # the mover's cards the opponent could capture landing there
    their_best = -WIDD_CAP
    start = _row_start(obs, 1)
    for a in range(WIDD_MOVES):
        j = a % WIDD_POSITIONS
        if j < start or j >= start + 6:
            continue
        land = _widdershins_move(obs, j, a >= WIDD_POSITIONS, 1, res)
        if land >= 0:
            threat[land] = max(threat[land], res[3])
            their_best = max(their_best, res[3] - res[4])
    start = _row_start(obs, 0)
    my_best = -WIDD_CAP
    for a in range(WIDD_MOVES):
        j = a % WIDD_POSITIONS
        land = _widdershins_move(obs, j, a >= WIDD_POSITIONS, 0, res)
        if land < 0:
            continue
        o = a * WIDD_PER_MOVE
        legal = start <= j < start + 6
        out[o] = 1.0 if legal else 0.0
        out[o + 1] = res[0]
        out[o + 2] = res[1]
        out[o + 3] = res[2]
        out[o + 4] = res[3] / 13.0
        out[o + 5] = res[4] / 13.0
        out[o + 6] = (res[3] - res[4]) / 13.0
        out[o + 7] = 1.0 if land < 6 else 0.0
        out[o + 8] = threat[j] / 13.0
        out[o + 9] = threat[land] / 13.0
        if legal:
            my_best = max(my_best, res[3] - res[4])
    o = WIDD_MOVES * WIDD_PER_MOVE
    out[o] = max(my_best, 0) / 13.0
    out[o + 1] = max(their_best, 0) / 13.0
    threatened = 0
    for v in range(WIDD_POSITIONS):
        threatened += 1 if threat[v] > 0 and _height_owner(obs, v, 0)[1] == 1 else 0
        out[o + 3] = max(out[o + 3], threat[v] / 13.0)
    out[o + 2] = threatened / WIDD_POSITIONS


# -- both ---------------------------------------------------------------------------------------


@cached_njit
def features_into(code, layout, obs, out):
    """Write the move features of one observation ``obs`` (float32[O]) into ``out`` (float32[width])."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    if code == F_RONDELL:
        P, T, bottom_up = layout[0], layout[1], layout[2] != 0
        for v in range(P):
            _rondell_pile(obs, P, T, bottom_up, v, out, v * ROND_PER_PILE)
        _rondell_summary(P, out, P * ROND_PER_PILE)
    elif code == F_WIDDERSHINS:
        _widdershins(obs, out)


@cached_njit
def _features_batch(code, layout, observations, out):
    for i in range(observations.shape[0]):
        features_into(code, layout, observations[i], out[i])


def move_features(features: MoveFeatures, observations: np.ndarray) -> np.ndarray:
    """The move features of a batch of observations (n, O): float32 (n, width)."""
    obs = np.ascontiguousarray(np.atleast_2d(observations), dtype=np.float32)
    out = np.zeros((obs.shape[0], features.width), np.float32)
    if features.width:
        _features_batch(features.code, features.layout, obs, out)
    return out
