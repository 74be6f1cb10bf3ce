"""A slow, plain-Python reference implementation of Afrika, for testing the kernel.

Written from the rule text (the Mancala World article *Afrika*, Ralf Gering's game of 2004)
and the package rulings written in ``mancala_envs.games.afrika``'s docstring, independently of
``mancala_envs.games.afrika``. It shares only the documented conventions (action encoding,
JSON layout, the decisions listed in the module docstring) with the kernel.

Representation
--------------
The board is a dict from hole *names* to counts: South's ``"A".."H"`` and North's
``"a".."h"`` (for ``holes`` other than 8, as many letters as holes). The counterclockwise
ring is the list of names ``A B ... H a b ... h``; sowing walks it name by name. Opposite
holes are found by the rule "A faces the last lowercase letter, B the one before, ...".
Seats are the strings ``"North"`` and ``"South"``; player indices appear only at the edges
(actions, JSON, returns).

Rules implemented
-----------------
* North moves first; the players alternate.
* The mover's capture options: own empty holes whose opposite hole holds stones. If any,
  the mover must take all stones of one such opposite hole with the smallest count (any
  of a tie); the stones go to the mover's captured total and nothing is sown.
* Otherwise the mover empties any non-empty own hole and drops its stones one by one into
  the following holes of the ring, never into the emptied hole (skipped on every pass).
* The game ends when the board is empty; with ``giveaway`` also when a player has captured
  more than half of all stones (that player loses); with ``target`` when a captured total
  reaches the target (that player wins; checked before the empty board).
* Result on an empty board without a target win: ``north - komi`` against
  ``south + komi``; more wins, equal is a draw. Give-away with exactly half each: draw.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass

NORTH, SOUTH = "North", "South"


@dataclass
class RefState:
    board: dict  # hole name -> stones
    captured: dict  # seat -> stones
    to_move: str
    plies: int = 0
    last: tuple | None = None  # (action, player index, stones captured)


class AfrikaReference:
    def __init__(self, options: dict):
        self.n = int(options["holes"])
        self.stones = int(options["stones"])
        self.komi = float(options["komi"])
        self.giveaway = bool(options["giveaway"])
        self.target = options["target"]
        self.south_names = [chr(ord("A") + i) for i in range(self.n)]
        self.north_names = [chr(ord("a") + i) for i in range(self.n)]
        self.ring = self.south_names + self.north_names
        self.total = 2 * self.n * self.stones
        self.events: Counter = Counter()

    # -- geometry ------------------------------------------------------------------------------
    def row(self, seat: str) -> list:
        return self.north_names if seat == NORTH else self.south_names

    def opposite(self, name: str) -> str:
        if name.isupper():
            return self.north_names[self.n - 1 - self.south_names.index(name)]
        return self.south_names[self.n - 1 - self.north_names.index(name)]

    @staticmethod
    def other(seat: str) -> str:
        return SOUTH if seat == NORTH else NORTH

    # -- positions -----------------------------------------------------------------------------
    def initial(self, seed: int = 0) -> RefState:
        """The start (nothing is dealt, so ``seed`` changes nothing)."""
        return RefState({name: self.stones for name in self.ring}, {NORTH: 0, SOUTH: 0}, NORTH)

    def from_json(self, payload: dict) -> RefState:
        board = {}
        for i, name in enumerate(self.north_names):
            board[name] = payload["holes"][0][i]
        for i, name in enumerate(self.south_names):
            board[name] = payload["holes"][1][i]
        last = None
        if payload["last_action"] is not None:
            last = (payload["last_action"], payload["last_player"], payload["last_capture"])
        return RefState(
            board,
            {NORTH: payload["captured"][0], SOUTH: payload["captured"][1]},
            NORTH if payload["to_move"] == 0 else SOUTH,
            payload["plies"],
            last,
        )

    def to_json(self, state: RefState) -> dict:
        return {
            "holes": [[state.board[x] for x in self.north_names], [state.board[x] for x in self.south_names]],
            "captured": [state.captured[NORTH], state.captured[SOUTH]],
            "to_move": 0 if state.to_move == NORTH else 1,
            "terminal": self.is_terminal(state),
            "must_capture": (not self.is_terminal(state)) and bool(self.captures(state)),
            "plies": state.plies,
            "last_action": None if state.last is None else state.last[0],
            "last_player": None if state.last is None else state.last[1],
            "last_capture": None if state.last is None else state.last[2],
        }

    # -- rules ---------------------------------------------------------------------------------
    def captures(self, state: RefState) -> list:
        """The legal captures as (my empty hole, the captured hole): smallest ones only."""
        options = [
            (mine, self.opposite(mine))
            for mine in self.row(state.to_move)
            if state.board[mine] == 0 and state.board[self.opposite(mine)] > 0
        ]
        if not options:
            return []
        smallest = min(state.board[theirs] for _, theirs in options)
        return [(mine, theirs) for mine, theirs in options if state.board[theirs] == smallest]

    def is_terminal(self, state: RefState) -> bool:
        n_cap, s_cap = state.captured[NORTH], state.captured[SOUTH]
        if sum(state.board.values()) == 0:
            return True
        if self.giveaway and (n_cap * 2 > self.total or s_cap * 2 > self.total):
            return True
        if self.target is not None and (n_cap >= self.target or s_cap >= self.target):
            return True
        return False

    def current_player(self, state: RefState) -> int:
        if self.is_terminal(state):
            return -1
        return 0 if state.to_move == NORTH else 1

    def legal(self, state: RefState) -> list:
        if self.is_terminal(state):
            return []
        row = self.row(state.to_move)
        caps = self.captures(state)
        if caps:
            return sorted(row.index(mine) for mine, _ in caps)
        return [i for i, name in enumerate(row) if state.board[name] > 0]

    def apply(self, state: RefState, action: int) -> RefState:
        if action not in self.legal(state):
            raise ValueError(f"reference: action {action} is not legal; legal: {self.legal(state)}")
        new = copy.deepcopy(state)
        me = state.to_move
        mine = self.row(me)[action]
        caps = self.captures(state)
        if caps:
            theirs = self.opposite(mine)
            taken = new.board[theirs]
            new.board[theirs] = 0
            new.captured[me] += taken
            self.events["capture"] += 1
            if len(caps) > 1:
                self.events["capture_tie_choice"] += 1
            options = [m for m in self.row(me) if state.board[m] == 0 and state.board[self.opposite(m)] > 0]
            if len(options) > len(caps):
                self.events["capture_larger_refused"] += 1
        else:
            taken = 0
            hand = new.board[mine]
            new.board[mine] = 0
            k = self.ring.index(mine)
            passes = 0
            while hand:
                k = (k + 1) % len(self.ring)
                if self.ring[k] == mine:
                    passes += 1
                    continue
                new.board[self.ring[k]] += 1
                hand -= 1
            self.events["sow"] += 1
            if passes:
                self.events["origin_skipped"] += 1
        new.to_move = self.other(me)
        new.plies += 1
        new.last = (action, 0 if me == NORTH else 1, taken)
        if self.is_terminal(new):
            self.events["end_" + self._ending(new)] += 1
        return new

    def _ending(self, state: RefState) -> str:
        n_cap, s_cap = state.captured[NORTH], state.captured[SOUTH]
        if self.giveaway and max(n_cap, s_cap) * 2 > self.total:
            return "giveaway"
        if self.target is not None and max(n_cap, s_cap) >= self.target:
            return "target"
        return "empty_board"

    def scores(self, state: RefState) -> list:
        return self.to_json(state)["captured"]

    def returns(self, state: RefState) -> list:
        if not self.is_terminal(state):
            return [0.0, 0.0]
        n_cap, s_cap = state.captured[NORTH], state.captured[SOUTH]
        ending = self._ending(state)
        if ending == "giveaway":
            return [-1.0, 1.0] if n_cap * 2 > self.total else [1.0, -1.0]
        if ending == "target":
            return [1.0, -1.0] if n_cap >= self.target else [-1.0, 1.0]
        if self.giveaway:
            return [0.0, 0.0]  # exactly half each
        north, south = n_cap - self.komi, s_cap + self.komi
        if north > south:
            return [1.0, -1.0]
        if south > north:
            return [-1.0, 1.0]
        return [0.0, 0.0]
