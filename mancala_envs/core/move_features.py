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

Widdershins (family ``widdershins``): 24 blocks of ``WIDD_PER_MOVE`` columns, block ``a``
for action ``a`` (0..11: move view stack ``a``; 12..23: the single Ace at view position
``a - 12`` moves clockwise); a block is all 0 when the position holds no stack of the mover's
colour (and, for 12..23, no single Ace). Pass and resign have none.

=====  =====================================================================================
col    meaning (moving the mover's stack at view position ``j``)
=====  =====================================================================================
0      1: the stack is the mover's (the move may be legal; the action mask decides)
1      1 if the last card lands on a vacant position (the move ends)
2      1 if it lands, in the mover's colour, on a stack of the mover's: that stack is lifted
       and sown on (a further lap these features do not follow)
3      1 if it lands, in the opponent's colour, on an opponent's stack (the move ends)
4      the opponent's cards captured by the landing / 13
5      the mover's cards captured by the landing / 13
6      column 4 minus column 5
7      1 if the landing position is in the mover's own row
=====  =====================================================================================

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

from .errors import MancalaError

__all__ = ["FEATURE_SETS", "MoveFeatureError", "MoveFeatures", "features_into", "move_feature_set",
           "move_features"]

#: Feature sets by name (what ``value.features`` names): ``none``, or ``moves`` (the game's own).
FEATURE_SETS = ("none", "moves")
F_NONE, F_RONDELL, F_WIDDERSHINS = 0, 1, 2
ROND_PER_PILE = 8
WIDD_PER_MOVE = 8
WIDD_POSITIONS, WIDD_CAP, WIDD_MOVES = 12, 52, 24


class MoveFeatureError(MancalaError):
    """A feature set that the game does not have."""


class MoveFeatures(NamedTuple):
    """One game's feature set: its code for jitted code, the layout numbers, the columns."""

    name: str
    code: int  # F_NONE, F_RONDELL, F_WIDDERSHINS
    layout: np.ndarray  # int64: Rondell (P, T, bottom_up); Widdershins: unused
    width: int


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
        return MoveFeatures(name, F_RONDELL, layout, piles * ROND_PER_PILE)
    if family == "widdershins":
        return MoveFeatures(name, F_WIDDERSHINS, np.zeros(3, np.int64), WIDD_MOVES * WIDD_PER_MOVE)
    raise MoveFeatureError(
        f"the {family} family has no move features (feature set 'moves' exists for rondell and widdershins); "
        f"use features 'none'"
    )


# -- Rondell ----------------------------------------------------------------------------------


@njit(cache=True)
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


# -- Widdershins ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _card(obs, v, k):
    """(rank, colour: 1 mine, 2 the opponent's) of card ``k`` from the top of view stack ``v``."""
    o = (v * WIDD_CAP + k) * 3
    return np.int64(obs[o]), np.int64(obs[o + 1])


@njit(cache=True)
def _widdershins_move(obs, j, clockwise, out, o):
    """Columns ``o .. o + WIDD_PER_MOVE`` for moving the mover's stack at view position ``j``."""
    heights = WIDD_POSITIONS * WIDD_CAP * 3
    n = np.int64(obs[heights + j])
    if n == 0 or obs[heights + WIDD_POSITIONS + j] != 1.0:
        return
    if clockwise and not (n == 1 and obs[(j * WIDD_CAP) * 3] == 1.0):
        return
    extra_colour = np.zeros(3, np.int64)  # cards of each colour this move drops on the landing stack before the last
    top_rank, top_colour = np.int64(0), np.int64(0)
    if n >= 2:
        last_rank, last_colour = _card(obs, j, n - 1)
        land = (j + n) % WIDD_POSITIONS
        base = 0 if land == j else np.int64(obs[heights + land])
        if base > 0:
            top_rank, top_colour = _card(obs, land, 0)
        first = (land - j - 1) % WIDD_POSITIONS  # sowing steps 0, 1, ... drop on j + 1, j + 2, ...
        for k in range(first, n - 1, WIDD_POSITIONS):
            top_rank, top_colour = _card(obs, j, k)
            extra_colour[top_colour] += 1
    else:
        last_rank, last_colour = _card(obs, j, 0)
        if last_rank == 1:
            land = (j + WIDD_POSITIONS - 1) % WIDD_POSITIONS if clockwise else (j + 1) % WIDD_POSITIONS
        elif last_rank >= 11:
            land = WIDD_POSITIONS - 1 - j
        else:
            land = (j + last_rank) % WIDD_POSITIONS
        base = np.int64(obs[heights + land])
        if base > 0:
            top_rank, top_colour = _card(obs, land, 0)
    out[o] = 1.0
    out[o + 7] = 1.0 if land < 6 else 0.0
    if top_colour == 0:
        out[o + 1] = 1.0
        return
    if top_colour == last_colour:
        if last_colour == 1:
            out[o + 2] = 1.0
        else:
            out[o + 3] = 1.0
        return
    lost = np.zeros(3, np.int64)  # cards captured, by colour
    dropped = 14 if last_rank == 1 else last_rank
    if last_rank == top_rank:
        lost[last_colour] += 1
        lost[top_colour] += 1
    elif dropped > top_rank:
        count = extra_colour[top_colour]
        if land != j:
            for k in range(base):
                if _card(obs, land, k)[1] == top_colour:
                    count += 1
        lost[top_colour] += count
    else:
        lost[last_colour] += 1
    out[o + 4] = lost[2] / 13.0
    out[o + 5] = lost[1] / 13.0
    out[o + 6] = (lost[2] - lost[1]) / 13.0


# -- both ---------------------------------------------------------------------------------------


@njit(cache=True)
def features_into(code, layout, obs, out):
    """Write the move features of one observation ``obs`` (float32[O]) into ``out`` (float32[width])."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    if code == F_RONDELL:
        P, T, bottom_up = layout[0], layout[1], layout[2] != 0
        for v in range(P):
            _rondell_pile(obs, P, T, bottom_up, v, out, v * ROND_PER_PILE)
    elif code == F_WIDDERSHINS:
        for a in range(WIDD_MOVES):
            _widdershins_move(obs, a % WIDD_POSITIONS, a >= WIDD_POSITIONS, out, a * WIDD_PER_MOVE)


@njit(cache=True)
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
