"""A slow, plain-Python reference implementation of Rondell, for testing the kernel.

Written from the rule text (the Mancala World article *Rondell*, Ralf Gering's game of 2005)
and the package rulings written in ``mancala_envs.games.rondell``'s docstring, independently
of that module's kernel. It shares only the documented
conventions: pile numbers, the action encoding, the seeded deal (``Generator.shuffle`` of
the deck, reds first; card k onto pile k mod P) and the JSON layout.

Representation: the ring is a Python list of ``[number, cards]`` in counterclockwise order
holding only the piles still in play (a pile that is emptied is deleted from the list), and
``cards`` lists the colours bottom to top ("R"/"B"). Repetition is detected by remembering
*every* position at the start of a move since the beginning of the game (no shortcut via
captures), as a tuple.

Rules implemented: a move lifts a pile of >= 2 cards (not the reserved pile; with
``partial`` only in the mover's own half); the cards go one per pile from the pile's own
place on, top card first (bottom first with ``bottom_up``); if the last card lands on a pile
whose top card has the same colour, both are taken by the mover; then a pile with >= 2 cards
left is sown again from its place, an empty one leaves the ring, and otherwise the move
ends. With ``reservation`` the mover then reserves a pile of >= 2 cards or nothing (action
P), unless no pile of >= 2 cards is left (then the game is over). Next mover: the opponent;
with ``partial`` the mover again if the opponent cannot move. The game ends when the player
to move cannot move (the last mover takes the leftovers) or when a position at the start of
a move (piles, player to move, reservation) equals an earlier one (the other player takes
them). Blue pair 2 points, red pair 1.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np


@dataclass
class RefState:
    ring: list  # [[number, [colours bottom to top]], ...] in ring order, only piles in play
    to_move: int
    phase: str = "move"
    reserved: int | None = None
    pairs: list = field(default_factory=lambda: [[0, 0], [0, 0]])
    plies: int = 0
    last_mover: int | None = None
    terminal: bool = False
    end: str | None = None
    leftover_to: int | None = None
    seen: set = field(default_factory=set)  # every position at the start of a move so far
    start: dict | None = None  # position after the last capture (JSON form) ...
    since: list = field(default_factory=list)  # ... and the actions since


class RondellReference:
    def __init__(self, options: dict):
        self.P = options["piles"]
        self.c = options["cards_per_pile"]
        self.red = options["red_pairs"]
        self.blue = options["blue_pairs"]
        self.reservation = options["reservation"]
        self.partial = options["partial"]
        self.bottom_up = options["bottom_up"]
        self.events: Counter = Counter()

    # -- helpers -------------------------------------------------------------------------
    def piles_by_number(self, s: RefState) -> list[list[str]]:
        out = [[] for _ in range(self.P)]
        for number, cards in s.ring:
            out[number] = list(cards)
        return out

    def key(self, s: RefState):
        return (tuple(tuple(p) for p in self.piles_by_number(s)), s.to_move, s.reserved)

    def own(self, player: int, number: int) -> bool:
        return not self.partial or number // (self.P // 2) == player

    def can_move(self, s: RefState, player: int, reserved) -> bool:
        return any(len(cards) >= 2 and number != reserved and self.own(player, number) for number, cards in s.ring)

    def rotation(self, player: int) -> int:
        return player * (self.P // 2) if self.partial else 0

    def snapshot_json(self, s: RefState) -> dict:
        return {
            "piles": ["".join(p) for p in self.piles_by_number(s)],
            "to_move": s.to_move,
            "phase": s.phase,
            "reserved": s.reserved,
        }

    # -- API -----------------------------------------------------------------------------
    def initial(self, seed) -> RefState:
        deck = np.array([1] * (2 * self.red) + [2] * (2 * self.blue), dtype=np.int64)
        np.random.default_rng(seed).shuffle(deck)
        piles = [[] for _ in range(self.P)]
        for k, card in enumerate(deck):
            piles[k % self.P].append("R" if card == 1 else "B")
        s = RefState(ring=[[i, piles[i]] for i in range(self.P)], to_move=0)
        s.seen.add(self.key(s))
        s.start = self.snapshot_json(s)
        return s

    def is_terminal(self, s: RefState) -> bool:
        return s.terminal

    def current_player(self, s: RefState) -> int:
        return -1 if s.terminal else s.to_move

    def legal(self, s: RefState) -> list[int]:
        if s.terminal:
            return []
        if s.phase == "reserve":
            return sorted(number for number, cards in s.ring if len(cards) >= 2) + [self.P]
        rot = self.rotation(s.to_move)
        out = []
        for number, cards in s.ring:
            if len(cards) >= 2 and number != s.reserved and self.own(s.to_move, number):
                out.append((number - rot) % self.P)
        return sorted(out)

    def apply(self, s: RefState, action: int) -> RefState:
        assert action in self.legal(s), (action, self.legal(s))
        s = RefState(
            ring=[[n, list(cards)] for n, cards in s.ring], to_move=s.to_move, phase=s.phase, reserved=s.reserved,
            pairs=[list(row) for row in s.pairs], plies=s.plies, last_mover=s.last_mover, terminal=s.terminal,
            end=s.end, leftover_to=s.leftover_to, seen=set(s.seen), start=s.start, since=list(s.since),
        )  # the tuples in ``seen`` are immutable, so a shallow copy of the set is enough
        mover = s.to_move
        s.plies += 1
        s.last_mover = mover
        s.since.append(action)
        if s.phase == "reserve":
            s.reserved = None if action == self.P else action
            s.phase = "move"
            s.to_move = 1 - mover
            self.events["reserve" if s.reserved is not None else "reserve_none"] += 1
            if not self.can_move(s, s.to_move, s.reserved):
                self.finish(s, "no_move", mover)
                self.events["end_no_move_by_reservation"] += 1
            else:
                self.check_repetition(s, mover)
            return s
        number = (action + self.rotation(mover)) % self.P
        s.reserved = None
        took = self.sow(s, number, mover)
        if self.reservation:
            if any(len(cards) >= 2 for _, cards in s.ring):
                s.phase = "reserve"
            else:
                s.to_move = 1 - mover
                self.finish(s, "no_move", mover)
        elif self.can_move(s, 1 - mover, None):
            s.to_move = 1 - mover
        elif self.partial and self.can_move(s, mover, None):
            s.to_move = mover
            self.events["pass"] += 1
        else:
            s.to_move = 1 - mover
            self.finish(s, "no_move", mover)
        if took:  # the record format of to_json: the position after the last capture ...
            s.start = self.snapshot_json(s)
            s.since = []
        if not s.terminal and s.phase == "move":
            self.check_repetition(s, mover)
        return s

    def check_repetition(self, s: RefState, mover: int) -> None:
        k = self.key(s)
        if k in s.seen:
            self.finish(s, "repetition", 1 - mover)
        else:
            s.seen.add(k)

    def finish(self, s: RefState, end: str, taker: int) -> None:
        s.terminal = True
        s.end = end
        s.leftover_to = taker
        self.events["end_" + end] += 1

    def sow(self, s: RefState, number: int, mover: int) -> bool:
        ring = s.ring
        idx = next(i for i, (n, _) in enumerate(ring) if n == number)
        took = False
        laps = 0
        while True:
            laps += 1
            cards = ring[idx][1]
            hand = list(cards) if self.bottom_up else list(reversed(cards))
            ring[idx][1] = []
            if len(hand) > len(ring):
                self.events["lap_longer_than_ring"] += 1
            pos = idx
            top_before = None
            for k, card in enumerate(hand):
                if k > 0:
                    pos = (pos + 1) % len(ring)
                target = ring[pos][1]
                if k == len(hand) - 1:
                    top_before = target[-1] if target else None
                target.append(card)
            last = hand[-1]
            if top_before != last:
                self.events["no_capture_end"] += 1
                break
            target = ring[pos][1]
            del target[-2:]
            s.pairs[mover][1 if last == "B" else 0] += 1
            took = True
            self.events["capture_" + last] += 1
            if laps >= 2:
                self.events["capture_on_lap_%d" % min(laps, 3)] += 1
            if not target:
                del ring[pos]
                self.events["pile_leaves_ring"] += 1
                break
            if len(target) < 2:
                self.events["capture_leaves_one"] += 1
                break
            idx = pos
        return took

    def scores(self, s: RefState) -> list[int]:
        out = [s.pairs[p][0] + 2 * s.pairs[p][1] for p in range(2)]
        if s.terminal and s.leftover_to is not None:
            board = sum(1 if c == "R" else 2 for _, cards in s.ring for c in cards) // 2
            out[s.leftover_to] += board
        return out

    def returns(self, s: RefState) -> list[float]:
        if not s.terminal:
            return [0.0, 0.0]
        a, b = self.scores(s)
        return [1.0, -1.0] if a > b else [-1.0, 1.0] if b > a else [0.0, 0.0]

    def to_json(self, s: RefState) -> dict:
        return {
            "piles": ["".join(p) for p in self.piles_by_number(s)],
            "to_move": s.to_move,
            "phase": s.phase,
            "reserved": s.reserved,
            "pairs": [list(row) for row in s.pairs],
            "plies": s.plies,
            "last_mover": s.last_mover,
            "terminal": s.terminal,
            "end": s.end,
            "leftover_to": s.leftover_to,
            "history": dict(s.start, actions=list(s.since)),
        }

    def from_json(self, payload: dict) -> RefState:
        """A position set up by hand (no history): the record starts there."""
        s = RefState(
            ring=[[i, list(p)] for i, p in enumerate(payload["piles"]) if p],
            to_move=payload["to_move"],
            phase=payload.get("phase", "move"),
            reserved=payload.get("reserved"),
            pairs=[list(row) for row in payload["pairs"]],
            plies=payload.get("plies", 0),
            last_mover=payload.get("last_mover"),
        )
        if s.phase == "move":
            if not self.can_move(s, s.to_move, s.reserved):
                self.finish(s, "no_move", s.last_mover if s.last_mover is not None else 1 - s.to_move)
            s.seen.add(self.key(s))
        s.start = self.snapshot_json(s)
        return s
