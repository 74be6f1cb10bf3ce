"""A slow, plain-Python reference implementation of Progressive Mancala, for testing the kernel.

Written from the rule text (Ralf Gering's Progressive Mancala description, 2004) and the
package rulings written in ``mancala_envs.games.progressive``'s docstring, independently of
``mancala_envs.games.progressive``. It shares only the documented conventions (hole
numbering, action encoding, JSON layout) with the kernel.

Representation
--------------
The board is a dict from labels to stone counts: the holes are ``"1"`` .. ``"n"`` (West's
left to right) and the Goal is ``"G"``. Each player's sowing order is an explicit list of
labels, walked cyclically: West ``["1", ..., "n", "G"]``, East ``["n", ..., "1", "G"]``. The
turn is kept as the number of moves it allows and the list of outcomes (``"empty"`` or
``"goal"``) of the moves already played in it; the bonus is counted from that list.

Rules implemented
-----------------
* East (``player_0``) moves first. Any non-empty hole may be emptied by either player;
  action ``i`` is the ``i``-th hole in the mover's sowing order (West: hole ``i+1``; East:
  hole ``n-i``).
* The stones are sown one per position along the mover's order, the Goal included. With
  ``skip_origin`` each lap skips the hole it was picked up from.
* Last stone in a hole that held stones before it: pick the hole up (last stone included) and
  sow on from the next position. In a hole that was empty: the move ends ("empty"). In the
  Goal: the mover captures everything in the Goal and the move ends ("goal").
* A turn allows ``1 + k`` moves, ``k`` = the "empty" outcomes of the opponent's previous turn.
  When the turn's moves are used up, the other player's turn starts.
* When every stone is captured (no stone in a hole or the Goal) the game is over at once.
  Most captured stones wins.

``max_plies`` is truncation, handled outside the rules, and is ignored here.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field

GOAL = "G"


@dataclass
class RefState:
    board: dict  # label -> stones
    captured: list  # [East, West]
    to_move: int
    allowed: int  # moves this turn allows
    outcomes: list  # outcomes of the moves played in this turn
    terminal: bool = False
    plies: int = 0
    last_action: int | None = None
    last_player: int | None = None
    last_end: object = None  # None, "goal" or a hole number
    history: list = field(default_factory=list)


class ProgressiveReference:
    """Progressive Mancala with every option, the slow and obvious way."""

    def __init__(self, options: dict):
        self.n = int(options["holes"])
        self.stones = int(options["stones"])
        self.skip_origin = bool(options["skip_origin"])
        self.labels = [str(k) for k in range(1, self.n + 1)]
        self.orders = {
            1: self.labels + [GOAL],  # West
            0: list(reversed(self.labels)) + [GOAL],  # East
        }
        self.events: Counter = Counter()
        self.step_bound = 10**6  # a generous safety net, independent of the kernel's proof
        self.last_steps = 0  # positions visited by the last move (skipped ones included)

    # -- positions ------------------------------------------------------------------------
    def initial(self, seed: int = 0) -> RefState:
        """The start (nothing is dealt, so ``seed`` changes nothing)."""
        board = {label: self.stones for label in self.labels}
        board[GOAL] = 0
        return RefState(board=board, captured=[0, 0], to_move=0, allowed=1, outcomes=[])

    def from_json(self, payload: dict) -> RefState:
        board = {label: payload["holes"][k] for k, label in enumerate(self.labels)}
        board[GOAL] = payload["goal"]
        bonus = payload.get("bonus", 0)
        moves_left = payload.get("moves_left", 1)
        return RefState(
            board=board,
            captured=list(payload["captured"]),
            to_move=payload["to_move"],
            allowed=bonus + moves_left,
            outcomes=["empty"] * bonus,
            terminal=all(v == 0 for v in board.values()),
            plies=payload.get("plies", 0),
            last_action=payload.get("last_action"),
            last_player=payload.get("last_player"),
            last_end=payload.get("last_end"),
        )

    def to_json(self, state: RefState) -> dict:
        return {
            "holes": [state.board[label] for label in self.labels],
            "goal": state.board[GOAL],
            "captured": list(state.captured),
            "to_move": state.to_move,
            "moves_left": state.allowed - len(state.outcomes),
            "bonus": state.outcomes.count("empty"),
            "terminal": state.terminal,
            "plies": state.plies,
            "last_action": state.last_action,
            "last_player": state.last_player,
            "last_end": state.last_end,
        }

    def current_player(self, state: RefState) -> int:
        return -1 if state.terminal else state.to_move

    def is_terminal(self, state: RefState) -> bool:
        return state.terminal

    def scores(self, state: RefState) -> list:
        return list(state.captured)

    def returns(self, state: RefState) -> list:
        if not state.terminal:
            return [0.0, 0.0]
        east, west = state.captured
        if east > west:
            return [1.0, -1.0]
        if west > east:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    # -- actions ----------------------------------------------------------------------------
    def hole_label(self, player: int, action: int) -> str:
        return self.orders[player][action]

    def legal(self, state: RefState) -> list:
        if state.terminal:
            return []
        order = self.orders[state.to_move]
        return [a for a in range(self.n) if state.board[order[a]] > 0]

    # -- moves ------------------------------------------------------------------------------
    def apply(self, state: RefState, action: int) -> RefState:
        if action not in self.legal(state):
            raise ValueError(f"reference: action {action} is not legal; legal: {self.legal(state)}")
        new = copy.deepcopy(state)
        me = state.to_move
        new.history.append(action)
        new.plies += 1
        new.last_action = action
        new.last_player = me
        outcome, where = self._sow(new, me, self.hole_label(me, action))
        new.outcomes.append(outcome)
        new.last_end = where
        if outcome == "empty":
            self.events["empty_end"] += 1
        else:
            self.events["goal_end"] += 1
        if all(v == 0 for v in new.board.values()):
            new.terminal = True
            self.events["game_end"] += 1
            if len(new.outcomes) < new.allowed:
                self.events["end_mid_turn"] += 1
            return new
        if len(new.outcomes) == new.allowed:
            bonus = new.outcomes.count("empty")
            if bonus:
                self.events["bonus_granted"] += 1
            if bonus >= 2:
                self.events["bonus_2_or_more"] += 1
            if bonus >= 1 and "goal" in new.outcomes:
                self.events["turn_with_goal_and_empty"] += 1
            new.to_move = 1 - me
            new.allowed = 1 + bonus
            new.outcomes = []
        return new

    def _sow(self, state: RefState, me: int, label: str):
        order = self.orders[me]
        board = state.board
        hand = board[label]
        board[label] = 0
        idx = order.index(label)
        lap_origin = label
        passed_goal = 0
        steps = 0
        laps = 0
        while True:
            while hand > 0:
                idx = (idx + 1) % len(order)
                here = order[idx]
                steps += 1
                if steps > self.step_bound:
                    raise RuntimeError("reference: a move did not end")
                if self.skip_origin and here == lap_origin:
                    self.events["origin_skipped"] += 1
                    continue
                board[here] += 1
                hand -= 1
                if here == GOAL and hand > 0:
                    passed_goal += 1
                    self.events["east_wrap" if me == 0 else "west_wrap"] += 1
            if here == GOAL:
                if passed_goal:
                    self.events["capture_with_stones_dropped_in_passing"] += 1
                state.captured[me] += board[GOAL]
                board[GOAL] = 0
                self.last_steps = steps
                return "goal", "goal"
            if board[here] == 1:
                if here == lap_origin:
                    self.events["end_in_own_origin"] += 1
                self.last_steps = steps
                return "empty", int(here)
            laps += 1
            self.events["relay"] += 1
            if laps == 3:
                self.events["three_relays"] += 1
            hand = board[here]
            board[here] = 0
            lap_origin = here
