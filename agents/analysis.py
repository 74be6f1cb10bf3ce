"""Accuracy against perfect play on boards small enough to solve.

``optimal_move_rate(agent, env_id, positions=100, seed=0, **options)`` samples positions
of the game (uniformly random moves from the start, a random number of them), solves every
move of each position exactly (``mancala_envs.agents.search.solve``, one shared transposition table), and
reports how often the agent's move is one of the optimal ones (those keeping the mover's
best final score difference), with a 95% interval bootstrapped over the positions. The
positions are distinct (``openings.position_key``: a repeated position would count one
decision twice), and the agent is reset with the same seed before each one.

``max_board=K`` keeps only positions with at most ``K`` stones still on the board (outside
the scores; games with ``scores_only_grow``): endgames of a board too big to solve from the
start, e.g. ``optimal_move_rate(agent, "kalah-v0", max_board=20, key="obs")`` for a policy
trained on the standard Kalah(6,4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.core.game import Game, State
from mancala_envs.registry import game_of

from .base import Agent
from .openings import position_key
from .search import TranspositionTable, solve

__all__ = ["OptimalMoveRate", "move_values", "optimal_move_rate"]


@dataclass
class OptimalMoveRate:
    env_id: str
    agent: str
    positions: int
    optimal: int
    rate: float
    rate_ci: list[float]  # 95% percentile interval, bootstrapped over positions
    mean_loss: float  # mean score-difference lost by the agent's move against the best move


def move_values(state: State, tt: TranspositionTable | None = None, key: str = "state") -> dict[int, float]:
    """Exact value of every legal move for the player to move (final score difference, mover's side)."""
    me = state.current_player
    out = {}
    tt = tt or TranspositionTable(20)
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        if child.is_terminal():
            s = child.scores()
            out[a] = float(s[me] - s[1 - me])
        else:
            r = solve(child, tt=tt, key=key)
            out[a] = r.mover_value if child.current_player == me else -r.mover_value
    return out


def _stones_on_board(state: State) -> int | None:
    total = state.game.search_score_total(state)
    return None if total is None else int(total - sum(state.scores()))


def _sample_positions(game: Game, count: int, rng: np.random.Generator, max_tries: int = 100_000,
                      max_board: int | None = None) -> list[State]:
    lengths = []
    out: list[State] = []
    seen: set[tuple] = set()
    tries = 0
    while len(out) < count and tries < max_tries:
        tries += 1
        state = game.new_state(int(rng.integers(2**31)))
        guess = int(np.median(lengths)) if lengths else 30
        k = int(rng.integers(0, max(guess, 1)))
        played = 0
        while not state.is_terminal() and played < k:
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            played += 1
        if state.is_terminal():
            lengths.append(played)
            continue
        if state.is_truncated():
            continue
        if max_board is not None and _stones_on_board(state) > max_board:
            continue
        if position_key(state) not in seen:
            seen.add(position_key(state))
            out.append(state)
    return out


def optimal_move_rate(agent: Agent, env: str | Game, positions: int = 100, seed: int = 0, key: str = "state",
                      tt_bits: int = 22, max_board: int | None = None, **options) -> OptimalMoveRate:
    """Share of sampled positions where ``agent`` plays an optimal move (see the module docstring)."""
    if positions < 1:
        raise ValueError(f"positions must be at least 1, got {positions}")
    game = game_of(env, **options)
    if max_board is not None and _stones_on_board(game.new_state(0)) is None:
        raise ValueError(f"max_board needs a game whose scores only grow (Kalah, Afrika, Progressive); "
                         f"{game.env_id} does not count stones on the board")
    rng = np.random.default_rng(seed)
    tt = TranspositionTable(tt_bits)
    states = _sample_positions(game, positions, rng, max_board=max_board)
    hits = np.zeros(len(states))
    loss = 0.0
    for i, state in enumerate(states):
        values = move_values(state, tt, key)
        best = max(values.values())
        agent.reset(seed=seed)
        move = agent.act(state.clone())
        hits[i] = values[move] == best
        loss += best - values[move]
    n = len(states)
    return OptimalMoveRate(game.env_id, agent.name, n, int(hits.sum()), float(hits.mean()) if n else 0.0,
                           _bootstrap_mean_interval(hits, seed), loss / max(n, 1))


def _bootstrap_mean_interval(values: np.ndarray, seed: int, samples: int = 2000) -> list[float]:
    if len(values) == 0:
        return [0.0, 1.0]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB007]))
    means = values[rng.integers(len(values), size=(samples, len(values)))].mean(axis=1)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]
