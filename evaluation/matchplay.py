"""Match play for dealt games: one deal played twice, each agent starting once.

Rondell's rule text: the luck of the deal "can be completely removed by playing the same
initial position twice with each player starting once. The player who wins more points in
both games together is declared the winner of the match. A match can also result in a
draw." ``play_deal_match`` does exactly that for any registered id whose deal comes from the
seed (``new_state(seed)``):

* game 1: ``agent_a`` is ``player_0`` (moves first), ``agent_b`` is ``player_1``;
* game 2: the same deal (same seed), ``agent_b`` is ``player_0``, ``agent_a`` ``player_1``.

Agents follow the protocol of ``mancala_envs.agents.base``: ``act(state) -> action`` (given a clone of
the position) and ``reset(seed)``. Each agent is reset before each game with a seed derived
from the match seed, so a match is repeatable.

A game that reaches the id's ``max_plies`` is truncated: it counts the points taken so far
(``State.scores()`` of the last position) and is flagged ``truncated``; it is never scored
as a win.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import Game
from mancala_envs.records import GameRecord
from mancala_envs.registry import game_of

from .game_play import play_game


@dataclass
class DealGame:
    """One game of a match: who sat where and how it went."""

    record: GameRecord  # env id, options, seed and actions (replayable)
    seats: tuple[str, str]  # (player_0's agent name, player_1's agent name)
    a_seat: int  # the seat agent A played
    scores: list  # points per seat (player_0 first)
    returns: list  # +1/-1/0 per seat, zeros if truncated
    truncated: bool


@dataclass
class DealMatchResult:
    """Both games of a deal and the points each agent scored over the two."""

    env_id: str
    seed: int
    agent_a: str
    agent_b: str
    games: list = field(default_factory=list)  # two DealGame
    points: dict = field(default_factory=dict)  # {"a": summed points of A, "b": of B}

    @property
    def winner(self) -> str | None:
        """"a", "b", or None for a drawn match."""
        if self.points["a"] > self.points["b"]:
            return "a"
        if self.points["b"] > self.points["a"]:
            return "b"
        return None

    @property
    def truncated(self) -> bool:
        return any(g.truncated for g in self.games)

    def summary(self) -> str:
        who = {"a": self.agent_a, "b": self.agent_b, None: "nobody (draw)"}[self.winner]
        lines = [f"{self.env_id} deal seed {self.seed}: {self.agent_a} {self.points['a']} - "
                 f"{self.points['b']} {self.agent_b}; match won by {who}"]
        for number, g in enumerate(self.games, start=1):
            flag = " (truncated)" if g.truncated else ""
            lines.append(f"  game {number}: {g.seats[0]} (player_0) {g.scores[0]} - {g.scores[1]} "
                         f"{g.seats[1]} (player_1), {len(g.record.actions)} plies{flag}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "seed": self.seed,
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "points": dict(self.points),
            "winner": self.winner,
            "games": [
                {"record": g.record.to_json(), "seats": list(g.seats), "a_seat": g.a_seat, "scores": g.scores,
                 "returns": g.returns, "truncated": g.truncated}
                for g in self.games
            ],
        }


def play_deal_match(env: str | Game, agent_a, agent_b, seed: int, **options: Any) -> DealMatchResult:
    """Play the deal of ``seed`` twice, each agent starting once; sum each agent's points.

    ``env`` is a registered id (``options`` override its preset) or a ``Game``. Returns a
    ``DealMatchResult``: ``games`` (two ``DealGame`` with replayable records), ``points``
    (``{"a": ..., "b": ...}`` summed over both games) and ``winner`` ("a", "b" or None).
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MancalaError(f"play_deal_match: seed must be an integer >= 0 (it decides the deal), got {seed!r}")
    game = game_of(env, **options)
    seed = int(seed)
    agent_seeds = np.random.SeedSequence([seed, 7]).generate_state(4, dtype=np.uint32)
    name_a = getattr(agent_a, "name", "a")
    name_b = getattr(agent_b, "name", "b")
    result = DealMatchResult(game.env_id, seed, name_a, name_b, points={"a": 0, "b": 0})
    for number, a_seat in enumerate((0, 1)):
        agent_a.reset(seed=int(agent_seeds[2 * number]))
        agent_b.reset(seed=int(agent_seeds[2 * number + 1]))
        seated = (agent_a, agent_b) if a_seat == 0 else (agent_b, agent_a)
        played = play_game(game, seated, seed)
        scores = played.scores
        record = GameRecord.from_game(game, played.actions, seed=seed)
        names = (name_a, name_b) if a_seat == 0 else (name_b, name_a)
        result.games.append(DealGame(record, names, a_seat, scores, played.returns, played.truncated))
        result.points["a"] += scores[a_seat]
        result.points["b"] += scores[1 - a_seat]
    return result
