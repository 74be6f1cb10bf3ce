"""Matches between agents with seats swapped every game."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mancala_envs.core.game import Game
from mancala_envs.registry import make_game

from .base import Agent


@dataclass
class MatchResult:
    """Outcome of a match, from agent A's side unless a field says otherwise."""

    env_id: str
    agent_a: str
    agent_b: str
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    truncated: int = 0
    score_diff_a: float = 0.0  # summed (A's score - B's score)
    wins_a_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    games_a_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    records: list[list[int]] = field(default_factory=list)

    def summary(self) -> str:
        mean = self.score_diff_a / max(self.games, 1)
        lines = [
            f"{self.env_id}: {self.agent_a} vs {self.agent_b}, {self.games} games (seats swapped every game)",
            f"  {self.agent_a:<20} wins {self.wins_a:>5}   ({self.wins_a / max(self.games, 1):.1%})",
            f"  {self.agent_b:<20} wins {self.wins_b:>5}   ({self.wins_b / max(self.games, 1):.1%})",
            f"  draws {self.draws}, truncated {self.truncated}, mean score difference for {self.agent_a}: {mean:+.2f}",
        ]
        for seat in (0, 1):
            played = self.games_a_by_seat[seat]
            if played:
                lines.append(
                    f"  {self.agent_a} as player_{seat}: {self.wins_a_by_seat[seat]}/{played} wins"
                )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "records"}


def play_game(game, agents: tuple[Agent, Agent], seed: int | None) -> tuple[list[float], list[int], list[int], bool]:
    """One game, ``agents[p]`` playing player ``p``. Returns (returns, scores, actions, truncated)."""
    state = game.new_state(seed)
    actions: list[int] = []
    cap = game.max_plies
    while not state.is_terminal():
        if cap is not None and state.plies >= cap:
            return [0.0, 0.0], state.scores(), actions, True
        action = agents[state.current_player].act(state.clone())
        state.apply(action)
        actions.append(int(action))
    return state.returns(), state.scores(), actions, False


def play_match(
    env: str | Game, agent_a: Agent, agent_b: Agent, games: int = 10, seed: int = 0, **options
) -> MatchResult:
    """``games`` games of ``env`` (an id, or a Game); A is player_0 in even games, player_1 in odd ones."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    game = env if isinstance(env, Game) else make_game(env, **options)
    env_id = game.env_id
    seeds = np.random.SeedSequence(seed).generate_state(games * 3, dtype=np.uint64).reshape(games, 3)
    result = MatchResult(env_id, agent_a.name, agent_b.name)
    for g in range(games):
        seat_a = g % 2
        agent_a.reset(seed=int(seeds[g, 1]))
        agent_b.reset(seed=int(seeds[g, 2]))
        seated = (agent_a, agent_b) if seat_a == 0 else (agent_b, agent_a)
        rets, scores, actions, truncated = play_game(game, seated, int(seeds[g, 0]))
        result.games += 1
        result.games_a_by_seat[seat_a] += 1
        result.records.append(actions)
        result.score_diff_a += scores[seat_a] - scores[1 - seat_a]
        if truncated:
            result.truncated += 1
        elif rets[seat_a] > 0:
            result.wins_a += 1
            result.wins_a_by_seat[seat_a] += 1
        elif rets[seat_a] < 0:
            result.wins_b += 1
        else:
            result.draws += 1
    return result
