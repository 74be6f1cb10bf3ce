"""Afrika: Ralf Gering's two-row game of compulsory, smallest-first captures (2004).

Rules source: the Mancala World article "Afrika" (inventor Ralf Gering, 2004), with the
package rulings below; where the two differ the rulings stand. One numba kernel plays every
variant; each is a set of options.

Registered ids
--------------
=================  ===========================================================================
``afrika-v0``      Afrika: 2x8 holes, 8 stones each (128 in all), North moves first,
                   komi 2.5 for South. ``giveaway=True`` plays Give-away Afrika;
                   ``target=65`` the unofficial first-to-65 game of Super Duper Games.
=================  ===========================================================================

Board and numbering
-------------------
Two rows of ``holes`` holes (8). Drawn from South's seat::

              h    g    f    e    d    c    b    a        <- North (player_0), a..h left to right
    North  [ 8][ 8][ 8][ 8][ 8][ 8][ 8][ 8]               as North sees them
    South  [ 8][ 8][ 8][ 8][ 8][ 8][ 8][ 8]
              A    B    C    D    E    F    G    H        <- South (player_1), A..H left to right

The ring is South's A..H, then North's a..h (``a`` sits above ``H``), then A again; sowing
runs counterclockwise along it, so each player sows left to right along their own row
and then into the far row. The hole opposite A is h, opposite B is g, ..., opposite H is a:
the mover's hole ``i`` faces the opponent's hole ``holes-1-i``.

Rules
-----
1. **North** (``player_0``) moves first; then the players alternate (there are no extra
   turns).
2. *Compulsory capture.* If the mover has an empty hole whose opposite hole holds stones,
   the mover must capture: they take all the stones of one such opposite hole into their
   captured total. The captured hole must hold the smallest count among all such holes;
   when several hold that count the mover chooses. The capture is the whole move (nothing
   is sown).
3. *Sowing.* Otherwise the mover takes all the stones of any non-empty own hole and sows
   them one by one into the following holes along the ring. The emptied hole is skipped on
   every pass (so it is empty after the move). Single lap: the move ends with the last
   stone, whatever lies there. Nothing is captured by a sowing move.
4. While stones remain on the board the mover always has a move (a mover with an empty row
   must capture). **The game ends when the board is empty.**
5. *Result, komi.* ``komi`` (2.5) is a transfer from North to South: the result compares
   ``north - komi`` with ``south + komi``. With 128 stones South wins with 62 or more,
   North with 67 or more; a half-point komi leaves no draw; ``komi=0`` allows a 64:64 draw.
6. ``giveaway=True`` (Give-away Afrika, Benedikt Rosenau 2010): the first player to have
   captured more than half of all stones loses at once.
7. ``target=N`` (the unofficial end of Super Duper Games): the game stops as soon as a
   player's captured total reaches ``N``, and that player wins.

Package rulings (points the rules leave open):

* Komi decides only the end on an empty board. In Give-away Afrika and at a ``target`` end
  the raw captured totals decide (the rule texts speak of stones captured, and komi is a
  compensation for the normal game). A Give-away game that empties the board with exactly
  half each is a draw, whatever the komi.
* ``target`` and ``giveaway`` cannot be combined (opposite aims); ``target`` must be at most
  the number of stones. A ``target`` above half the stones may never be reached: then the
  empty board ends the game under the komi rule. The target end is checked before the
  empty-board end, so a capture that reaches the target and empties the board is a target
  win.
* The ``margin`` a finished game reports is half the difference between the totals that
  decided it: on an empty board with komi, the winner's adjusted total minus half the stones
  ("South wins by 2.5"); at a give-away or target end, half the raw difference. 0 for a
  draw, ``None`` before the end.
* Positions set up by hand (``state_from_json``) must hold exactly ``2*holes*stones``
  stones on the board and in the captured totals together, as every real position does.
* Notation is case sensitive (the case says whose hole it is); the capture mark may be
  written ``x`` or ``X``. A move in notation is always checked for legality, and the error
  says why it is not legal (not your hole, empty hole, capture not available, not the
  smallest capture, sow while a capture is compulsory).
* ``holes`` may be 2 to 16 (letters a..p); ``stones`` 1 to 32. Some small boards can cycle
  for ever without a capture; ``max_plies`` truncates them.

Options
-------
=============== ======= ====================================================================
option          default allowed
=============== ======= ====================================================================
``holes``       8       2 to 16 holes per row
``stones``      8       1 to 32 stones per hole at the start
``komi``        2.5     0 to 1024 in steps of 0.5, at most ``2*holes*stones``: North's
                        transfer to South
``giveaway``    False   bool: Give-away Afrika (more than half of the stones loses)
``target``      None    None, or 1 to 1024, at most ``2*holes*stones``: first to reach it
                        wins (not with ``giveaway``)
``max_plies``   400     1 to 10**6, or None (no cap)
=============== ======= ====================================================================

Actions
-------
``Discrete(holes)``: action ``i`` is "my hole ``i``", left to right as the mover sees it
(North's a..h, South's A..H). When the mover must capture, action ``i`` captures the hole
opposite the mover's empty hole ``i`` (the opponent's hole ``holes-1-i``), and only the
smallest captures are legal; otherwise it sows the mover's hole ``i``.

Notation (the rule text's): a sow is the hole's letter (``e``, ``G``); a capture is ``x``
plus the captured hole's letter (``xd``, ``xA``). Uppercase is South's row, lowercase
North's. ``action_to_string`` writes it; ``string_to_action`` reads it.

Records (``mancala_envs.notation.parse`` / ``format``): the numbered move list of the rule
text, move pairs with North first, a capture optionally followed by its count::

    1. e G 2. h H 3. g E 4. h xd (+11) 5. xA (+13) F ...

Move numbers may be left out, but those present must be right; comments in braces
``{...}`` may stand anywhere (and ``#`` to the end of a line), and a result (``66:62``,
``1-0``, ``South wins ...``) may end the record. ``format`` writes the counts and ends a
finished game with ``{North 74, South 54: North wins by 7.5 (komi 2.5)}``.
``mancala replay afrika-v0 FILE`` replays a record and checks its counts.

Observation
-----------
``Box(0, high, (2*holes + 6,), float32)``, relative to the observing player, with
``high = max(2*holes*stones, komi)``:

===================  ==========================================================================
index                meaning
===================  ==========================================================================
``0 .. n-1``         stones in my holes, left to right as I see them (index ``i`` = action ``i``)
``n .. 2n-1``        stones in the opponent's holes, left to right as they see them (the hole
                     opposite my hole ``i`` is at ``n + (n-1-i)``)
``2n``               stones I have captured
``2n+1``             stones the opponent has captured
``2n+2``             1 if it is my turn, else 0
``2n+3``             1 if the player to move must capture (the actions are captures), else 0
``2n+4``             1 if I am North (I moved first and give the komi), else 0
``2n+5``             the komi (stones; North gives it, South receives it)
===================  ==========================================================================

Counts are raw stone counts, not normalised.

Rewards and scores
------------------
``scores()`` (and the env's ``infos["scores"]``) are the raw captured totals, North
(``player_0``) first. ``returns()`` and the env's final rewards are +1/-1/0 by the result
above (komi included), 0 on every other step and on truncation. ``Game.info`` adds to the
env's infos: ``komi``, ``adjusted_scores`` (``{"player_0": north - komi, "player_1": south +
komi}``), ``result`` (``"north"``, ``"south"``, ``"draw"``, or ``None`` before the end) and
``margin`` (see the decisions).

State layout (``numpy.int32``)
------------------------------
::

    index:  0 .. n-1    n .. 2n-1   2n      2n+1    2n+2     2n+3  2n+4   2n+5      2n+6         2n+7         2n+8
            North a..h  South A..H  cap N   cap S   to_move  done  plies  last_act  last_player  last_capt.   capture_min

The holes form the sowing ring in order (index ``k`` is followed by ``k+1 mod 2n``): the
mover ``p``'s hole ``i`` is at ``p*n + i`` and the hole opposite index ``k`` is ``2n-1-k``.
``last_capt.`` is the number of stones the last move captured (0 for a sow, -1 before the
first move); ``capture_min`` is the count of the smallest capture open to the player to
move (0: no capture, the mover sows). JSON (``to_json``): ``holes`` ([North's a..h,
South's A..H]), ``captured`` ([North, South]), ``to_move``, ``terminal``,
``must_capture``, ``plies``, ``last_action``, ``last_player``, ``last_capture``.

Search evaluation
-----------------
Alpha-beta (``mancala_envs.agents.search``) values a leaf, from the mover's side, as the captured
difference plus half the difference between the stones in the opponent's row and those
in the mover's own row: stones in the far row are the ones the mover can capture next,
stones in the near row the ones the opponent can. On ``afrika-v0`` this beats the bare
captured difference 37 games to 3 at depth 4, and wins 100 of 100 against random at depth
3 (the bare difference: 89). Komi is a constant shift, so leaving it out changes no choice.
Give-away Afrika keeps the bare captured difference at leaves (the term points the wrong
way there) and relies on the result at ends of the game.

Rendering
---------
``render_mode="rgb_array"`` frames are 800 x 360 (W x H) for every board size: drawn from
South's seat as above, North's row h..a far, South's A..H near, each side's captured
stones in a box at the end of its row, the komi-adjusted totals in the footer
(``AfrikaGame.board_view``). ``mancala play afrika-v0 --window``: click a hole to sow it,
or the hole to capture when a capture is compulsory.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from numba import njit

from ..core.errors import InvalidOptionError, InvalidStateError, NotationError
from ..core.game import (
    MAX_PLIES_OPTION_DOC, Game, Kernel, State, Variant, board_view_of, check_json_keys, json_bool, json_int, json_int_list,
    json_plies, state_indices_except, view_cell,
)
from ..core.notation import NUMBERED_MOVE_PAIRS
from ..core.outcome import set_returns
from ..core.options import Option

# -- parameter vector: the options of PARAM_OPTIONS (Option.encode), then derived values ----
P_HOLES = 0
P_STONES = 1
P_GIVEAWAY = 2
P_TARGET = 3  # 0 = no target
P_TOTAL = 4
P_KOMI2 = 5  # twice the komi (an integer: komi comes in half points)

# -- header fields, as offsets after the 2n holes --------------------------------------------
H_CAPTURED = 0  # two entries: North, South
H_TO_MOVE = 2
H_DONE = 3
H_PLIES = 4
H_LAST_ACTION = 5
H_LAST_PLAYER = 6
H_LAST_CAPTURE = 7
H_CAPTURE_MIN = 8
HEADER_SIZE = 9

SEATS = ("North", "South")
NO_CAPTURE = 2**31 - 1


# -- kernel -------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _capture_min(state, n, player):
    """The smallest count the player could capture (0 when no capture is open)."""
    base = player * n
    obase = (1 - player) * n
    best = NO_CAPTURE
    for i in range(n):
        if state[base + i] == 0:
            c = state[obase + n - 1 - i]
            if 0 < c < best:
                best = c
    return 0 if best == NO_CAPTURE else best


@njit(cache=True, inline="always")
def settle(state, params):
    """After a move (or on loading): decide whether the game is over; else the capture duty."""
    n = params[P_HOLES]
    head = 2 * n
    total = params[P_TOTAL]
    cap0 = state[head + H_CAPTURED]
    cap1 = state[head + H_CAPTURED + 1]
    done = cap0 + cap1 >= total
    if params[P_GIVEAWAY] and (2 * cap0 > total or 2 * cap1 > total):
        done = True
    target = params[P_TARGET]
    if target > 0 and (cap0 >= target or cap1 >= target):
        done = True
    state[head + H_DONE] = 1 if done else 0
    state[head + H_CAPTURE_MIN] = 0 if done else _capture_min(state, n, state[head + H_TO_MOVE])


@njit(cache=True)
def init(state, params, rng):
    n = params[P_HOLES]
    head = 2 * n
    state[:] = 0
    stones = params[P_STONES]
    for k in range(2 * n):
        state[k] = stones
    state[head + H_LAST_ACTION] = -1
    state[head + H_LAST_PLAYER] = -1
    state[head + H_LAST_CAPTURE] = -1
    settle(state, params)


@njit(cache=True)
def legal_mask(state, params, mask):
    n = params[P_HOLES]
    head = 2 * n
    if state[head + H_DONE]:
        mask[:] = 0
        return 0
    player = state[head + H_TO_MOVE]
    base = player * n
    cmin = state[head + H_CAPTURE_MIN]
    count = 0
    if cmin > 0:
        obase = (1 - player) * n + n - 1
        for i in range(n):
            ok = 1 if (state[base + i] == 0 and state[obase - i] == cmin) else 0
            mask[i] = ok
            count += ok
    else:
        for i in range(n):
            ok = 1 if state[base + i] > 0 else 0
            mask[i] = ok
            count += ok
    return count


@njit(cache=True)
def apply(state, params, action):
    n = params[P_HOLES]
    head = 2 * n
    ring = 2 * n
    player = state[head + H_TO_MOVE]
    state[head + H_PLIES] += 1
    state[head + H_LAST_ACTION] = action
    state[head + H_LAST_PLAYER] = player
    if state[head + H_CAPTURE_MIN] > 0:
        target = (1 - player) * n + n - 1 - action
        taken = state[target]
        state[target] = 0
        state[head + H_CAPTURED + player] += taken
        state[head + H_LAST_CAPTURE] = taken
    else:
        origin = player * n + action
        stones = state[origin]
        state[origin] = 0
        # every other hole gets `laps` stones, then the next `rest` holes one more
        laps = stones // (ring - 1)
        rest = stones - laps * (ring - 1)
        if laps > 0:
            for k in range(ring):
                state[k] += laps
            state[origin] -= laps
        # rest <= ring - 2, so these never reach the origin again
        end = origin + rest
        if end < ring:
            for k in range(origin + 1, end + 1):
                state[k] += 1
        else:
            for k in range(origin + 1, ring):
                state[k] += 1
            for k in range(end - ring + 1):
                state[k] += 1
        state[head + H_LAST_CAPTURE] = 0
    state[head + H_TO_MOVE] = 1 - player
    settle(state, params)


@njit(cache=True)
def current_player(state, params):
    head = 2 * params[P_HOLES]
    if state[head + H_DONE]:
        return -1
    return state[head + H_TO_MOVE]


@njit(cache=True)
def scores(state, params, out):
    head = 2 * params[P_HOLES]
    out[0] = state[head + H_CAPTURED]
    out[1] = state[head + H_CAPTURED + 1]


@njit(cache=True)
def winner(state, params):
    """0 or 1 for the winner, 2 for a draw, -1 while the game is on."""
    head = 2 * params[P_HOLES]
    if not state[head + H_DONE]:
        return -1
    cap0 = state[head + H_CAPTURED]
    cap1 = state[head + H_CAPTURED + 1]
    total = params[P_TOTAL]
    if params[P_GIVEAWAY]:
        if 2 * cap0 > total:
            return 1
        if 2 * cap1 > total:
            return 0
        return 2  # exactly half each on an empty board
    target = params[P_TARGET]
    if target > 0:
        if cap0 >= target:
            return 0
        if cap1 >= target:
            return 1
    # komi as a transfer: (cap0 - komi) vs (cap1 + komi), i.e. cap0 - cap1 vs 2*komi
    diff = cap0 - cap1
    if diff > params[P_KOMI2]:
        return 0
    if diff < params[P_KOMI2]:
        return 1
    return 2


@njit(cache=True)
def returns(state, params, out):
    w = winner(state, params)
    set_returns(1 if w == 0 else (-1 if w == 1 else 0), out)


@njit(cache=True)
def observe(state, params, player, out):
    n = params[P_HOLES]
    head = 2 * n
    mine = player * n
    theirs = (1 - player) * n
    for i in range(n):
        out[i] = state[mine + i]
        out[n + i] = state[theirs + i]
    out[2 * n] = state[head + H_CAPTURED + player]
    out[2 * n + 1] = state[head + H_CAPTURED + 1 - player]
    done = state[head + H_DONE] != 0
    out[2 * n + 2] = 1.0 if (not done and state[head + H_TO_MOVE] == player) else 0.0
    out[2 * n + 3] = 1.0 if state[head + H_CAPTURE_MIN] > 0 else 0.0
    out[2 * n + 4] = 1.0 if player == 0 else 0.0
    out[2 * n + 5] = params[P_KOMI2] / 2.0


@njit(cache=True)
def plies(state, params):
    return state[2 * params[P_HOLES] + H_PLIES]


@njit(cache=True)
def search_heuristic(state, params, player):
    """Alpha-beta's leaf value: captured difference plus half the row difference (docstring)."""
    n = params[P_HOLES]
    head = 2 * n
    mine = 0
    theirs = 0
    for i in range(n):
        mine += state[player * n + i]
        theirs += state[(1 - player) * n + i]
    captured = state[head + H_CAPTURED + player] - state[head + H_CAPTURED + 1 - player]
    return float(captured) + 0.5 * float(theirs - mine)


KERNEL = Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)


# -- the rules object -----------------------------------------------------------------------
class AfrikaGame(Game):
    """Afrika (Ralf Gering, 2004): compulsory smallest captures, komi; Give-away and target variants."""

    scores_only_grow = True  # captured seeds never return to the board (mancala_envs.agents.search)

    kernel = KERNEL
    family = "afrika"
    seat_names = SEATS  # player_0, player_1 in the rule text's terms
    OPTIONS = (
        Option("holes", 8, "int", "holes per row", low=2, high=16),
        Option("stones", 8, "int", "stones per hole at the start", low=1, high=32),
        Option(
            "komi",
            2.5,
            "float",
            "North's transfer to South, in half points: the result compares north-komi with south+komi",
            low=0,
            high=1024,
        ),
        Option("giveaway", False, "bool", "Give-away Afrika: the first to capture more than half the stones loses"),
        Option(
            "target",
            None,
            "int",
            "first to capture this many stones wins (the unofficial Super Duper Games end); None: no target",
            low=1,
            high=1024,
            allow_none=True,
        ),
        Option("max_plies", 400, "int", MAX_PLIES_OPTION_DOC, low=1, high=10**6, allow_none=True),
    )

    @property
    def search_heuristic(self):
        # Give-away play wants the opposite of captures: only the end's result guides it.
        return None if self.options["giveaway"] else search_heuristic

    @property
    def holes(self) -> int:
        return self.options["holes"]

    @property
    def total_stones(self) -> int:
        return 2 * self.options["holes"] * self.options["stones"]

    def _validate_combination(self) -> None:
        o = self.options
        total = 2 * o["holes"] * o["stones"]
        komi = o["komi"]
        if not float(komi * 2).is_integer():
            raise InvalidOptionError(f"{self.env_id}: komi={komi!r} is not allowed; komi comes in half points (0, 0.5, 1, ...)")
        if komi > total:
            raise InvalidOptionError(
                f"{self.env_id}: komi={komi!r} is more than the {total} stones of the game; komi must be 0 to {total}"
            )
        target = o["target"]
        if target is not None and target > total:
            raise InvalidOptionError(
                f"{self.env_id}: target={target} can never be reached with {total} stones; target must be 1 to {total}"
            )
        if target is not None and o["giveaway"]:
            raise InvalidOptionError(
                f"{self.env_id}: target and giveaway cannot be combined (first to the target wins, "
                f"but in Give-away Afrika capturing more than half loses); set one of them"
            )

    PARAM_OPTIONS = ("holes", "stones", "giveaway", "target")

    def _derived_params(self) -> list[int]:
        """P_TOTAL (the stones of the game) and P_KOMI2 (twice the komi, an integer)."""
        return [self.total_stones, int(round(self.options["komi"] * 2))]

    def _sizes(self) -> tuple[int, int, int]:
        n = self.options["holes"]
        return 2 * n + HEADER_SIZE, n, 2 * n + 6

    def position_key_indices(self) -> np.ndarray:
        """Holes, captures, mover and the capture obligation; not the ply counter or the last move."""
        head = 2 * self.options["holes"]
        return state_indices_except(
            self, [head + H_PLIES, head + H_LAST_ACTION, head + H_LAST_PLAYER, head + H_LAST_CAPTURE])

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, float(max(self.total_stones, self.options["komi"]))

    def conserved_total(self, state: State) -> int | None:
        """Stones on the board plus both captured totals (``2*holes*stones``, 128 by default)."""
        n = self.holes
        a = state.array
        return int(a[: 2 * n].sum() + a[2 * n + H_CAPTURED] + a[2 * n + H_CAPTURED + 1])

    # -- results --------------------------------------------------------------------------
    def winner(self, state: State) -> int | None:
        """0 (North) or 1 (South) for the winner, -1 for a draw, None while the game is on."""
        w = int(winner(state.array, self.params))
        return None if w < 0 else (-1 if w == 2 else w)

    def adjusted_scores(self, state: State) -> list[float]:
        """The captured totals after the komi transfer: [north - komi, south + komi]."""
        n0, n1 = state.scores()
        komi = self.options["komi"]
        return [n0 - komi, n1 + komi]

    def margin(self, state: State) -> float | None:
        """Half the difference of the totals that decided the game (see the docstring)."""
        w = self.winner(state)
        if w is None:
            return None
        if w == -1:
            return 0.0
        c0, c1 = state.scores()
        o = self.options
        raw_decides = o["giveaway"] or (o["target"] is not None and max(c0, c1) >= o["target"])
        if raw_decides:
            return abs(c0 - c1) / 2.0
        a0, a1 = self.adjusted_scores(state)
        return abs(a0 - a1) / 2.0

    def result_name(self, state: State) -> str | None:
        """``"north"``, ``"south"``, ``"draw"``, or None while the game is on."""
        w = self.winner(state)
        if w is None:
            return None
        return "draw" if w == -1 else SEATS[w].lower()

    def result_text(self, state: State) -> str:
        """E.g. ``"South wins by 2.5 (komi 2.5)"``, ``"draw"``, ``"game not over"``."""
        w = self.winner(state)
        if w is None:
            return "game not over"
        o = self.options
        c0, c1 = state.scores()
        if o["giveaway"]:
            how = "give-away"
        elif o["target"] is not None and max(c0, c1) >= o["target"]:
            how = f"first to {o['target']}"
        else:
            how = f"komi {_half(o['komi'])}"
        if w == -1:
            return f"draw ({how})"
        return f"{SEATS[w]} wins by {_half(self.margin(state))} ({how})"

    def info(self, state: State) -> dict[str, Any]:
        a0, a1 = self.adjusted_scores(state)
        return {
            "komi": float(self.options["komi"]),
            "adjusted_scores": {"player_0": float(a0), "player_1": float(a1)},
            "result": self.result_name(state),
            "margin": self.margin(state),
        }

    # -- JSON ---------------------------------------------------------------------------
    def _state_to_json(self, array: np.ndarray) -> dict:
        n = self.holes
        head = 2 * n
        last = int(array[head + H_LAST_ACTION])
        return {
            "holes": [array[0:n].tolist(), array[n : 2 * n].tolist()],
            "captured": [int(array[head + H_CAPTURED]), int(array[head + H_CAPTURED + 1])],
            "to_move": int(array[head + H_TO_MOVE]),
            "terminal": bool(array[head + H_DONE]),
            "must_capture": bool(array[head + H_CAPTURE_MIN] > 0),
            "plies": int(array[head + H_PLIES]),
            "last_action": None if last < 0 else last,
            "last_player": None if last < 0 else int(array[head + H_LAST_PLAYER]),
            "last_capture": None if last < 0 else int(array[head + H_LAST_CAPTURE]),
        }

    def _state_from_json(self, payload: dict) -> np.ndarray:
        owner = self.env_id
        n = self.holes
        head = 2 * n
        known = {"holes", "captured", "to_move", "terminal", "must_capture", "plies", "last_action",
                 "last_player", "last_capture"}
        check_json_keys(payload, known, owner)
        rows = payload.get("holes")
        if not isinstance(rows, (list, tuple)) or len(rows) != 2:
            raise InvalidStateError(
                f"{owner}: 'holes' must be two lists of {n} stone counts (North's a..., then South's A...), got {rows!r}"
            )
        top = self.total_stones
        north = json_int_list({"holes[0]": rows[0]}, "holes[0]", n, owner, high=top)
        south = json_int_list({"holes[1]": rows[1]}, "holes[1]", n, owner, high=top)
        captured = json_int_list(payload, "captured", 2, owner, high=top)
        total = sum(north) + sum(south) + sum(captured)
        if total != self.total_stones:
            raise InvalidStateError(
                f"{owner}: the position holds {total} stones on the board and in the captured totals; "
                f"this game has {self.total_stones} (2 x {n} holes x {self.options['stones']} stones)"
            )
        to_move = json_int(payload, "to_move", owner, 0, 1)
        ply_count = json_plies(payload, owner)
        given = {key: json_bool(payload, key, owner) for key in ("terminal", "must_capture")}
        last_action = payload.get("last_action")
        last_player = payload.get("last_player")
        last_capture = payload.get("last_capture")
        if last_action is None:
            if last_player is not None or last_capture is not None:
                raise InvalidStateError(f"{owner}: last_player and last_capture need a last_action")
        else:
            last_action = json_int(payload, "last_action", owner, 0, n - 1)
            last_player = json_int(payload, "last_player", owner, 0, 1)
            last_capture = json_int(payload, "last_capture", owner, 0, self.total_stones)
        target = self.options["target"]
        if target is not None and min(captured) >= target:
            raise InvalidStateError(f"{owner}: both captured totals reach the target {target}; the game stops at the first")
        array = np.zeros(self.state_size, dtype=np.int32)
        array[0:n] = north
        array[n : 2 * n] = south
        array[head + H_CAPTURED] = captured[0]
        array[head + H_CAPTURED + 1] = captured[1]
        array[head + H_TO_MOVE] = to_move
        array[head + H_PLIES] = ply_count
        array[head + H_LAST_ACTION] = -1 if last_action is None else last_action
        array[head + H_LAST_PLAYER] = -1 if last_player is None else last_player
        array[head + H_LAST_CAPTURE] = -1 if last_capture is None else last_capture
        settle(array, self.params)
        for key, actual in (("terminal", bool(array[head + H_DONE])), ("must_capture", bool(array[head + H_CAPTURE_MIN] > 0))):
            if given[key] is not None and given[key] != actual:
                raise InvalidStateError(
                    f"{owner}: the payload says {key}={payload[key]!r}, but the position gives {key}={actual}"
                )
        return array

    # -- notation -------------------------------------------------------------------------
    def hole_letter(self, player: int, hole: int) -> str:
        """The letter of ``player``'s hole ``hole`` (0 = leftmost as they see it): a.., A.."""
        return chr((ord("a") if player == 0 else ord("A")) + hole)

    def _action_to_string(self, state: State, action: int) -> str:
        a = state.array
        n = self.holes
        head = 2 * n
        player = int(a[head + H_TO_MOVE])
        if a[head + H_CAPTURE_MIN] > 0:
            return "x" + self.hole_letter(1 - player, n - 1 - action)
        return self.hole_letter(player, action)

    def _string_to_action(self, state: State, text: str) -> int:
        return self.read_move(state, text)

    def read_move(self, state: State, text: str) -> int:
        """Parse one move in the rule text's notation; NotationError says why it is not legal."""
        owner = self.env_id
        if not isinstance(text, str):
            raise NotationError(f"{owner}: a move must be a string, got {type(text).__name__}")
        if state.is_terminal():
            raise NotationError(f"{owner}: the game is over (the board is empty or decided); no move {text!r} can be played")

        def raise_(why: str):
            _notation_error(owner, text, why)

        n = self.holes
        last_lower = chr(ord("a") + n - 1)
        raw = text.strip()
        match = re.fullmatch(r"([xX]?)\s*([A-Za-z])", raw)
        if not match:
            raise_(
                f"not a move; write a hole letter to sow (e.g. 'e' or 'G') or x and the captured hole "
                f"(e.g. 'xd' or 'xA'); lowercase a-{last_lower} is North's row, uppercase "
                f"A-{last_lower.upper()} South's"
            )
        capture, letter = bool(match.group(1)), match.group(2)
        owner_of_letter = 0 if letter.islower() else 1
        hole = ord(letter.lower()) - ord("a")
        if hole >= n:
            raise_(f"there is no hole {letter}; the holes are a-{last_lower} (North) and A-{last_lower.upper()} (South)")
        a = state.array
        head = 2 * n
        me = int(a[head + H_TO_MOVE])
        cmin = int(a[head + H_CAPTURE_MIN])
        mover = SEATS[me]
        if not capture:
            if owner_of_letter != me:
                raise_(f"not your hole: {mover} is to move and sows from {self._row_name(me)}")
            if cmin > 0:
                raise_(f"sow while a capture is compulsory: {mover} must capture {self._capture_list(state)}")
            if a[me * n + hole] == 0:
                raise_(f"empty hole: {letter} holds no stones to sow")
            return hole
        if owner_of_letter == me:
            raise_(f"not your opponent's hole: {mover} captures from {self._row_name(1 - me)}")
        action = n - 1 - hole  # my hole facing the captured one
        facing = self.hole_letter(me, action)
        if cmin == 0:
            raise_(f"capture not available: {mover} has no empty hole facing a non-empty one, so {mover} must sow")
        stones = int(a[(1 - me) * n + hole])
        if a[me * n + action] != 0:
            raise_(f"capture not available: {letter} faces {mover}'s hole {facing}, which is not empty; "
                   f"{mover} must capture {self._capture_list(state)}")
        if stones == 0:
            raise_(f"capture not available: {letter} is empty; {mover} must capture {self._capture_list(state)}")
        if stones != cmin:
            raise_(f"not the smallest capture: {letter} holds {stones} stones, but {mover} must take the smallest "
                   f"count, {cmin}: {self._capture_list(state)}")
        return action

    def _row_name(self, player: int) -> str:
        n = self.holes
        first = self.hole_letter(player, 0)
        last = self.hole_letter(player, n - 1)
        return f"{first}-{last}"

    def _capture_list(self, state: State) -> str:
        return " or ".join(self._action_to_string(state, a) for a in state.legal_actions())

    # -- text board and pictures ------------------------------------------------------------
    def status_text(self, state: State) -> str:
        a = state.array
        head = 2 * self.holes
        if a[head + H_DONE]:
            return f"game over: {self.result_text(state)}"
        mover = SEATS[int(a[head + H_TO_MOVE])]
        duty = "must capture" if a[head + H_CAPTURE_MIN] > 0 else "sows"
        return f"{mover} to move ({duty})"

    def action_cell(self, state: State, action: int) -> tuple[str | None, str]:
        """A sow is the mover's hole, a capture the captured hole, keyed by letter (``"e"``, ``"G"``)."""
        name = self._action_to_string(state, action)
        return name[-1], ""

    def board_view(self, state: State) -> dict:
        """Drawn from South's seat, as the board drawing above: North's row h..a far, South's
        A..H near, each player's captured stones in a box at the right end of their row."""
        n = self.holes
        a = state.array
        head = 2 * n
        cells = {}
        for p in (0, 1):
            for i in range(n):
                letter = self.hole_letter(p, i)
                cells[letter] = view_cell(letter, a[p * n + i], "hole", p)
            cells[f"captured{p}"] = view_cell(f"{SEATS[p]} captured", a[head + H_CAPTURED + p], "captured", p)
        a0, a1 = self.adjusted_scores(state)
        details = [f"komi {_half(self.options['komi'])}: North {_half(a0)}, South {_half(a1)} after the transfer"]
        if self.options["giveaway"]:
            details.append("give-away: capturing more than half of the stones loses")
        if self.options["target"] is not None:
            details.append(f"first to {self.options['target']} captured stones wins")
        return board_view_of(
            self, state, "two_rows", cells,
            [[self.hole_letter(0, i) for i in range(n - 1, -1, -1)], [self.hole_letter(1, i) for i in range(n)]],
            stores=[None, None], row_ends=["captured0", "captured1"], row_titles=["North (player_0)", "South (player_1)"],
            near_seat=1, seats=["player_0 (North)", "player_1 (South)"], score_name="captured", details=details,
        )

    def _render_text(self, state: State) -> str:
        n = self.holes
        a = state.array
        head = 2 * n
        width = max(2, len(str(int(a[: 2 * n].max())))) if n else 2

        def cells(values):
            return "".join(f"[{v:>{width}}]" for v in values)

        def labels(letters):
            return "".join(f" {c:>{width}} " for c in letters)

        north = [int(a[i]) for i in range(n - 1, -1, -1)]  # h..a from South's seat
        south = [int(a[n + i]) for i in range(n)]
        cap0, cap1 = int(a[head + H_CAPTURED]), int(a[head + H_CAPTURED + 1])
        pad = " " * 7
        lines = [
            pad + labels([self.hole_letter(0, i) for i in range(n - 1, -1, -1)]),
            "North  " + cells(north) + f"   captured {cap0}",
            "South  " + cells(south) + f"   captured {cap1}",
            pad + labels([self.hole_letter(1, i) for i in range(n)]),
        ]
        status = self.status_text(state)
        last = int(a[head + H_LAST_ACTION])
        if last >= 0:
            player = int(a[head + H_LAST_PLAYER])
            taken = int(a[head + H_LAST_CAPTURE])
            if taken > 0:
                move = f"x{self.hole_letter(1 - player, n - 1 - last)} (+{taken})"
            else:
                move = self.hole_letter(player, last)
            status += f"; last move: {SEATS[player]} {move}"
        lines.append(f"{self.env_id} ply {int(a[head + H_PLIES])}: {status}")
        return "\n".join(lines)

    # -- records (see mancala_envs.notation) --------------------------------------------------
    def record_count(self, before: State, action: int, after: State) -> int | None:
        """The count a record writes after the move in brackets: the stones a capture took."""
        taken = int(after.array[2 * self.holes + H_LAST_CAPTURE])
        return taken if taken > 0 else None

    text_record_format = NUMBERED_MOVE_PAIRS


def _half(value: float) -> str:
    """2.5 -> '2.5', 3.0 -> '3'."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _notation_error(owner: str, text: str, why: str):
    """Raise NotationError; ``why`` (the reason alone) is kept for record errors."""
    raise NotationError(f"{owner}: {text!r}: {why}", why=why)


VARIANTS = (
    Variant(
        "afrika-v0",
        AfrikaGame,
        "Afrika (Gering 2004): 2x8 holes, compulsory smallest captures, komi 2.5; giveaway/target variants",
    ),
)
