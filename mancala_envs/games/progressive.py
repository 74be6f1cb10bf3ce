"""Progressive Mancala (Ralf Gering, 2004): one row of holes, a shared Goal, bonus moves.

Rules source: Ralf Gering's description of Progressive Mancala (2004; the rules as
implemented for online play at games.wtanaka.com), with the package rulings below. Where a
ruling and the rule text disagree, the ruling stands.

Registered ids
--------------
===========================  ==============================================================
``progressive-v0``           the standard game: 11 holes, 5 stones each (55 stones)
``progressive-expert-v0``    the expert variant: 17 holes, 5 stones each (85 stones)
===========================  ==============================================================

Board and numbering
-------------------
One row of ``holes`` holes, shared by both players, and one shared Goal. Both players sit on
the same side of the board. Holes are numbered 1..n from West's left to right (n = 11)::

        hole   1    2    3    4    5    6    7    8    9   10   11
             [ 5][ 5][ 5][ 5][ 5][ 5][ 5][ 5][ 5][ 5][ 5]
        Goal [ 0]

The Goal closes the row into a ring: ``1, 2, ..., n, Goal, 1, ...`` (a package ruling places
the Goal between hole n and hole 1; the rule text's "adjacent to the central hole" describes the
physical board, not the sowing order).

* **East** is ``player_0``, moves first, and sows right to left: ``n, n-1, ..., 1, Goal, n, ...``
* **West** is ``player_1`` and sows left to right: ``1, 2, ..., n, Goal, 1, ...``

Rules
-----
1. A move empties any non-empty hole (either player may start from any hole; nobody owns a
   hole) and sows its stones one by one into the following positions in the mover's
   direction, the Goal included.
2. ``skip_origin`` (default False): a lap that comes round to the hole it was picked up
   from skips it (see the decisions below).
3. Relay: if the last stone lands in a hole that was not empty, that hole's whole contents
   (the last stone included) are picked up and sown on from the next position.
4. The move ends when the last stone lands in an empty hole or in the Goal. Ending in the
   Goal captures the Goal's whole contents for the mover, including every stone dropped into
   it in passing during this move (stones dropped into the Goal in passing simply stay there
   until a move ends in the Goal).
5. Bonus moves: a player's turn is ``1 + k`` moves, where ``k`` is the number of moves of the
   opponent's previous turn that ended in an empty hole (the opponent's own bonus moves
   count too). All moves of a turn are compulsory. A move ending in the Goal gives the
   opponent nothing, and does not end the turn early. East's first turn is one move.
6. The game ends as soon as every stone is captured (the row and the Goal are empty); the
   turn stops there even if moves of it were left. Most stones captured wins. With an odd
   total (55 or 85) a draw is impossible; a custom board with an even total can draw.

Why one move always ends (the guard)
------------------------------------
Let ``H`` be the stones in the row when a move starts. Call "outside" the stones in the row
plus the stones in hand. It starts at ``H``. A drop into a hole or a pick-up leaves it
unchanged; a drop into the Goal lowers it by one, and the Goal is never skipped. Sowing goes
on only while a stone is in hand, so the Goal can be passed at most ``H`` times: after the
``H``-th drop nothing is left in hand and the move ends in the Goal. Between two visits of
the Goal the sowing visits exactly ``n`` hole positions (skipped or not), so one move takes
at most ``H + n*(H+1) = (n+1)*H + n`` steps, and ``H`` is at most the board's total ``T``.

The kernel counts the steps of every move and compares them with ``(n+1)*T + n`` (the
parameter ``P_STEP_LIMIT``) each time a relay lap would start (a lap by itself always ends:
it drops a stone at least every second step). Exceeding the bound would mean a bug in the
kernel, so it is never a silent cut: the kernel writes the step count into the state's
``error`` field and raises ``SowingBoundError`` from inside numba. Numba 0.68 raises a
user-defined exception class with run-time arguments, from a cached function and through the
jitted playout loop, so no status code has to be threaded through the kernel contract; the
check sits in the relay branch, outside the per-stone loop. The exception reaches every
caller as it is: ``State.apply``, the AEC env, ``random_playouts``, the soak. One caller
cannot take it from inside its loop: a ``raise`` in a ``prange`` loop gives the loop a second
exit, and numba then runs it serially. So the move itself is ``sow``, which writes the flag
and returns the step count; ``apply`` raises for it, and the batched parallel step
(``mancala_envs.vector``) plays ``sow`` in its loop and, after the loop,
``raise_if_flagged`` raises the same error. The
half-played position is flagged: ``to_json()``, ``str()`` and the env's infos raise
``SowingBoundError`` again instead of passing it on. ``apply`` itself does not test the
flag on entry: that test on every move cost several per cent of the kernel's speed, for a
position that only a caller who caught the error could still hold. This needs no change in
shared code. The rules tests lower the bound on a copy of the params to prove the guard
fires, and a property test checks the bound against the reference's step counts.

Package rulings (points the rule text leaves open)
--------------------------------------------------
* Bonus count: ``k`` counts the moves of the opponent's whole previous turn that ended in an
  empty hole; the turn's moves are all compulsory. Moves earn bonuses even while
  the mover is playing bonus moves, so turns can grow 1, 2, 3, ... moves long.
* "Empty hole" means empty before the last stone: a hole that received a stone earlier in
  the same move and then gets the last one is not empty, so the sowing relays on from it.
  With ``skip_origin=False`` a lap of exactly ``n+1`` stones ends in the hole it was picked
  up from, which was emptied, so the move ends there as in an empty hole (and earns the
  opponent a bonus).
* ``skip_origin=True`` skips, on each lap, the hole that lap was picked up from: the chosen
  hole during the first lap, the relay hole during a relay lap. The Goal is never skipped.
* The end: when the last stone is captured the game is over at once, mid-turn if need be.
  In the final position ``to_json()`` keeps the last mover in ``to_move``, the moves of the
  turn left unplayed in ``moves_left`` and the bonus counted so far in ``bonus``;
  ``current_player`` is -1.
* While stones remain, the player to move always has a move: a move ends either with a
  stone in an empty hole (the row is not empty) or by emptying the Goal, so "Goal not empty
  but row empty" cannot arise; ``state_from_json`` refuses it.
* Positions given to ``state_from_json`` must hold exactly the board's total
  ``holes * stones`` (row, Goal and both captured totals): stones are never created or lost.
* Notation is read leniently: surrounding spaces are ignored.

Options
-------
================  ========  ====================================================
option            default   allowed
================  ========  ====================================================
``holes``         11        1 to 25 holes in the row (the expert id: 17)
``stones``        5         1 to 12 stones per hole at the start
``skip_origin``   False     bool: a lap skips the hole it was picked up from
``max_plies``     1000      1 to 10**6, or None (no cap); reaching it truncates
================  ========  ====================================================

Actions
-------
``Discrete(holes)``, mover-relative: action ``i`` empties the ``i``-th hole the mover's
sowing passes after the Goal. For West (``player_1``) action ``i`` is hole ``i+1``; for
East (``player_0``) it is hole ``n-i`` (action 0 is hole n, the rightmost). Legal: every
non-empty hole. Notation: the hole's number 1..n counted from West's left (``"7"``), the
same for both players; ``action_to_string``/``string_to_action`` convert using the player
to move. Illegal actions are masked out; applying one raises ``IllegalActionError``.

Observation
-----------
``Box(0, high, (holes + 6,), float32)``, relative to the observing player:

================  ====================================================================
index             meaning
================  ====================================================================
``0 .. n-1``      stones in the holes in my sowing order: index ``i`` is the hole that
                  my action ``i`` empties (West: holes 1..n; East: holes n..1)
``n``             stones in the Goal
``n+1``           stones I have captured
``n+2``           stones the opponent has captured
``n+3``           1 if it is my turn to move, else 0
``n+4``           moves left in the current turn (whoever's it is), counting the move
                  to be played now; 0 once the game is over
``n+5``           the bonus so far: moves of the current turn that ended in an empty
                  hole, i.e. the extra moves the waiting player gets on their next
                  turn; 0 once the game is over
================  ====================================================================

Counts are raw (not normalised). ``high = max(holes*stones, max_plies + 1)`` (``10**6 + 1``
in place of ``max_plies + 1`` without a cap); a turn is at most one move longer than the
previous one, so a turn never has more than ``plies + 1`` moves and entries ``n+4``, ``n+5``
stay below ``high`` in play (they are clipped at ``high`` for hand-made positions).

The env's ``infos`` carry the same two numbers for both agents: ``moves_left`` (moves left
in the current turn, counting the one to be played now) and ``bonus`` (the extra moves the
waiting player will receive), plus the usual ``scores`` and ``plies``. A bonus move shows
in the AEC env as the same agent being selected again.

Rewards and scores
------------------
+1 to the player with more stones captured, -1 to the other (0 each on an even-total draw),
given when the game ends; 0 on every other step and on truncation. ``scores()`` (and
``infos["scores"]``) are the captured totals, East (``player_0``) first.

State layout (``numpy.int32``)
------------------------------
::

    index:  0 .. n-1   n     n+1   n+2   n+3      n+4         n+5    n+6   n+7    n+8       n+9        n+10      n+11
            holes 1..n Goal  cap0  cap1  to_move  moves_left  bonus  done  plies  last_act  last_plyr  last_end  error

``holes`` and the Goal form the sowing ring (indices ``0 .. n``): West steps ``+1``, East
``-1``, both modulo ``n+1``. ``last_end``: -1 before the first move, ``n`` when the last
move ended in the Goal, else the index of the hole it ended in. ``error``: 0, or the step
count of a move that broke the guard's bound (see above).

``to_json()``::

    {"holes": [5, 5, ...], "goal": 0, "captured": [0, 0], "to_move": 0, "moves_left": 1,
     "bonus": 0, "terminal": false, "plies": 0, "last_action": null, "last_player": null,
     "last_end": null}

``holes`` in West-to-East order (hole 1 first); ``captured`` East first; ``last_end`` is
null, ``"goal"`` or the number (1..n) of the hole the last move ended in. In
``state_from_json`` only ``holes``, ``goal``, ``captured`` and ``to_move`` are required
(``moves_left`` defaults to 1, ``bonus`` and ``plies`` to 0, the ``last_*`` fields to null).

Rendering
---------
``render_mode="rgb_array"`` frames are 960 x 320 (W x H) for any number of holes: the row of
holes 1..n, the Goal beside the central hole, West on the left and East on the right (both
seated in front of the board, with their sowing directions), where the last move ended,
the captured totals and the moves left in the turn (``ProgressiveGame.board_view``).
``mancala play ID --window``: click a hole to empty it.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from ..core.errors import InvalidStateError, NotationError
from ..core.game import (
    JSON_COUNTER_LIMIT, MAX_PLIES_OPTION_DOC, Game, Kernel, State, Variant, board_view_of, check_json_keys, json_bool,
    json_int, json_int_list, json_plies, state_indices_except, view_cell,
)
from ..core.outcome import set_returns
from ..core.options import Option

# -- parameter vector: the options of PARAM_OPTIONS (Option.encode), then derived values ----
P_HOLES = 0
P_STONES = 1
P_SKIP_ORIGIN = 2
P_TOTAL = 3  # holes * stones
P_STEP_LIMIT = 4  # the guard's bound on the steps of one move: (n+1)*T + n
P_OBS_CAP = 5  # the observation's high; the turn counters are clipped to it

NO_CAP_OBS = 10**6  # stands in for max_plies in the observation bound when there is no cap

# -- header fields, as offsets after the ring (holes and Goal, n+1 entries) ----------------
H_CAPTURED = 0  # + player
H_TO_MOVE = 2
H_MOVES_LEFT = 3
H_BONUS = 4
H_DONE = 5
H_PLIES = 6
H_LAST_ACTION = 7
H_LAST_PLAYER = 8
H_LAST_END = 9
H_ERROR = 10
HEADER_SIZE = 11

SEAT_NAMES = ("East", "West")


class SowingBoundError(RuntimeError):
    """A move went on past the proven bound on its length: a bug in the kernel, never bad input.

    Raised from inside the numba kernel with the step count and the bound, and again by the
    Python layer for a position flagged by it.
    """

    def __init__(self, steps=-1, limit=-1):
        super().__init__(int(steps), int(limit))
        self.steps = int(steps)
        self.limit = int(limit)

    def __str__(self) -> str:
        return (
            f"progressive: one move took {self.steps} sowing steps, more than the proven bound of "
            f"{self.limit} ((holes+1)*total + holes); this is a bug in the kernel, not in your input. "
            f"The position is left half-played and flagged: do not use it further (exporting it raises this again)."
        )


# -- kernel -------------------------------------------------------------------------------
@njit(cache=True)
def init(state, params, rng):
    n = params[P_HOLES]
    head = n + 1
    state[:] = 0
    stones = params[P_STONES]
    for i in range(n):
        state[i] = stones
    state[head + H_MOVES_LEFT] = 1
    state[head + H_LAST_ACTION] = -1
    state[head + H_LAST_PLAYER] = -1
    state[head + H_LAST_END] = -1


@njit(cache=True)
def legal_mask(state, params, mask):
    n = params[P_HOLES]
    head = n + 1
    if state[head + H_DONE]:
        mask[:] = 0
        return 0
    count = 0
    if state[head + H_TO_MOVE] == 1:  # West: action i is hole i
        for i in range(n):
            v = 1 if state[i] > 0 else 0
            mask[i] = v
            count += v
    else:  # East: action i is hole n-1-i
        for i in range(n):
            v = 1 if state[n - 1 - i] > 0 else 0
            mask[i] = v
            count += v
    return count


@njit(cache=True, inline="always")
def sow(state, params, action):
    """The move, without raising: returns 0, or the step count of a move that broke the guard's
    bound (written into the state's ``error`` field too; the move is left half-played).

    ``apply`` raises for it; the batched parallel step calls ``sow`` itself (``batch_guard``),
    since a ``raise`` inside its ``prange`` loop would make numba run that loop serially."""
    n = params[P_HOLES]
    head = n + 1
    player = state[head + H_TO_MOVE]
    state[head + H_PLIES] += 1
    state[head + H_LAST_ACTION] = action
    state[head + H_LAST_PLAYER] = player
    ring = n + 1
    if player == 0:  # East: right to left, one step back round the ring is n steps forward
        hole = n - 1 - action
        step = n
    else:  # West: left to right
        hole = action
        step = 1
    skip_origin = params[P_SKIP_ORIGIN] != 0
    limit = params[P_STEP_LIMIT]
    hand = state[hole]
    state[hole] = 0
    pos = hole
    steps = 0
    while True:
        skipped = pos if skip_origin else -1
        while hand > 0:
            pos += step
            if pos >= ring:
                pos -= ring
            steps += 1
            if pos != skipped:
                state[pos] += 1
                hand -= 1
        if pos == n:  # the Goal
            break
        hand = state[pos]
        if hand == 1:  # the hole was empty before the last stone
            break
        if steps > limit:  # provably unreachable (module docstring): a kernel bug
            state[head + H_ERROR] = steps
            return steps
        state[pos] = 0  # relay: pick the hole up, last stone included

    left = state[head + H_MOVES_LEFT] - 1
    state[head + H_MOVES_LEFT] = left
    state[head + H_LAST_END] = pos
    if pos == n:
        state[head + H_CAPTURED + player] += state[n]
        state[n] = 0
        remaining = 0
        for i in range(n):
            remaining += state[i]
        if remaining == 0:  # every stone captured: the game (and the turn) stops here
            state[head + H_DONE] = 1
            return 0
    else:
        state[head + H_BONUS] += 1
    if left <= 0:
        state[head + H_TO_MOVE] = 1 - player
        state[head + H_MOVES_LEFT] = 1 + state[head + H_BONUS]
        state[head + H_BONUS] = 0
    return 0


@njit(cache=True)
def apply(state, params, action):
    steps = sow(state, params, action)
    if steps:  # provably unreachable (module docstring): a kernel bug
        raise SowingBoundError(steps, params[P_STEP_LIMIT])


@njit(cache=True)
def raise_if_flagged(state, params):
    """Raise ``SowingBoundError`` for a position ``sow`` flagged (the batched parallel step, after its loop)."""
    steps = state[params[P_HOLES] + 1 + H_ERROR]
    if steps:
        raise SowingBoundError(steps, params[P_STEP_LIMIT])


@njit(cache=True)
def current_player(state, params):
    head = params[P_HOLES] + 1
    if state[head + H_DONE]:
        return -1
    return state[head + H_TO_MOVE]


@njit(cache=True)
def scores(state, params, out):
    head = params[P_HOLES] + 1
    out[0] = state[head + H_CAPTURED]
    out[1] = state[head + H_CAPTURED + 1]


@njit(cache=True)
def returns(state, params, out):
    head = params[P_HOLES] + 1
    done = state[head + H_DONE]
    set_returns(state[head + H_CAPTURED] - state[head + H_CAPTURED + 1] if done else 0, out)


@njit(cache=True)
def observe(state, params, player, out):
    n = params[P_HOLES]
    head = n + 1
    if player == 1:
        for i in range(n):
            out[i] = state[i]
    else:
        for i in range(n):
            out[i] = state[n - 1 - i]
    out[n] = state[n]
    out[n + 1] = state[head + H_CAPTURED + player]
    out[n + 2] = state[head + H_CAPTURED + 1 - player]
    if state[head + H_DONE]:
        out[n + 3] = 0.0
        out[n + 4] = 0.0
        out[n + 5] = 0.0
    else:
        cap = params[P_OBS_CAP]
        out[n + 3] = 1.0 if state[head + H_TO_MOVE] == player else 0.0
        out[n + 4] = min(state[head + H_MOVES_LEFT], cap)
        out[n + 5] = min(state[head + H_BONUS], cap)


@njit(cache=True)
def plies(state, params):
    return state[params[P_HOLES] + 1 + H_PLIES]


KERNEL = Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)


# -- the rules object -----------------------------------------------------------------------
class ProgressiveGame(Game):
    """Progressive Mancala (Gering 2004): one row, a shared Goal, relay sowing, bonus moves."""

    scores_only_grow = True  # captured seeds never return to the board (mancala_envs.agents.search)
    result_follows_scores = True  # most stones wins (mancala_envs.agents.mcts stops decided rollouts)

    kernel = KERNEL
    batch_guard = (sow, raise_if_flagged)
    family = "progressive"
    OPTIONS = (
        Option("holes", 11, "int", "holes in the row", low=1, high=25),
        Option("stones", 5, "int", "stones per hole at the start", low=1, high=12),
        Option("skip_origin", False, "bool", "a lap skips the hole it was picked up from"),
        Option("max_plies", 1000, "int", MAX_PLIES_OPTION_DOC, low=1, high=10**6, allow_none=True),
    )

    PARAM_OPTIONS = ("holes", "stones", "skip_origin")

    def _derived_params(self) -> list[int]:
        n, total = self.options["holes"], self.options["holes"] * self.options["stones"]
        return [total, (n + 1) * total + n, self._obs_high()]  # P_TOTAL, P_STEP_LIMIT, P_OBS_CAP

    def _obs_high(self) -> int:
        o = self.options
        cap = o["max_plies"] if o["max_plies"] is not None else NO_CAP_OBS
        return max(o["holes"] * o["stones"], cap + 1)

    def _sizes(self) -> tuple[int, int, int]:
        n = self.options["holes"]
        return n + 1 + HEADER_SIZE, n, n + 6

    @property
    def holes(self) -> int:
        return self.options["holes"]

    @property
    def total_stones(self) -> int:
        return self.options["holes"] * self.options["stones"]

    def position_key_indices(self) -> np.ndarray:
        """Holes, Goal, captures, mover and the turn's moves; not the ply counter or the last move."""
        head = self.options["holes"] + 1
        return state_indices_except(
            self, [head + H_PLIES, head + H_LAST_ACTION, head + H_LAST_PLAYER, head + H_LAST_END])

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, float(self._obs_high())

    def conserved_total(self, state: State) -> int | None:
        """Stones in the row, the Goal and both captured totals."""
        n = self.holes
        return int(state.array[: n + 3].sum())

    def _check_not_flagged(self, array: np.ndarray) -> None:
        steps = int(array[self.holes + 1 + H_ERROR])
        if steps:
            raise SowingBoundError(steps, int(self.params[P_STEP_LIMIT]))

    def info(self, state: State) -> dict:
        array = state.array
        head = self.holes + 1
        if array[head + H_ERROR]:
            self._check_not_flagged(array)
        return {"moves_left": int(array[head + H_MOVES_LEFT]), "bonus": int(array[head + H_BONUS])}

    # -- JSON ---------------------------------------------------------------------------
    def _state_to_json(self, array: np.ndarray) -> dict:
        self._check_not_flagged(array)
        n = self.holes
        head = n + 1
        last = int(array[head + H_LAST_ACTION])
        end = int(array[head + H_LAST_END])
        return {
            "holes": array[:n].tolist(),
            "goal": int(array[n]),
            "captured": [int(array[head + H_CAPTURED]), int(array[head + H_CAPTURED + 1])],
            "to_move": int(array[head + H_TO_MOVE]),
            "moves_left": int(array[head + H_MOVES_LEFT]),
            "bonus": int(array[head + H_BONUS]),
            "terminal": bool(array[head + H_DONE]),
            "plies": int(array[head + H_PLIES]),
            "last_action": None if last < 0 else last,
            "last_player": None if last < 0 else int(array[head + H_LAST_PLAYER]),
            "last_end": None if end < 0 else ("goal" if end == n else end + 1),
        }

    def _state_from_json(self, payload: dict) -> np.ndarray:
        owner = self.env_id
        n = self.holes
        head = n + 1
        known = {"holes", "goal", "captured", "to_move", "moves_left", "bonus", "terminal", "plies",
                 "last_action", "last_player", "last_end"}
        check_json_keys(payload, known, owner)
        top = self.total_stones
        holes = json_int_list(payload, "holes", n, owner, high=top)
        goal = json_int(payload, "goal", owner, 0, top)
        captured = json_int_list(payload, "captured", 2, owner, high=top)
        to_move = json_int(payload, "to_move", owner, 0, 1)
        total = sum(holes) + goal + sum(captured)
        if total != self.total_stones:
            raise InvalidStateError(
                f"{owner}: the position holds {total} stones (holes, goal and captured), but this board has "
                f"{self.total_stones} ({n} holes x {self.options['stones']} stones); stones are never created or lost"
            )
        terminal = sum(holes) + goal == 0
        if not terminal and sum(holes) == 0:
            raise InvalidStateError(
                f"{owner}: the row is empty but the Goal holds {goal} stones: no move is possible, and no move "
                f"can leave this (a move ends with a stone in an empty hole or by emptying the Goal)"
            )
        moves_left = json_int(payload, "moves_left", owner, 0 if terminal else 1, JSON_COUNTER_LIMIT, default=1)
        bonus = json_int(payload, "bonus", owner, 0, JSON_COUNTER_LIMIT, default=0)
        ply_count = json_plies(payload, owner)
        given_terminal = json_bool(payload, "terminal", owner)
        last_action = payload.get("last_action")
        if last_action is not None:
            last_action = json_int(payload, "last_action", owner, 0, n - 1)
        last_player = payload.get("last_player")
        if last_player is not None:
            last_player = json_int(payload, "last_player", owner, 0, 1)
        if (last_action is None) != (last_player is None):
            raise InvalidStateError(f"{owner}: 'last_action' and 'last_player' must both be null or both be set")
        last_end = payload.get("last_end")
        if last_end is None:
            end = -1
        elif last_end == "goal":
            end = n
        elif isinstance(last_end, (int, np.integer)) and not isinstance(last_end, bool) and 1 <= last_end <= n:
            end = int(last_end) - 1
        else:
            raise InvalidStateError(
                f"{owner}: 'last_end' must be null, \"goal\" or a hole number from 1 to {n}, got {last_end!r}"
            )
        if given_terminal is not None and given_terminal != terminal:
            raise InvalidStateError(
                f"{owner}: the payload says terminal={payload['terminal']!r}, but the game is "
                f"{'over (every stone is captured)' if terminal else 'not over (stones remain on the board)'}"
            )
        array = np.zeros(self.state_size, dtype=np.int32)
        array[:n] = holes
        array[n] = goal
        array[head + H_CAPTURED] = captured[0]
        array[head + H_CAPTURED + 1] = captured[1]
        array[head + H_TO_MOVE] = to_move
        array[head + H_MOVES_LEFT] = moves_left
        array[head + H_BONUS] = bonus
        array[head + H_DONE] = terminal
        array[head + H_PLIES] = ply_count
        array[head + H_LAST_ACTION] = -1 if last_action is None else last_action
        array[head + H_LAST_PLAYER] = -1 if last_player is None else last_player
        array[head + H_LAST_END] = end
        return array

    # -- notation -------------------------------------------------------------------------
    def _mover(self, state: State) -> int:
        return int(state.array[self.holes + 1 + H_TO_MOVE])

    def hole_of(self, player: int, action: int) -> int:
        """The hole number (1..n from West's left) that ``player``'s ``action`` empties."""
        return action + 1 if player == 1 else self.holes - action

    def action_of(self, player: int, hole: int) -> int:
        """Inverse of ``hole_of``."""
        return hole - 1 if player == 1 else self.holes - hole

    def _action_to_string(self, state: State, action: int) -> str:
        return str(self.hole_of(self._mover(state), action))

    def _string_to_action(self, state: State, text: str) -> int:
        owner = self.env_id
        n = self.holes
        if not isinstance(text, str):
            raise NotationError(f"{owner}: a move must be a string, got {type(text).__name__}")
        if state.is_terminal():
            raise NotationError(f"{owner}: the game is over; no move {text!r} can be played")
        raw = text.strip()
        if not re.fullmatch(r"\d+", raw):
            raise NotationError(
                f"{owner}: move {text!r} not understood; write the number of the hole to empty, 1 to {n} "
                f"counted from West's left, e.g. '7'"
            )
        number = int(raw)
        if not 1 <= number <= n:
            raise NotationError(f"{owner}: hole {number} does not exist; holes are numbered 1 to {n}")
        if state.array[number - 1] == 0:
            raise NotationError(f"{owner}: hole {number} cannot be played: it is empty")
        return self.action_of(state.current_player, number)

    # -- text board and pictures ------------------------------------------------------------
    def status_text(self, state: State) -> str:
        a = state.array
        self._check_not_flagged(a)
        head = self.holes + 1
        c0, c1 = int(a[head + H_CAPTURED]), int(a[head + H_CAPTURED + 1])
        mover = int(a[head + H_TO_MOVE])
        if a[head + H_DONE]:
            result = "draw" if c0 == c1 else f"{SEAT_NAMES[0 if c0 > c1 else 1]} (player_{0 if c0 > c1 else 1}) wins"
            return f"game over: {result} {c0}-{c1}"
        left, bonus = int(a[head + H_MOVES_LEFT]), int(a[head + H_BONUS])
        return (
            f"{SEAT_NAMES[mover]} (player_{mover}) to move, {left} move{'s' if left != 1 else ''} left in "
            f"this turn; bonus for {SEAT_NAMES[1 - mover]} so far {bonus}"
        )

    def action_cell(self, state: State, action: int) -> tuple[str | None, str]:
        """The hole the move empties, keyed by its number (``"7"``)."""
        return str(self.hole_of(max(state.current_player, 0), action)), ""

    def board_view(self, state: State) -> dict:
        """The row of holes 1..n from West's left, both players seated in front of it (West on
        the left, East on the right), and the shared Goal beside the central hole."""
        a = state.array
        n = self.holes
        head = n + 1
        cells = {str(k + 1): view_cell(str(k + 1), a[k], "hole") for k in range(n)}
        cells["goal"] = view_cell("Goal", a[n], "goal")
        marks = {}
        end = int(a[head + H_LAST_END])
        if end >= 0:
            marks["goal" if end == n else str(end + 1)] = "ended here"
        return board_view_of(
            self, state, "one_row", cells, [[str(k + 1) for k in range(n)]], goal="goal",
            row_titles=["West (player_1) sows left to right", "East (player_0) sows right to left"],
            seats=["player_0 (East)", "player_1 (West)"], score_name="captured", marks=marks,
            details=[] if a[head + H_DONE] else [
                f"moves left in this turn: {int(a[head + H_MOVES_LEFT])}; bonus so far: {int(a[head + H_BONUS])}"
            ],
        )

    def _render_text(self, state: State) -> str:
        a = state.array
        self._check_not_flagged(a)
        n = self.holes
        head = n + 1
        width = max(3, len(str(int(a[: n + 1].max()))) + 1)
        numbers = "".join(f" {k:>{width}} " for k in range(1, n + 1))
        cells = "".join(f"[{int(v):>{width}}]" for v in a[:n])
        c0, c1 = int(a[head + H_CAPTURED]), int(a[head + H_CAPTURED + 1])
        lines = [
            "hole " + numbers,
            "     " + cells,
            f"Goal [{int(a[n]):>{width}}]   ring: East sows {n}..1, Goal, {n}..; West sows 1..{n}, Goal, 1..",
            f"captured: East (player_0) {c0}, West (player_1) {c1}",
        ]
        status = self.status_text(state)
        last = int(a[head + H_LAST_ACTION])
        if last >= 0:
            who = int(a[head + H_LAST_PLAYER])
            end = int(a[head + H_LAST_END])
            where = "the Goal" if end == n else f"empty hole {end + 1}"
            status += f"; last move: {SEAT_NAMES[who]} played {self.hole_of(who, last)}, ended in {where}"
        lines.append(f"{self.env_id} ply {int(a[head + H_PLIES])}: {status}")
        return "\n".join(lines)


VARIANTS = (
    Variant(
        "progressive-v0",
        ProgressiveGame,
        "Progressive Mancala (Gering 2004): 11 holes, a shared Goal, relay sowing, bonus moves",
    ),
    Variant("progressive-expert-v0", ProgressiveGame, "Progressive Mancala, expert board: 17 holes of 5 stones", {"holes": 17}),
)
