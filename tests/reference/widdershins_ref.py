"""A slow, plain-Python reference implementation of Widdershins, for testing the kernel.

Written from the rule text (the Mancala World article *Widdershins*, David Parlett's game) and
the package rulings written in ``mancala_envs.games.widdershins``'s docstring, independently
of that module's kernel. Shared conventions only:
position names, the deal (``Generator.shuffle`` of card ids 0..51, id = suit*13 + rank-1 with
suits C D H S; cards 0..47 round the ring from S1, 48..51 on S1 S2 N1 N2), the action
encoding and the JSON layout.

Representation: a dict from position name ("S1".."N6") to a list of cards bottom to top,
each card a ``(rank, suit)`` tuple with rank 1 (Ace) .. 13 (King) and suit one of "CDHS".
The ring is the list of names ``RING``; "next position" is an index step in that list.
Repetition (Gering) is detected by keeping every position at the start of a turn since the
beginning of the game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

RING = [f"S{i}" for i in range(1, 7)] + [f"N{i}" for i in range(1, 7)]
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def colour(card) -> str:
    return "red" if card[1] in "DH" else "black"


def name(card) -> str:
    return RANK_NAMES.get(card[0], str(card[0])) + card[1]


def across(pos: str) -> str:
    row, i = pos[0], int(pos[1])
    return f"{'N' if row == 'S' else 'S'}{7 - i}"


@dataclass
class RefState:
    stacks: dict
    to_move: int
    south_colour: str
    first_move: bool = True
    plies: int = 0
    last_mover: int | None = None
    terminal: bool = False
    end: str | None = None
    seen: set = field(default_factory=set)
    start: dict | None = None
    since: list = field(default_factory=list)


class WiddershinsReference:
    def __init__(self, options: dict):
        self.gering = options["ending"] == "gering"
        self.events: Counter = Counter()

    def colour_of(self, s: RefState, player: int) -> str:
        if player == 0:
            return s.south_colour
        return "black" if s.south_colour == "red" else "red"

    def in_play(self, s: RefState, player: int) -> int:
        c = self.colour_of(s, player)
        return sum(1 for cards in s.stacks.values() for card in cards if colour(card) == c)

    def key(self, s: RefState):
        return (tuple(tuple(s.stacks[p]) for p in RING), s.to_move, s.first_move)

    def snapshot(self, s: RefState) -> dict:
        return {"stacks": [[name(c) for c in s.stacks[p]] for p in RING], "to_move": s.to_move,
                "first_move": s.first_move}

    def initial(self, seed) -> RefState:
        deck = np.arange(52)
        np.random.default_rng(seed).shuffle(deck)
        stacks = {p: [] for p in RING}
        for k, card in enumerate(deck):
            pos = RING[k % 12] if k < 48 else ["S1", "S2", "N1", "N2"][k - 48]
            stacks[pos].append((int(card) % 13 + 1, "CDHS"[int(card) // 13]))
        s = RefState(stacks=stacks, to_move=0, south_colour=colour(stacks["S1"][-1]))
        s.seen.add(self.key(s))
        s.start = self.snapshot(s)
        return s

    def view(self, player: int) -> list[str]:
        return RING[6 * player:] + RING[: 6 * player]

    def legal(self, s: RefState) -> list[int]:
        if s.terminal:
            return []
        if s.first_move:
            return [0]
        me = self.colour_of(s, s.to_move)
        view = self.view(s.to_move)
        out = []
        for rows in (range(6), range(6, 12)):
            for j in rows:
                cards = s.stacks[view[j]]
                if cards and colour(cards[-1]) == me:
                    out.append(j)
                    if len(cards) == 1 and cards[0][0] == 1:
                        out.append(12 + j)
            if out:
                break
        if not out:
            out.append(24)
        if not self.gering:
            mine, theirs = self.in_play(s, s.to_move), self.in_play(s, 1 - s.to_move)
            if mine + theirs < 13 and mine < theirs:
                out.append(25)
        return sorted(out)

    def apply(self, s: RefState, action: int) -> RefState:
        assert action in self.legal(s), (action, self.legal(s))
        s = RefState(stacks={p: list(c) for p, c in s.stacks.items()}, to_move=s.to_move,
                     south_colour=s.south_colour, first_move=s.first_move, plies=s.plies, last_mover=s.last_mover,
                     seen=set(s.seen), start=s.start, since=list(s.since))
        mover = s.to_move
        s.plies += 1
        s.last_mover = mover
        s.since.append(action)
        if action == 25:
            s.terminal, s.end = True, "resign"
            s.to_move = 1 - mover
            self.events["resign"] += 1
            return s
        before = sum(len(c) for c in s.stacks.values())
        if action == 24:
            self.events["pass"] += 1
        else:
            view = self.view(mover)
            pos = view[action % 12]
            self.move(s, pos, clockwise=action >= 12, me=self.colour_of(s, mover))
        s.first_move = False
        s.to_move = 1 - mover
        if sum(len(c) for c in s.stacks.values()) != before:
            s.start = self.snapshot(s)
            s.since = []
        c0, c1 = self.in_play(s, 0), self.in_play(s, 1)
        if self.gering:
            if min(c0, c1) < 6:
                s.terminal, s.end = True, "few_cards"
            elif self.key(s) in s.seen:
                s.terminal, s.end = True, "repetition"
            else:
                s.seen.add(self.key(s))
        elif c0 == 0 or c1 == 0:
            s.terminal, s.end = True, "colour_gone"
        elif all(len(c) <= 1 for c in s.stacks.values()):
            s.terminal, s.end = True, "singletons"
        if s.terminal:
            self.events["end_" + s.end] += 1
        return s

    def move(self, s: RefState, pos: str, clockwise: bool, me: str) -> None:
        cards = s.stacks[pos]
        if len(cards) >= 2:
            self.sow(s, pos, me)
            return
        card = cards.pop()
        rank = card[0]
        i = RING.index(pos)
        if rank == 1:
            target = RING[(i - 1) % 12] if clockwise else RING[(i + 1) % 12]
            self.events["ace_clockwise" if clockwise else "ace_counterclockwise"] += 1
        elif rank >= 11:
            target = across(pos)
            self.events["court_across"] += 1
        else:
            target = RING[(i + rank) % 12]
            self.events["number_move"] += 1
        if self.land(s, target, card, me):
            self.sow(s, target, me)

    def sow(self, s: RefState, pos: str, me: str) -> None:
        laps = 0
        while True:
            laps += 1
            hand = list(reversed(s.stacks[pos]))
            s.stacks[pos] = []
            i = RING.index(pos)
            for k, card in enumerate(hand[:-1]):
                s.stacks[RING[(i + 1 + k) % 12]].append(card)
            target = RING[(i + len(hand)) % 12]
            if len(hand) >= 12:
                self.events["sow_round_the_ring"] += 1
            if not self.land(s, target, hand[-1], me):
                return
            self.events["continuation"] += 1
            if laps >= 1000:
                return
            pos = target

    def land(self, s: RefState, pos: str, card, me: str) -> bool:
        stack = s.stacks[pos]
        if not stack:
            stack.append(card)
            self.events["land_vacant"] += 1
            return False
        top = stack[-1]
        stack.append(card)
        if colour(card) == colour(top):
            if colour(card) == me:
                return True
            self.events["land_opponent_on_opponent"] += 1
            return False
        if card[0] == top[0]:
            del stack[-2:]
            self.events["capture_same_rank"] += 1
            return False
        dropped = 14 if card[0] == 1 else card[0]
        if dropped > top[0]:
            s.stacks[pos] = [c for c in stack if colour(c) != colour(top)]
            self.events["capture_higher" + ("_ace" if card[0] == 1 else "")] += 1
            if top[0] == 1:
                self.events["capture_ace_low"] += 1
        else:
            stack.pop()
            self.events["capture_lower"] += 1
        return False

    def is_terminal(self, s: RefState) -> bool:
        return s.terminal

    def current_player(self, s: RefState) -> int:
        return -1 if s.terminal else s.to_move

    def scores(self, s: RefState) -> list[int]:
        if s.end == "repetition":
            return [0, 0]
        c = [self.in_play(s, 0), self.in_play(s, 1)]
        out = [0, 0]
        for p in (0, 1):
            if c[p] > c[1 - p]:
                if self.gering:
                    out[p] = c[p] - c[1 - p]
                else:
                    out[p] = c[p] // c[1 - p] if c[1 - p] else 2 * c[p]
        return out

    def returns(self, s: RefState) -> list[float]:
        if not s.terminal:
            return [0.0, 0.0]
        a, b = self.scores(s)
        return [1.0, -1.0] if a > b else [-1.0, 1.0] if b > a else [0.0, 0.0]

    def to_json(self, s: RefState) -> dict:
        out = {
            "stacks": [[name(c) for c in s.stacks[p]] for p in RING],
            "to_move": s.to_move,
            "south_colour": s.south_colour,
            "first_move": s.first_move,
            "plies": s.plies,
            "last_mover": s.last_mover,
            "terminal": s.terminal,
            "end": s.end,
        }
        if self.gering:
            out["history"] = dict(s.start, actions=list(s.since))
        return out

    def from_json(self, payload: dict) -> RefState:
        def card(text):
            rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text[:-1]) or int(text[:-1])
            return (rank, text[-1])

        s = RefState(stacks={p: [card(c) for c in payload["stacks"][i]] for i, p in enumerate(RING)},
                     to_move=payload["to_move"], south_colour=payload["south_colour"],
                     first_move=payload.get("first_move", False), plies=payload.get("plies", 0),
                     last_mover=payload.get("last_mover"))
        s.seen.add(self.key(s))
        s.start = self.snapshot(s)
        return s
