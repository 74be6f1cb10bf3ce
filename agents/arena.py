"""Matches between agents: seats swapped every game, each start position played twice.

``play_match(env, agent_a, agent_b, games, seed, workers=...)``:

* Game ``g`` seats agent A as ``player_0`` when ``g`` is even and as ``player_1`` when odd.
* Games ``2k`` and ``2k+1`` start from the same seed (``start_seeds``): in a dealt game
  (a card mancala) each deal is played twice, once from each seat, which removes the luck
  of the deal, as ``mancala_envs.agents.matchplay.play_deal_match`` does for a single deal. In
  games without a random start it changes nothing.
* Each agent is ``reset`` with its own seed before every game (derived from ``seed`` and
  the game number), so a match is repeatable and a game's moves do not depend on which
  process played it or what it played before.
* ``workers`` processes (default: every core, capped by the number of games) play the
  games; the parent forks them (Linux), so the agents, the game and numba's compiled code
  are inherited, not pickled. ``workers=1`` plays in this process.
* A game reaching the id's ``max_plies`` is truncated: neither win nor draw.

Returns a ``MatchResult`` with win/draw/loss counts and score sums overall and per seat.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from mancala_envs.core.game import Game
from .matchplay import play_game as play_out
from mancala_envs.registry import make_game

from .base import Agent


@dataclass
class MatchResult:
    """Outcome of a match, from agent A's side unless a field says otherwise.

    Per-seat lists are indexed by the seat agent A played (0: A was ``player_0``).
    """

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
    wins_b_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    draws_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    games_a_by_seat: list[int] = field(default_factory=lambda: [0, 0])
    score_a_by_seat: list[float] = field(default_factory=lambda: [0.0, 0.0])  # A's summed score
    score_b_by_seat: list[float] = field(default_factory=lambda: [0.0, 0.0])  # B's summed score
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
                    f"  {self.agent_a} as player_{seat}: {self.wins_a_by_seat[seat]}/{played} wins, "
                    f"{self.draws_by_seat[seat]} draws, {self.wins_b_by_seat[seat]} losses"
                )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "records"}


def play_game(game, agents: tuple[Agent, Agent], seed: int | None) -> tuple[list[float], list[int], list[int], bool]:
    """One game, ``agents[p]`` playing player ``p``. Returns (returns, scores, actions, truncated)."""
    actions, state, truncated = play_out(game, agents, seed)
    if truncated:
        return [0.0, 0.0], state.scores(), actions, True
    return state.returns(), state.scores(), actions, False


def start_seeds(game: Game, games: int, seed: int) -> list[int]:
    """The start-position seed of each game: games 2k and 2k+1 share one (a deal played twice).

    The hook where a family-specific deal schedule would go; every id uses this one.
    """
    pairs = np.random.SeedSequence([seed, 1]).generate_state((games + 1) // 2, dtype=np.uint32)
    return [int(pairs[g // 2]) for g in range(games)]


def _agent_seeds(games: int, seed: int) -> np.ndarray:
    return np.random.SeedSequence([seed, 2]).generate_state(games * 2, dtype=np.uint32).reshape(games, 2)


# The match a forked worker plays: set in the parent just before forking.
_JOB: dict = {}


def _play_indexed(g: int) -> tuple[int, list[float], list, list[int], bool]:
    job = _JOB
    game, a, b = job["game"], job["a"], job["b"]
    seat_a = g % 2
    a.reset(seed=int(job["agent_seeds"][g, 0]))
    b.reset(seed=int(job["agent_seeds"][g, 1]))
    seated = (a, b) if seat_a == 0 else (b, a)
    rets, scores, actions, truncated = play_game(game, seated, job["start"][g])
    return g, rets, scores, actions, truncated


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def play_match(
    env: str | Game,
    agent_a: Agent,
    agent_b: Agent,
    games: int = 10,
    seed: int = 0,
    workers: int | None = 1,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """``games`` games of ``env`` (an id, or a Game); A is player_0 in even games, player_1 in odd ones.

    ``workers``: processes to play in (``None``: every core). ``progress(n)`` is called
    after each finished game with the number finished so far.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be an integer of at least 1, got {games!r}")
    game = env if isinstance(env, Game) else make_game(env)
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    workers = min(workers, games)
    job = {
        "game": game,
        "a": agent_a,
        "b": agent_b,
        "start": start_seeds(game, games, seed),
        "agent_seeds": _agent_seeds(games, seed),
    }
    for agent in (agent_a, agent_b):
        warm = getattr(agent, "warmup", None)
        if warm is not None:
            warm(game)  # compile in this process, so forked workers inherit the code
    outcomes: list = [None] * games
    _JOB.clear()
    _JOB.update(job)
    try:
        if workers == 1 or "fork" not in mp.get_all_start_methods():
            for g in range(games):
                outcomes[g] = _play_indexed(g)
                if progress:
                    progress(g + 1)
        else:
            ctx = mp.get_context("fork")
            with ctx.Pool(workers) as pool:
                done = 0
                for out in pool.imap_unordered(_play_indexed, range(games), chunksize=1):
                    outcomes[out[0]] = out
                    done += 1
                    if progress:
                        progress(done)
    finally:
        _JOB.clear()
    result = MatchResult(game.env_id, agent_a.name, agent_b.name)
    for g, rets, scores, actions, truncated in outcomes:
        seat_a = g % 2
        result.games += 1
        result.games_a_by_seat[seat_a] += 1
        result.records.append(actions)
        result.score_diff_a += scores[seat_a] - scores[1 - seat_a]
        result.score_a_by_seat[seat_a] += scores[seat_a]
        result.score_b_by_seat[seat_a] += scores[1 - seat_a]
        if truncated:
            result.truncated += 1
        elif rets[seat_a] > 0:
            result.wins_a += 1
            result.wins_a_by_seat[seat_a] += 1
        elif rets[seat_a] < 0:
            result.wins_b += 1
            result.wins_b_by_seat[seat_a] += 1
        else:
            result.draws += 1
            result.draws_by_seat[seat_a] += 1
    return result
