"""A slow, plain-Python reference implementation of the Kalah family, for testing the kernel.

Written from the rule texts (John P. Pratt, *Mancala*: Basic, Egyptian and Bidirectional
Mancala, and the chosen start of his last paragraph; 2009) and the package rulings written
in ``mancala_envs.games.kalah``'s docstring, independently of that module's kernel.
It shares only the documented conventions (numbering, action encoding, JSON layout) with the
kernel, so that a disagreement points at a bug on one side or the other.

Representation
--------------
A position is a ``RefState`` holding one Python list of holes per player (``rows[p]``, in
that player's sowing order: index 0 is the hole farthest from the player's store) and the two
stores. The board is never flattened into a ring: sowing walks it step by step with
positions written as tuples ``("hole", side, index)`` or ``("store", side)``.

Rules implemented
-----------------
Setup (``chosen_start=True`` only). Before play, ``player_0`` (the chooser) sets the seed
count of every hole, one action per hole; action ``k`` (0..``max_setup_seeds``) puts ``k``
seeds in the next hole. Side A's holes come first (in sowing order), then side B's. While
in setup, row 0 of the JSON is side A and row 1 side B. The last hole may not be set to 0
if every other hole is 0. Then ``player_1`` makes the side choice: 0 "A-second" (takes side
A, ``player_0`` moves first), 1 "A-first" (takes side A and moves first), 2 "B-second",
3 "B-first". ``player_0`` holds the side ``player_1`` did not take. After the choice the
end test below is made at once (a first mover without seeds ends the game; under
``end="side_empty"`` an empty row ends it).

Play. The mover picks a hole ``i`` of their own row holding at least ``min_sow`` seeds and,
with ``directions=2``, a direction ``d`` (0 counterclockwise / "right", 1 clockwise / "left");
the action is ``d*pits + i``. The hole is emptied and its seeds are sown one per position:

* counterclockwise: own row towards the store (i+1, i+2, ...), own store, then the
  opponent's row in the opponent's sowing order (0, 1, ...), opponent's store, own row from 0.
* clockwise: own row away from the store (i-1, ..., 0), opponent's store, the opponent's row
  backwards (pits-1, ..., 0), own store, own row from pits-1.
* The opponent's store is always skipped. With ``skip_origin`` the emptied hole is skipped
  too whenever the sowing comes round to it (only possible with 2*pits+1 seeds or more), so
  it is always empty after the move.

After sowing, where the last seed landed decides:

* the mover's store, with ``extra_turn``: the mover moves again (the direction may change).
* an own hole that was empty before the last seed (now holding exactly 1), with
  ``capture``: if the opposite hole (the opponent's ``pits-1-i``) holds seeds, the last seed
  and those seeds go to the mover's store; if it is empty and
  ``capture_needs_opposite=False``, the lone last seed is banked; otherwise nothing. A hole
  sown earlier in the same move holds 2 or more and never captures; the origin hole with
  ``skip_origin=False`` was emptied, so a last seed landing there can capture.
* anything else (including any hole of the opponent's row): nothing.

Then the turn passes to the opponent unless an extra turn was earned.

End. The game ends when the player to move has no playable hole (no hole with at least
``min_sow`` seeds), under either ``end`` rule; with ``end="side_empty"`` it also ends as soon
as either row is completely empty after a move. The ``to_move`` of the final position is the
player who would have moved. Then ``leftover="owner"``: each player adds the seeds of their
own row to their store (the rows become empty); ``"discard"``: the seeds stay in the rows and
count for nobody. Stores decide: more seeds wins (+1/-1), equal is a draw (0/0).

``max_plies`` is truncation, handled outside the rules, and is ignored here.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

PHASE_PLAY = "play"
PHASE_SETUP = "setup"
PHASE_CHOOSE = "choose_side"


@dataclass
class RefState:
    rows: list  # rows[p] = list of hole counts, in p's sowing order (in setup: rows[0]=A, rows[1]=B)
    stores: list
    to_move: int
    terminal: bool = False
    plies: int = 0
    phase: str = PHASE_PLAY
    setup_index: int = 0
    last_action: int | None = None
    last_player: int | None = None
    history: list = field(default_factory=list)


class KalahReference:
    """The Kalah family with every option, the slow and obvious way."""

    def __init__(self, options: dict):
        self.opts = dict(options)
        self.n = int(options["pits"])
        self.seeds = int(options["seeds"])
        self.extra_turn = bool(options["extra_turn"])
        self.capture = bool(options["capture"])
        self.needs_opposite = bool(options["capture_needs_opposite"])
        self.skip_origin = bool(options["skip_origin"])
        self.end = options["end"]
        assert self.end in ("mover_empty", "side_empty")
        self.leftover = options["leftover"]
        assert self.leftover in ("owner", "discard")
        self.directions = int(options["directions"])
        assert self.directions in (1, 2)
        self.min_sow = int(options["min_sow"])
        self.chosen_start = bool(options["chosen_start"])
        self.max_setup = int(options["max_setup_seeds"])
        # How often each rule fired, so that tests can check what they covered.
        self.events: Counter = Counter()

    # -- positions ------------------------------------------------------------------------
    def initial(self, seed: int = 0) -> RefState:
        """The start (nothing is dealt, so ``seed`` changes nothing)."""
        if self.chosen_start:
            return RefState(rows=[[0] * self.n, [0] * self.n], stores=[0, 0], to_move=0, phase=PHASE_SETUP)
        state = RefState(rows=[[self.seeds] * self.n, [self.seeds] * self.n], stores=[0, 0], to_move=0)
        self._check_end(state)
        return state

    def from_json(self, payload: dict) -> RefState:
        return RefState(
            rows=[list(payload["pits"][0]), list(payload["pits"][1])],
            stores=list(payload["stores"]),
            to_move=payload["to_move"],
            terminal=payload["terminal"],
            plies=payload["plies"],
            phase=payload["phase"],
            setup_index=payload["setup_index"],
            last_action=payload["last_action"],
            last_player=payload["last_player"],
        )

    def to_json(self, state: RefState) -> dict:
        return {
            "pits": [list(state.rows[0]), list(state.rows[1])],
            "stores": list(state.stores),
            "to_move": state.to_move,
            "terminal": state.terminal,
            "plies": state.plies,
            "phase": state.phase,
            "setup_index": state.setup_index,
            "last_action": state.last_action,
            "last_player": state.last_player,
        }

    def is_terminal(self, state: RefState) -> bool:
        return state.terminal

    def current_player(self, state: RefState) -> int:
        return -1 if state.terminal else state.to_move

    def scores(self, state: RefState) -> list:
        return list(state.stores)

    def returns(self, state: RefState) -> list:
        if not state.terminal:
            return [0.0, 0.0]
        a, b = state.stores
        if a > b:
            return [1.0, -1.0]
        if b > a:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    # -- legality ---------------------------------------------------------------------------
    def _playable_holes(self, state: RefState, player: int) -> list:
        return [i for i in range(self.n) if state.rows[player][i] >= self.min_sow]

    def legal(self, state: RefState) -> list:
        if state.terminal:
            return []
        if state.phase == PHASE_SETUP:
            actions = list(range(self.max_setup + 1))
            last = 2 * self.n - 1
            if state.setup_index == last and sum(state.rows[0]) + sum(state.rows[1]) == 0:
                actions.remove(0)
            return actions
        if state.phase == PHASE_CHOOSE:
            return [0, 1, 2, 3]
        holes = self._playable_holes(state, state.to_move)
        return sorted(d * self.n + i for d in range(self.directions) for i in holes)

    # -- the ring ---------------------------------------------------------------------------
    def _next_ccw(self, pos):
        if pos[0] == "hole":
            _, side, i = pos
            return ("hole", side, i + 1) if i + 1 < self.n else ("store", side)
        _, side = pos
        return ("hole", 1 - side, 0)

    def _next_cw(self, pos):
        if pos[0] == "hole":
            _, side, i = pos
            return ("hole", side, i - 1) if i > 0 else ("store", 1 - side)
        _, side = pos
        return ("hole", side, self.n - 1)

    # -- moves ------------------------------------------------------------------------------
    def apply(self, state: RefState, action: int) -> RefState:
        if action not in self.legal(state):
            raise ValueError(f"reference: action {action} is not legal; legal: {self.legal(state)}")
        new = copy.deepcopy(state)
        new.history.append(action)
        new.plies += 1
        new.last_action = action
        new.last_player = state.to_move
        if state.phase == PHASE_SETUP:
            side, hole = divmod(state.setup_index, self.n)
            new.rows[side][hole] = action
            new.setup_index += 1
            if new.setup_index == 2 * self.n:
                new.phase = PHASE_CHOOSE
                new.to_move = 1
            return new
        if state.phase == PHASE_CHOOSE:
            side_a, side_b = new.rows[0], new.rows[1]
            takes_a = action in (0, 1)
            moves_first = action in (1, 3)
            new.rows = [side_b, side_a] if takes_a else [side_a, side_b]
            new.phase = PHASE_PLAY
            new.to_move = 1 if moves_first else 0
            self._check_end(new)
            return new
        self._sow(new, action)
        return new

    def _sow(self, state: RefState, action: int) -> None:
        me = state.to_move
        opp = 1 - me
        direction, origin_i = divmod(action, self.n)
        step = self._next_ccw if direction == 0 else self._next_cw
        origin = ("hole", me, origin_i)
        before = copy.deepcopy(state.rows)
        hand = state.rows[me][origin_i]
        state.rows[me][origin_i] = 0
        self.events["clockwise" if direction else "counterclockwise"] += 1
        pos = origin
        while hand > 0:
            pos = step(pos)
            if pos == ("store", opp):
                continue
            if pos == origin:
                self.events["lap"] += 1
                if self.skip_origin:
                    self.events["origin_skipped"] += 1
                    continue
            if pos[0] == "store":
                state.stores[pos[1]] += 1
            else:
                state.rows[pos[1]][pos[2]] += 1
            hand -= 1

        next_player = opp
        if pos == ("store", me):
            if self.extra_turn:
                next_player = me
                self.events["extra_turn"] += 1
        elif pos[0] == "hole" and pos[1] == me and self.capture:
            i = pos[2]
            if state.rows[me][i] == 1:  # the hole was empty before the last seed
                j = self.n - 1 - i
                if state.rows[opp][j] > 0:
                    self.events["capture"] += 1
                    if pos == origin:
                        self.events["origin_capture"] += 1
                    state.stores[me] += state.rows[opp][j] + 1
                    state.rows[opp][j] = 0
                    state.rows[me][i] = 0
                elif not self.needs_opposite:
                    self.events["empty_capture"] += 1
                    state.stores[me] += 1
                    state.rows[me][i] = 0
                else:
                    self.events["no_capture_opposite_empty"] += 1
            elif before[me][i] == 0 or i == origin_i:
                # empty when the move began, but sown earlier in this same move
                self.events["landing_filled_earlier"] += 1
        elif pos[0] == "hole" and pos[1] == opp and state.rows[opp][pos[2]] == 1:
            self.events["empty_opponent_hole"] += 1
        state.to_move = next_player
        self._check_end(state)

    def _check_end(self, state: RefState) -> None:
        stuck = not self._playable_holes(state, state.to_move)
        row_empty = sum(state.rows[0]) == 0 or sum(state.rows[1]) == 0
        if stuck:
            self.events["end_mover_stuck"] += 1
        elif self.end == "side_empty" and row_empty:
            self.events["end_side_empty_early"] += 1
        else:
            return
        state.terminal = True
        if sum(state.rows[0]) + sum(state.rows[1]):
            self.events["leftover_" + self.leftover] += 1
        if self.leftover == "owner":
            for p in (0, 1):
                state.stores[p] += sum(state.rows[p])
                state.rows[p] = [0] * self.n
