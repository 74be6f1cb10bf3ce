"""Kalah family: Pratt's Basic, Egyptian, bidirectional and chosen-start Mancala.

One numba kernel plays every member of the family; each registered id is a preset of the
options below, and any option can be overridden (``make("kalah-v0", pits=4, seeds=3)``).
Rules source: John P. Pratt, "Mancala" rules pages (2009): Basic, Egyptian and
bidirectional Mancala and the chosen start. Where those pages leave a point open, the package
rulings below settle it.

Registered ids
--------------
========================== ===================================================================
``kalah-v0``               Egyptian Mancala (the standard Kalah): all defaults.
``kalah-basic-v0``         Basic Mancala: ``extra_turn=False, capture=False, leftover="discard"``.
                           Draws are possible.
``kalah-bidirectional-v0`` Egyptian plus ``directions=2, min_sow=2``.
``kalah-chosen-start-v0``  Egyptian after a setup phase (``chosen_start=True``).
``kalah-irving2000-v0``    The rules of Irving, Donkers & Uiterwijk (2000), as solved there and
                           played by OpenSpiel: ``capture_needs_opposite=False,
                           skip_origin=False, end="side_empty"``.
========================== ===================================================================

Board and numbering
-------------------
Two rows of ``pits`` holes and a store (Pratt's "capture pit") at each player's right::

                 1    2    3    4    5    6          <- player_1 (North) counts these
     player_1  [ 4][ 4][ 4][ 4][ 4][ 4]
          [ 0]                              [ 0]    <- left: player_1's store, right: player_0's
     player_0  [ 4][ 4][ 4][ 4][ 4][ 4]
                 6    5    4    3    2    1          <- player_0 (South) counts these

``player_0`` is the lower player (South) and moves first. Sowing runs counterclockwise:
along your own row to the right, into your store, then along the far row right to left.

*Notation* numbers holes as Pratt does: 1 is the hole next to your own store, ``pits`` the
farthest. *Actions* count the other way, mover-relative: action ``i`` is the mover's
``i``-th hole in sowing order, so action 0 is the hole farthest from the store (Pratt's
``pits``) and action ``pits-1`` is Pratt's hole 1. The hole opposite the mover's hole ``i``
is the opponent's hole ``pits-1-i``.

Rules (defaults = Egyptian Mancala)
-----------------------------------
1. The mover empties one of their holes holding at least ``min_sow`` seeds and sows them one
   by one into the following holes, including their own store and skipping the
   opponent's store.
2. ``skip_origin``: a lap of ``2*pits+1`` seeds or more skips the emptied hole, which is
   therefore always empty after the move (Pratt, Egyptian rule 1).
3. ``extra_turn``: if the last seed lands in the mover's store, the mover moves again.
4. ``capture``: if the last seed lands in an empty hole of the mover's own row, and the
   opposite hole is not empty, the mover takes both the last seed and the opposite seeds
   into their store. With ``capture_needs_opposite=False`` (the "empty capture" of Irving et
   al.) the lone last seed is banked even when the opposite hole is empty. A seed landing
   in an empty hole of the opponent's row never captures.
5. ``end="mover_empty"`` (Pratt): the game ends when the player to move has no hole they may
   play. ``end="side_empty"``: it ends as soon as a move leaves either row empty (Irving
   et al. 2000, OpenSpiel). It also ends, under either rule, whenever the player to move
   has no legal move.
6. ``leftover="owner"``: at the end each player takes the seeds left in their own row into
   their store (Egyptian rule 4). ``"discard"`` (Basic rule 2): seeds left in the rows are
   not captured by anybody; they stay on the board in the final position and count for
   nobody.
7. Most seeds in the store wins; equal stores is a draw.

Bidirectional (``directions=2``): each move chooses counterclockwise (Pratt's "right") or
clockwise ("left"). Clockwise sowing runs down your own row away from your store, skips the
opponent's store, crosses the far row and enters your store before your own row again. The
direction may change on every move, extra turns included. ``min_sow=2``: a hole with one
seed cannot be played; when the player to move has no playable hole the game ends and each
side keeps its own seeds (``leftover="owner"``).

Chosen start (``chosen_start=True``, Pratt's last paragraph): before play, the chooser
(``player_0``) sets the seed count of every hole, one action per hole, each 0 to
``max_setup_seeds``: side A's holes first (in sowing order, A6 down to A1 on the standard
board), then side B's. A setup with no seed at all is refused by the mask (the last hole
cannot be 0 when all others are). Then ``player_1`` picks one of four actions: which side
they take and whether they move first. Then play begins under the other options.
Side A is the row that ``player_0`` holds unless ``player_1`` takes it.

Package rulings (points the rules pages leave open):

* Captures need the landing hole to have been empty *before the last seed*: a hole that
  received a seed earlier in the same multi-lap move does not capture.
* With ``skip_origin=False`` a 13-seed lap (standard board) ends in the emptied origin hole,
  which counts as an empty own hole and captures.
* ``leftover="discard"`` keeps the uncaptured seeds visible in the final position instead
  of deleting them, so the seed count on the board and in the stores is always conserved.
* A chosen-start setup that leaves the first mover without seeds is legal; the game then
  ends at once under the ``end`` rule. The side choice counts as a move for
  ``end="side_empty"``: a setup with an empty row ends the game right after it.
* In a finished game ``to_json()["to_move"]`` still names the player who would have moved
  next (e.g. the mover who had just earned an extra turn); ``current_player`` is -1.
* Notation is read leniently: case does not matter, ``"3R"`` is accepted in the one-way
  game, and during the setup a bare count (``"4"``) sets the next hole.
* A position set up by hand (``state_from_json``) may hold fewer seeds than the start (an
  endgame study), never more: at most ``total_seeds_bound()`` seeds in the holes and stores
  together (``2*pits*seeds``, or ``2*pits*max_setup_seeds`` with ``chosen_start``), which is
  also the observation's ``high``. Keys other than those ``to_json()`` writes are refused.

Options
-------
=========================== ============== ========================================================
option                      default        allowed
=========================== ============== ========================================================
``pits``                    6              1 to 16 holes per side
``seeds``                   4              1 to 12 seeds per hole at the start
``extra_turn``              True           bool
``capture``                 True           bool
``capture_needs_opposite``  True           bool
``skip_origin``             True           bool
``end``                     "mover_empty"  "mover_empty", "side_empty"
``leftover``                "owner"        "owner", "discard"
``directions``              1              1 or 2
``min_sow``                 1              1 to 12
``chosen_start``            False          bool
``max_setup_seeds``         8              1 to 24 (chosen start only)
``max_plies``               1000           1 to 10**6, or None (no cap)
=========================== ============== ========================================================

Actions
-------
``Discrete(num_actions)`` with ``num_actions = pits * directions``, widened to
``max(pits*directions, max_setup_seeds+1, 4)`` with ``chosen_start``:

* play: action ``d*pits + i`` sows the mover's hole ``i`` (0 = farthest from their store) in
  direction ``d`` (0 = counterclockwise/right, 1 = clockwise/left, only with ``directions=2``).
  Notation: Pratt's hole number, e.g. ``"3"``; in the bidirectional game with the direction,
  ``"3R"`` or ``"3L"``.
* setup: action ``k`` puts ``k`` seeds in the next hole. Notation ``"A6=4"``.
* side choice (``player_1``): 0 ``"A-second"`` (take side A, the chooser moves first),
  1 ``"A-first"`` (take side A and move first), 2 ``"B-second"``, 3 ``"B-first"``.

Illegal actions are masked out; applying one raises ``IllegalActionError``.

Observation
-----------
``Box(0, high, (2*pits + 3,), float32)`` (``2*pits + 7`` with ``chosen_start``), relative to
the observing player:

=====================  ===================================================================
index                  meaning
=====================  ===================================================================
``0 .. pits-1``        seeds in my holes, in my sowing order (0 = farthest from my store)
``pits``               seeds in my store
``pits+1 .. 2*pits``   seeds in the opponent's holes, in their sowing order
``2*pits+1``           seeds in the opponent's store
``2*pits+2``           1 if it is my turn to move, else 0
``2*pits+3``           (chosen start) 1 during the setup phase
``2*pits+4``           (chosen start) 1 during the side choice
``2*pits+5``           (chosen start) holes set so far / (2*pits)
``2*pits+6``           (chosen start) 1 if I am the chooser (``player_0``)
=====================  ===================================================================

Counts are raw seed counts (not normalised); ``high`` is the total number of seeds.
Because my holes come first in my sowing order, the hole at observation index ``i`` is the
one action ``i`` sows: one network plays both seats.

Rewards and scores
------------------
+1 to the player with more seeds in store, -1 to the other, 0 each for a draw, given when
the game ends; 0 on every other step and on truncation. ``scores()`` (and the env's
``infos["scores"]``) are the two stores.

State layout (``numpy.int32``)
------------------------------
::

    index:  0 .. n-1   n        n+1 .. 2n   2n+1     2n+2     2n+3  2n+4   2n+5   2n+6     2n+7       2n+8
            p0 holes   p0 store p1 holes    p1 store to_move  done  plies  phase  setup_i  last_act   last_player

The holes and stores form the sowing ring (indices ``0 .. 2n+1``, counterclockwise), so
sowing is ``pos += 1`` with a skip of the opponent's store. ``phase``: 0 play, 1 setup,
2 side choice.

Search evaluation
-----------------
Alpha-beta (``mancala_envs.agents.search``) values a leaf by store minus store. In the chosen-start
setup the stores are empty, so a leaf there is valued for the chooser as minus the total
distance of the holes set so far from ``seeds`` (the id's usual start): a searching
chooser lays out a full, balanced board instead of an arbitrary one (blind to every
setup, it used to lay out near-empty boards that made the game a coin toss), and the
responder's side-and-turn choice is searched as usual.

Rendering
---------
``render_mode="rgb_array"`` frames are 800 x 360 (W x H) for every board size: the two rows
drawn from South's seat (player_1's holes along the far row, numbered as Pratt does), a
store at each end, the last move ringed, the stores and whose turn in the header
(``KalahGame.board_view``). During a chosen-start setup the rows are sides A and B and the
hole being set is marked. ``mancala play ID --window``: click a hole to sow it (in the
bidirectional game its right or left half, the way the seeds go); setup counts and side
choices are buttons.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from ..core.errors import InvalidOptionError, InvalidStateError, NotationError
from ..core.game import (
    MAX_PLIES_OPTION_DOC, Game, Kernel, State, Variant, board_view_of, check_json_keys, json_bool, json_int, json_int_list,
    json_plies, state_indices_except, view_cell,
)
from ..core.outcome import set_returns
from ..core.options import Option

# -- parameter vector: the options of PARAM_OPTIONS (Option.encode), then derived values ----
P_PITS = 0
P_SEEDS = 1
P_EXTRA_TURN = 2
P_CAPTURE = 3
P_CAPTURE_NEEDS_OPPOSITE = 4
P_SKIP_ORIGIN = 5
P_END = 6
P_LEFTOVER = 7
P_DIRECTIONS = 8
P_MIN_SOW = 9
P_CHOSEN_START = 10
P_MAX_SETUP_SEEDS = 11

# values of the choice options: the index of the choice in the Option's choices (Option.encode)
END_MOVER_EMPTY = 0
END_SIDE_EMPTY = 1
LEFTOVER_OWNER = 0
LEFTOVER_DISCARD = 1

PHASE_PLAY = 0
PHASE_SETUP = 1
PHASE_CHOOSE_SIDE = 2
PHASE_NAMES = ("play", "setup", "choose_side")

# the keys of a position's JSON (KalahGame._state_to_json)
JSON_KEYS = ("pits", "stores", "to_move", "terminal", "plies", "phase", "setup_index", "last_action", "last_player")

# -- header fields, as offsets after the ring of 2n+2 holes and stores ---------------------
H_TO_MOVE = 0
H_DONE = 1
H_PLIES = 2
H_PHASE = 3
H_SETUP_INDEX = 4
H_LAST_ACTION = 5
H_LAST_PLAYER = 6
HEADER_SIZE = 7

SIDE_CHOICE_NAMES = ("A-second", "A-first", "B-second", "B-first")


# -- kernel -------------------------------------------------------------------------------
@njit(cache=True)
def init(state, params, rng):
    n = params[P_PITS]
    head = 2 * n + 2
    state[:] = 0
    if params[P_CHOSEN_START]:
        state[head + H_PHASE] = PHASE_SETUP
    else:
        seeds = params[P_SEEDS]
        for i in range(n):
            state[i] = seeds
            state[n + 1 + i] = seeds
    state[head + H_LAST_ACTION] = -1
    state[head + H_LAST_PLAYER] = -1


@njit(cache=True, inline="always")
def _has_move(state, params, player):
    n = params[P_PITS]
    base = player * (n + 1)
    min_sow = params[P_MIN_SOW]
    for i in range(n):
        if state[base + i] >= min_sow:
            return True
    return False


@njit(cache=True, inline="always")
def settle(state, params):
    """Decide whether the game is over after a move, and clear the rows if it is."""
    n = params[P_PITS]
    head = 2 * n + 2
    over = not _has_move(state, params, state[head + H_TO_MOVE])
    if not over and params[P_END] == END_SIDE_EMPTY:
        side0 = 0
        side1 = 0
        for i in range(n):
            side0 += state[i]
            side1 += state[n + 1 + i]
        over = side0 == 0 or side1 == 0
    if over:
        state[head + H_DONE] = 1
        if params[P_LEFTOVER] == LEFTOVER_OWNER:
            for player in range(2):
                base = player * (n + 1)
                total = 0
                for i in range(n):
                    total += state[base + i]
                    state[base + i] = 0
                state[base + n] += total
    else:
        state[head + H_DONE] = 0


@njit(cache=True)
def legal_mask(state, params, mask):
    """The play phase only: the kernel of every game without a chosen-start setup.

    The setup phases live in ``legal_mask_chosen_start``: when their code sat in this
    function, even unexecuted, LLVM compiled a much slower play path. For the same
    reason this function writes the ``pits * directions`` play actions only, which are all
    of ``num_actions`` without a chosen start; ``legal_mask_chosen_start`` clears the wider
    mask's rest (the runtime-length clearing loop, vectorised by LLVM though it never ran,
    slowed the Kalah random playouts).
    """
    n = params[P_PITS]
    head = 2 * n + 2
    if state[head + H_DONE]:
        mask[:] = 0
        return 0
    # one pass over the mover's row, no separate clear
    base = state[head + H_TO_MOVE] * (n + 1)
    min_sow = params[P_MIN_SOW]
    count = 0
    for i in range(n):
        playable = 1 if state[base + i] >= min_sow else 0
        mask[i] = playable
        count += playable
    if params[P_DIRECTIONS] == 2:
        for i in range(n):
            mask[n + i] = mask[i]
        count *= 2
    return count


@njit(cache=True)
def legal_mask_chosen_start(state, params, mask):
    """Every phase: the setup, the side choice, then play."""
    n = params[P_PITS]
    head = 2 * n + 2
    phase = state[head + H_PHASE]
    if phase == PHASE_PLAY or state[head + H_DONE]:
        count = legal_mask(state, params, mask)
        for a in range(n * params[P_DIRECTIONS], mask.shape[0]):  # the setup's wider mask
            mask[a] = 0
        return count
    mask[:] = 0
    if phase == PHASE_SETUP:
        lowest = 0
        if state[head + H_SETUP_INDEX] == 2 * n - 1:
            placed = 0
            for i in range(2 * n + 2):
                placed += state[i]
            if placed == 0:
                lowest = 1  # refuse a board with no seed at all
        top = params[P_MAX_SETUP_SEEDS]
        for a in range(lowest, top + 1):
            mask[a] = 1
        return top + 1 - lowest
    for a in range(4):  # PHASE_CHOOSE_SIDE
        mask[a] = 1
    return 4


@njit(cache=True, inline="always")
def _apply_setup(state, params, action, head, n):
    k = state[head + H_SETUP_INDEX]
    hole = k if k < n else k + 1  # skip player 0's store
    state[hole] = action
    k += 1
    state[head + H_SETUP_INDEX] = k
    if k == 2 * n:
        state[head + H_PHASE] = PHASE_CHOOSE_SIDE
        state[head + H_TO_MOVE] = 1


@njit(cache=True, inline="always")
def _apply_side_choice(state, params, action, head, n):
    if action < 2:  # player_1 takes side A, which was laid out in player_0's row: swap rows
        for i in range(n):
            tmp = state[i]
            state[i] = state[n + 1 + i]
            state[n + 1 + i] = tmp
    state[head + H_PHASE] = PHASE_PLAY
    state[head + H_TO_MOVE] = 1 if action % 2 == 1 else 0
    settle(state, params)


@njit(cache=True)
def apply(state, params, action):
    """The play phase only, like ``legal_mask``; ``apply_chosen_start`` plays every phase."""
    n = params[P_PITS]
    head = 2 * n + 2
    player = state[head + H_TO_MOVE]
    state[head + H_PLIES] += 1
    state[head + H_LAST_ACTION] = action
    state[head + H_LAST_PLAYER] = player
    ring = 2 * n + 2
    # one-way games never sow clockwise: with a specialised loop the clockwise sowing folds away
    clockwise = params[P_DIRECTIONS] == 2 and action >= n
    hole = action - n if clockwise else action
    origin = player * (n + 1) + hole
    own_store = player * (n + 1) + n
    opponent_store = (1 - player) * (n + 1) + n
    skip_origin = params[P_SKIP_ORIGIN] != 0
    seeds = state[origin]
    state[origin] = 0
    skipped = origin if skip_origin else -1
    pos = origin
    if clockwise:
        while seeds > 0:
            pos = pos - 1 if pos > 0 else ring - 1
            if pos != opponent_store and pos != skipped:
                state[pos] += 1
                seeds -= 1
    else:
        while seeds > 0:
            pos = pos + 1 if pos < ring - 1 else 0
            if pos != opponent_store and pos != skipped:
                state[pos] += 1
                seeds -= 1

    next_player = 1 - player
    if pos == own_store:
        if params[P_EXTRA_TURN]:
            next_player = player
    elif params[P_CAPTURE] and state[pos] == 1 and own_store - n <= pos < own_store:
        opposite = 2 * n - pos
        if state[opposite] > 0 or not params[P_CAPTURE_NEEDS_OPPOSITE]:
            state[own_store] += state[opposite] + 1
            state[opposite] = 0
            state[pos] = 0
    state[head + H_TO_MOVE] = next_player
    settle(state, params)


@njit(cache=True)
def apply_chosen_start(state, params, action):
    """Every phase: the setup, the side choice, then play (``apply``)."""
    n = params[P_PITS]
    head = 2 * n + 2
    phase = state[head + H_PHASE]
    if phase == PHASE_PLAY:
        apply(state, params, action)
        return
    state[head + H_PLIES] += 1
    state[head + H_LAST_ACTION] = action
    state[head + H_LAST_PLAYER] = state[head + H_TO_MOVE]
    if phase == PHASE_SETUP:
        _apply_setup(state, params, action, head, n)
    else:
        _apply_side_choice(state, params, action, head, n)


@njit(cache=True)
def current_player(state, params):
    head = 2 * params[P_PITS] + 2
    if state[head + H_DONE]:
        return -1
    return state[head + H_TO_MOVE]


@njit(cache=True)
def scores(state, params, out):
    n = params[P_PITS]
    out[0] = state[n]
    out[1] = state[2 * n + 1]


@njit(cache=True)
def returns(state, params, out):
    n = params[P_PITS]
    set_returns(state[n] - state[2 * n + 1] if state[2 * n + 2 + H_DONE] else 0, out)


@njit(cache=True)
def observe(state, params, player, out):
    n = params[P_PITS]
    head = 2 * n + 2
    mine = player * (n + 1)
    theirs = (1 - player) * (n + 1)
    for i in range(n + 1):
        out[i] = state[mine + i]
        out[n + 1 + i] = state[theirs + i]
    done = state[head + H_DONE] != 0
    out[2 * n + 2] = 1.0 if (not done and state[head + H_TO_MOVE] == player) else 0.0
    if params[P_CHOSEN_START]:
        phase = state[head + H_PHASE]
        out[2 * n + 3] = 1.0 if phase == PHASE_SETUP else 0.0
        out[2 * n + 4] = 1.0 if phase == PHASE_CHOOSE_SIDE else 0.0
        out[2 * n + 5] = state[head + H_SETUP_INDEX] / (2.0 * n)
        out[2 * n + 6] = 1.0 if player == 0 else 0.0


@njit(cache=True)
def plies(state, params):
    return state[2 * params[P_PITS] + 2 + H_PLIES]


@njit(cache=True)
def search_heuristic_chosen_start(state, params, player):
    """Alpha-beta's leaf value in a chosen-start game (see "Search evaluation" above)."""
    n = params[P_PITS]
    head = 2 * n + 2
    if state[head + H_PHASE] == PHASE_PLAY:
        mine = state[player * (n + 1) + n]
        return float(mine - state[(1 - player) * (n + 1) + n])
    seeds = params[P_SEEDS]
    deviation = 0
    for k in range(state[head + H_SETUP_INDEX]):
        count = state[k if k < n else k + 1]
        deviation += count - seeds if count > seeds else seeds - count
    return float(-deviation if player == 0 else deviation)


KERNEL = Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)
KERNEL_CHOSEN_START = KERNEL._replace(legal_mask=legal_mask_chosen_start, apply=apply_chosen_start)


# -- the rules object -----------------------------------------------------------------------
class KalahGame(Game):
    """Kalah family (Pratt's Basic, Egyptian, bidirectional and chosen-start Mancala)."""

    scores_only_grow = True  # captured seeds never return to the board (mancala_envs.agents.search)
    result_follows_scores = True  # most stones wins (mancala_envs.agents.mcts stops decided rollouts)

    kernel = KERNEL  # KERNEL_CHOSEN_START when chosen_start=True (see __init__)
    family = "kalah"
    OPTIONS = (
        Option("pits", 6, "int", "holes per side", low=1, high=16),
        Option("seeds", 4, "int", "seeds per hole at the start", low=1, high=12),
        Option("extra_turn", True, "bool", "last seed in own store: move again"),
        Option("capture", True, "bool", "last seed in an own empty hole captures"),
        Option(
            "capture_needs_opposite",
            True,
            "bool",
            "the capture needs a non-empty opposite hole (False: the lone last seed is banked)",
        ),
        Option("skip_origin", True, "bool", "a lap of 2*pits+1 seeds or more skips the emptied hole"),
        Option(
            "end",
            "mover_empty",
            "choice",
            "mover_empty: ends when the player to move has no move; side_empty: when a move empties a row",
            choices=("mover_empty", "side_empty"),
        ),
        Option(
            "leftover",
            "owner",
            "choice",
            "seeds left in the rows at the end: owner takes them, or discard",
            choices=("owner", "discard"),
        ),
        Option("directions", 1, "int", "1, or 2: each move chooses clockwise or counterclockwise", low=1, high=2),
        Option("min_sow", 1, "int", "smallest hole that may be played", low=1, high=12),
        Option("chosen_start", False, "bool", "setup phase: player_0 sets every hole, player_1 picks side and turn"),
        Option("max_setup_seeds", 8, "int", "most seeds per hole in the chosen-start setup", low=1, high=24),
        Option("max_plies", 1000, "int", MAX_PLIES_OPTION_DOC, low=1, high=10**6, allow_none=True),
    )

    PARAM_OPTIONS = (
        "pits", "seeds", "extra_turn", "capture", "capture_needs_opposite", "skip_origin", "end", "leftover",
        "directions", "min_sow", "chosen_start", "max_setup_seeds",
    )

    def __init__(self, env_id=None, preset=None, **options):
        super().__init__(env_id, preset, **options)
        if self.options["chosen_start"]:
            self.kernel = KERNEL_CHOSEN_START
            self.search_heuristic = search_heuristic_chosen_start

    def _validate_combination(self) -> None:
        o = self.options
        if not o["chosen_start"] and o["min_sow"] > o["seeds"]:
            raise InvalidOptionError(
                f"{self.env_id}: min_sow={o['min_sow']} is more than seeds={o['seeds']}, so no hole "
                f"could ever be played; min_sow must be at most seeds"
            )

    def _sizes(self) -> tuple[int, int, int]:
        o = self.options
        n = o["pits"]
        num_actions = n * o["directions"]
        obs = 2 * n + 3
        if o["chosen_start"]:
            num_actions = max(num_actions, o["max_setup_seeds"] + 1, 4)
            obs += 4
        return 2 * n + 2 + HEADER_SIZE, num_actions, obs

    key_excludes_scores = True  # the stores only add up: no rule reads them

    def position_key_indices(self) -> np.ndarray:
        """The holes, mover and phase: the stores only add up, and the ply counter and the last
        move decide nothing (``max_plies`` aside)."""
        n = self.pits
        head = 2 * n + 2
        return state_indices_except(self, [n, 2 * n + 1, head + H_PLIES, head + H_LAST_ACTION, head + H_LAST_PLAYER])

    @property
    def pits(self) -> int:
        return self.options["pits"]

    def total_seeds_bound(self) -> int:
        """Most seeds a position of this game can hold."""
        o = self.options
        per_hole = o["max_setup_seeds"] if o["chosen_start"] else o["seeds"]
        return 2 * o["pits"] * per_hole

    def _total_seeds_text(self) -> str:
        o = self.options
        if o["chosen_start"]:
            return f"2 x {o['pits']} holes x max_setup_seeds={o['max_setup_seeds']}"
        return f"2 x {o['pits']} holes x {o['seeds']} seeds"

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, float(max(self.total_seeds_bound(), 1))

    def conserved_total(self, state: State) -> int | None:
        """Seeds in the rows and stores; None while the chooser is still placing them."""
        n = self.pits
        if state.array[2 * n + 2 + H_PHASE] == PHASE_SETUP:
            return None
        return int(state.array[: 2 * n + 2].sum())

    # -- JSON ---------------------------------------------------------------------------
    def _state_to_json(self, array: np.ndarray) -> dict:
        n = self.pits
        head = 2 * n + 2
        last = int(array[head + H_LAST_ACTION])
        return {
            "pits": [array[0:n].tolist(), array[n + 1 : 2 * n + 1].tolist()],
            "stores": [int(array[n]), int(array[2 * n + 1])],
            "to_move": int(array[head + H_TO_MOVE]),
            "terminal": bool(array[head + H_DONE]),
            "plies": int(array[head + H_PLIES]),
            "phase": PHASE_NAMES[int(array[head + H_PHASE])],
            "setup_index": int(array[head + H_SETUP_INDEX]),
            "last_action": None if last < 0 else last,
            "last_player": None if last < 0 else int(array[head + H_LAST_PLAYER]),
        }

    def _state_from_json(self, payload: dict) -> np.ndarray:
        owner = self.env_id
        n = self.pits
        head = 2 * n + 2
        check_json_keys(payload, JSON_KEYS, owner)
        rows = payload.get("pits")
        if not isinstance(rows, (list, tuple)) or len(rows) != 2:
            raise InvalidStateError(
                f"{owner}: 'pits' must be two lists of {n} seed counts (player 0's holes, then player 1's), "
                f"got {rows!r}"
            )
        bound = self.total_seeds_bound()
        row0 = json_int_list({"pits[0]": rows[0]}, "pits[0]", n, owner, high=bound)
        row1 = json_int_list({"pits[1]": rows[1]}, "pits[1]", n, owner, high=bound)
        stores = json_int_list(payload, "stores", 2, owner, high=bound)
        total = sum(row0) + sum(row1) + sum(stores)
        if total > bound:
            raise InvalidStateError(
                f"{owner}: the position holds {total} seeds in the holes and stores; this game has at most {bound} "
                f"({self._total_seeds_text()})"
            )
        to_move = json_int(payload, "to_move", owner, 0, 1)
        ply_count = json_plies(payload, owner)
        terminal = json_bool(payload, "terminal", owner)
        phase_name = payload.get("phase", "play")
        if phase_name not in PHASE_NAMES:
            raise InvalidStateError(f"{owner}: 'phase' must be one of {', '.join(PHASE_NAMES)}, got {phase_name!r}")
        phase = PHASE_NAMES.index(phase_name)
        if phase != PHASE_PLAY and not self.options["chosen_start"]:
            raise InvalidStateError(
                f"{owner}: phase {phase_name!r} exists only with chosen_start=True; this game starts in 'play'"
            )
        setup_index = json_int(payload, "setup_index", owner, 0, 2 * n, default=0)
        last_action = payload.get("last_action")
        if last_action is not None:
            last_action = json_int(payload, "last_action", owner, 0, self.num_actions - 1)
        last_player = payload.get("last_player")
        if last_player is not None:
            last_player = json_int(payload, "last_player", owner, 0, 1)
        if (last_action is None) != (last_player is None):
            raise InvalidStateError(f"{owner}: 'last_action' and 'last_player' must both be null or both be set")
        if phase == PHASE_SETUP:
            if setup_index >= 2 * n:
                raise InvalidStateError(f"{owner}: in the setup phase setup_index must be 0 to {2 * n - 1}")
            if any(stores) or any((row0 + row1)[setup_index:]):
                raise InvalidStateError(
                    f"{owner}: in the setup phase the stores and the holes not yet set must be empty"
                )
            if to_move != 0:
                raise InvalidStateError(f"{owner}: in the setup phase the chooser, player 0, is to move")
        if phase == PHASE_CHOOSE_SIDE:
            if to_move != 1 or any(stores):
                raise InvalidStateError(f"{owner}: in the side choice player 1 is to move and the stores are empty")
            if not any(row0 + row1):
                raise InvalidStateError(f"{owner}: a setup must place at least one seed")
        if phase != PHASE_PLAY:
            top = self.options["max_setup_seeds"]
            if max(row0 + row1) > top:
                raise InvalidStateError(
                    f"{owner}: a setup hole holds at most max_setup_seeds={top} seeds, got {max(row0 + row1)}"
                )
        array = np.zeros(self.state_size, dtype=np.int32)
        array[0:n] = row0
        array[n] = stores[0]
        array[n + 1 : 2 * n + 1] = row1
        array[2 * n + 1] = stores[1]
        array[head + H_TO_MOVE] = to_move
        array[head + H_PLIES] = ply_count
        array[head + H_PHASE] = phase
        if phase == PHASE_SETUP:
            array[head + H_SETUP_INDEX] = setup_index
        elif self.options["chosen_start"]:
            array[head + H_SETUP_INDEX] = 2 * n  # every hole has been set
        array[head + H_LAST_ACTION] = -1 if last_action is None else last_action
        array[head + H_LAST_PLAYER] = -1 if last_player is None else last_player
        if phase == PHASE_PLAY:
            settle(array, self.params)
        if terminal is not None and terminal != bool(array[head + H_DONE]):
            raise InvalidStateError(
                f"{owner}: the payload says terminal={payload['terminal']!r}, but under this game's end rule "
                f"the position is {'over' if array[head + H_DONE] else 'not over'}"
            )
        return array

    # -- notation -------------------------------------------------------------------------
    def _phase(self, state: State) -> int:
        return int(state.array[2 * self.pits + 2 + H_PHASE])

    def setup_hole_label(self, k: int) -> str:
        """Label of the k-th hole set in the chosen-start setup: side A then side B."""
        n = self.pits
        side, i = ("A", k) if k < n else ("B", k - n)
        return f"{side}{n - i}"

    def _action_to_string(self, state: State, action: int) -> str:
        n = self.pits
        phase = self._phase(state)
        if phase == PHASE_SETUP:
            k = int(state.array[2 * n + 2 + H_SETUP_INDEX])
            return f"{self.setup_hole_label(k)}={action}"
        if phase == PHASE_CHOOSE_SIDE:
            return SIDE_CHOICE_NAMES[action] if action < 4 else f"<no side choice {action}>"
        return self._play_move_name(action)

    def _play_move_name(self, action: int) -> str:
        n = self.pits
        if action >= n * self.options["directions"]:
            return f"<no move {action}>"
        hole, direction = action % n, action // n
        text = str(n - hole)
        if self.options["directions"] == 2:
            text += "L" if direction else "R"
        return text

    def _string_to_action(self, state: State, text: str) -> int:
        owner = self.env_id
        if not isinstance(text, str):
            raise NotationError(f"{owner}: a move must be a string, got {type(text).__name__}")
        if state.is_terminal():
            raise NotationError(f"{owner}: the game is over; no move {text!r} can be played")
        n = self.pits
        raw = text.strip().upper()
        phase = self._phase(state)
        if phase == PHASE_SETUP:
            k = int(state.array[2 * n + 2 + H_SETUP_INDEX])
            label = self.setup_hole_label(k)
            match = re.fullmatch(r"(?:([AB]\d+)\s*=\s*)?(\d+)", raw)
            if not match:
                raise NotationError(
                    f"{owner}: setup move {text!r} not understood; write the seed count for hole {label}, "
                    f"e.g. '{label}=4' or '4'"
                )
            if match.group(1) and match.group(1) != label:
                raise NotationError(f"{owner}: the hole to set now is {label}, not {match.group(1)}")
            action = int(match.group(2))
        elif phase == PHASE_CHOOSE_SIDE:
            names = [s.upper() for s in SIDE_CHOICE_NAMES]
            if raw not in names:
                raise NotationError(
                    f"{owner}: side choice {text!r} not understood; write one of {', '.join(SIDE_CHOICE_NAMES)}"
                )
            action = names.index(raw)
        else:
            two_way = self.options["directions"] == 2
            match = re.fullmatch(r"(\d+)\s*([LR]?)", raw)
            if not match:
                hint = "a hole number with R or L, e.g. '3R'" if two_way else "a hole number, e.g. '3'"
                raise NotationError(f"{owner}: move {text!r} not understood; write {hint} (1 = next to your store)")
            number, direction = int(match.group(1)), match.group(2)
            if not 1 <= number <= n:
                raise NotationError(f"{owner}: hole {number} does not exist; holes are numbered 1 to {n}")
            if two_way and not direction:
                raise NotationError(f"{owner}: move {text!r} needs a direction: {number}R or {number}L")
            if not two_way and direction == "L":
                raise NotationError(f"{owner}: this game sows one way only; write {number}")
            action = (n - number) + (n if direction == "L" else 0)
            if not state.is_legal(action):
                seeds = int(state.array[state.current_player * (n + 1) + n - number])
                need = self.options["min_sow"]
                why = "it is empty" if seeds == 0 else f"it holds {seeds} seed(s) and needs at least {need}"
                raise NotationError(f"{owner}: hole {number} cannot be played: {why}")
            return action
        if not state.is_legal(action):
            legal = ", ".join(self._action_to_string(state, a) for a in state.legal_actions())
            raise NotationError(f"{owner}: {text!r} is not legal here; legal moves: {legal}")
        return action

    # -- text board and pictures ------------------------------------------------------------
    def status_text(self, state: State) -> str:
        n = self.pits
        a = state.array
        head = 2 * n + 2
        phase = int(a[head + H_PHASE])
        if a[head + H_DONE]:
            s0, s1 = int(a[n]), int(a[2 * n + 1])
            result = "draw" if s0 == s1 else f"player_{0 if s0 > s1 else 1} wins"
            return f"game over: {result} {s0}-{s1}"
        if phase == PHASE_SETUP:
            return f"setup: player_0 sets hole {self.setup_hole_label(int(a[head + H_SETUP_INDEX]))}"
        if phase == PHASE_CHOOSE_SIDE:
            return "player_1 chooses a side (A/B) and whether to move first"
        return f"player_{int(a[head + H_TO_MOVE])} to move; stores {int(a[n])}-{int(a[2 * n + 1])}"

    def action_cell(self, state: State, action: int) -> tuple[str | None, str]:
        """A play is the mover's hole (``"p0.3"``: player 0's hole 3 in sowing order); the
        bidirectional game's two moves of a hole are ``"ccw"`` (R) and ``"cw"`` (L). Setup counts
        and side choices are off the board."""
        n = self.pits
        if self._phase(state) != PHASE_PLAY or action >= n * self.options["directions"]:
            return None, ""
        way = "" if self.options["directions"] == 1 else ("cw" if action >= n else "ccw")
        return f"p{max(state.current_player, 0)}.{action % n}", way

    def board_view(self, state: State) -> dict:
        """Two rows and a store at each end, drawn from player_0's (South's) seat: player_1's
        holes along the far row with their store on the left, player_0's along the near row
        with their store on the right (see the board drawing above)."""
        n = self.pits
        a = state.array
        head = 2 * n + 2
        phase = int(a[head + H_PHASE])
        cells = {}
        for p in (0, 1):
            for i in range(n):
                label = f"{'AB'[p]}{n - i}" if phase != PHASE_PLAY else str(n - i)
                cells[f"p{p}.{i}"] = view_cell(label, a[p * (n + 1) + i], "hole", p)
            cells[f"store{p}"] = view_cell(f"store {p}", a[p * (n + 1) + n], "store", p)
        focus = []
        if phase == PHASE_SETUP and not a[head + H_DONE]:
            k = int(a[head + H_SETUP_INDEX])
            focus = [f"p0.{k}" if k < n else f"p1.{k - n}"]
        titles = ["side B", "side A"] if phase != PHASE_PLAY else ["player_1 (North)", "player_0 (South)"]
        return board_view_of(
            self, state, "two_rows", cells,
            [[f"p1.{i}" for i in range(n - 1, -1, -1)], [f"p0.{i}" for i in range(n)]],
            stores=["store1", "store0"], row_ends=[None, None], row_titles=titles, near_seat=0,
            seats=["player_0 (South)", "player_1 (North)"], score_name="store", focus=focus,
        )

    def _render_text(self, state: State) -> str:
        n = self.pits
        a = state.array
        head = 2 * n + 2
        phase = int(a[head + H_PHASE])
        width = max(3, len(str(int(a[: 2 * n + 2].max()))) + 1)

        def cells(values):
            return "".join(f"[{v:>{width}}]" for v in values)

        top_label, bottom_label = "player_1", "player_0"
        if phase != PHASE_PLAY:
            top_label, bottom_label = "side B", "side A"
        pad = " " * 10
        numbers_top = "".join(f" {k:>{width}} " for k in range(1, n + 1))
        numbers_bottom = "".join(f" {k:>{width}} " for k in range(n, 0, -1))
        top_row = [int(a[n + 1 + i]) for i in range(n - 1, -1, -1)]
        bottom_row = [int(a[i]) for i in range(n)]
        store_gap = " " * ((width + 2) * n)
        # the stores sit just outside the two rows: player_1's on the left, player_0's on the right
        stores_line = f"{'':<{10 - width - 2}}[{int(a[2 * n + 1]):>{width}}]" + store_gap + f"[{int(a[n]):>{width}}]"
        lines = [
            pad + numbers_top,
            f"{top_label:<10}" + cells(top_row),
            stores_line,
            f"{bottom_label:<10}" + cells(bottom_row),
            pad + numbers_bottom,
        ]
        status = self.status_text(state)
        last = int(a[head + H_LAST_ACTION])
        setup_plies = 2 * n + 1 if self.options["chosen_start"] else 0
        if last >= 0 and phase == PHASE_PLAY and a[head + H_PLIES] > setup_plies:
            status += f"; last move: player_{int(a[head + H_LAST_PLAYER])} played {self._play_move_name(last)}"
        lines.append(f"{self.env_id} ply {int(a[head + H_PLIES])}: {status}")
        return "\n".join(lines)


VARIANTS = (
    Variant("kalah-v0", KalahGame, "Egyptian Mancala (standard Kalah): captures, extra turns, Pratt's rules"),
    Variant(
        "kalah-basic-v0",
        KalahGame,
        "Pratt's Basic Mancala: no captures, no extra turns, leftover seeds count for nobody",
        {"extra_turn": False, "capture": False, "leftover": "discard"},
    ),
    Variant(
        "kalah-bidirectional-v0",
        KalahGame,
        "Pratt's bidirectional Mancala: each move sows either way; single seeds cannot be played",
        {"directions": 2, "min_sow": 2},
    ),
    Variant(
        "kalah-chosen-start-v0",
        KalahGame,
        "Egyptian Mancala after a setup: player_0 fills the holes, player_1 picks side and turn",
        {"chosen_start": True},
    ),
    Variant(
        "kalah-irving2000-v0",
        KalahGame,
        "Kalah as solved by Irving et al. (2000) and played by OpenSpiel: empty captures, ends on an empty row",
        {"capture_needs_opposite": False, "skip_origin": False, "end": "side_empty", "leftover": "owner"},
    ),
)
