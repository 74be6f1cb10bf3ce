"""Perfect-play analysis: the exact value of a position, and an agent's accuracy against it.

``value(state)`` is the oracle: the final score difference under perfect play and every move
that keeps it, read from the Kalah endgame database when the position is in it
(``mancala_envs.agents.endgame``) and solved otherwise (``mancala_envs.agents.solver``).

``optimal_move_rate(agent, env_id, positions=100, seed=0, **options)`` samples positions
of the game (uniformly random moves from the start, a random number of them), solves every
move of each position exactly (``mancala_envs.agents.solver.solve``, one shared transposition table), and
reports how often the agent's move is one of the optimal ones (those keeping the mover's
best final score difference), with a 95% interval bootstrapped over the positions. The
positions are distinct (``openings.position_key``: a repeated position would count one
decision twice), and the agent is reset with the same seed before each one.

``solved_positions(env, positions, seed, max_board=..., players=...)`` samples and solves the
positions once (the same arguments, the same positions) and ``oracle_accuracy(agent, solved)``
measures an agent on them: the optimal-move rate, the rate of moves that *keep the result*
(the mover's win, draw or loss under perfect play: the sign of the best value), and the mean
stones lost a move, each with a 95% interval bootstrapped over the positions; several agents
share one solved set (``benchmarks/strength.py``'s oracle row).

``players=(a, b)``: the positions come from games ``a`` and ``b`` play (after two random
plies, so the games differ), a random ply of each, instead of from random play: the
positions a real game reaches, e.g. ``players=(make_agent("alphabeta:depth=4"),) * 2`` on the
full Kalah(6,4). Cost: one exact solve per legal move of each position: cheap for endgames
(``max_board``), while a position near the start costs about as much as solving the start,
per move.

``max_board=K`` keeps only positions with at most ``K`` stones still on the board (outside
the scores; games with ``scores_only_grow``): endgames of a board too big to solve from the
start, e.g. ``optimal_move_rate(agent, "kalah-v0", max_board=20)`` for a policy trained on the
standard Kalah(6,4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mancala_envs.core.game import Game, State
from mancala_envs.registry import game_of

from mancala_envs.agents.base import Agent
from .openings import position_key
from mancala_envs.agents.endgame import endgame_for
from mancala_envs.agents.solver import SolverTable, solve

__all__ = ["OptimalMoveRate", "OracleAccuracy", "PositionValue", "SolvedPosition", "move_values", "optimal_move_rate",
           "oracle_accuracy", "sample_positions", "solved_positions", "value"]


@dataclass
class OptimalMoveRate:
    env_id: str
    agent: str
    positions: int
    optimal: int
    rate: float
    rate_ci: list[float]  # 95% percentile interval, bootstrapped over positions
    mean_loss: float  # mean score-difference lost by the agent's move against the best move


@dataclass
class PositionValue:
    """The oracle's answer for one position (``value``)."""

    value: int  # final score difference player_0 - player_1 under perfect play
    mover_value: int  # the same from the player to move's side
    best_moves: list[int]  # every move that keeps it
    move_values: dict[int, int]  # each legal move's value, mover's side
    from_database: bool  # read from the endgame database (else solved)


def value(state: State, table: SolverTable | None = None, endgame="auto") -> PositionValue:
    """The perfect-play oracle: the exact value of ``state`` and its best moves.

    Positions in the Kalah endgame database are read from it; others are solved (one solve
    per legal move, sharing ``table``). ``endgame`` as in ``solver.solve``.
    """
    if not isinstance(state, State):
        raise TypeError(f"value: expected a State, got {type(state).__name__}")
    if state.is_terminal():
        raise ValueError("value: the game is over; it has no moves to value")
    if isinstance(endgame, str) and endgame == "auto":
        endgame = endgame_for(state.game)
    values = move_values(state, table, endgame=endgame)
    best = max(values.values())
    database = endgame is not None and all(
        endgame.mover_value(child) is not None for child in _children(state) if not child.is_terminal())
    first = best if state.current_player == 0 else -best
    return PositionValue(int(first), int(best), [a for a, v in values.items() if v == best], values, database)


def _children(state: State) -> list[State]:
    out = []
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        out.append(child)
    return out


def move_values(state: State, table: SolverTable | None = None, endgame="auto") -> dict[int, int]:
    """Exact value of every legal move for the player to move (final score difference, mover's side)."""
    me = state.current_player
    out = {}
    table = table if table is not None else SolverTable("64M")
    if isinstance(endgame, str) and endgame == "auto":
        endgame = endgame_for(state.game)
    for a, child in zip(state.legal_actions(), _children(state)):
        if child.is_terminal():
            s = child.scores()
            out[a] = int(s[me] - s[1 - me])
            continue
        known = endgame.mover_value(child) if endgame is not None and endgame.usable_from(child) else None
        mover = known if known is not None else solve(child, table=table, endgame=endgame).mover_value
        out[a] = mover if child.current_player == me else -mover
    return out


def _stones_on_board(state: State) -> int | None:
    total = state.game.search_score_total(state)
    return None if total is None else int(total - sum(state.scores()))


def _sample_positions(game: Game, count: int, rng: np.random.Generator, max_tries: int = 100_000,
                      max_board: int | None = None, players: tuple[Agent, Agent] | None = None,
                      random_plies: int = 2) -> list[State]:
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
        for agent in players or ():
            agent.reset(seed=int(rng.integers(2**31)))
        while not state.is_terminal() and played < k:
            if players is None or played < random_plies:
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])
            else:
                state.apply(players[state.current_player].act(state.clone()))
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


@dataclass
class SolvedPosition:
    """A sampled position and the oracle's value of each of its legal moves (``solved_positions``)."""

    state: State
    move_values: dict[int, int]  # each legal move's exact value, mover's side (final score difference)

    @property
    def best(self) -> int:
        return max(self.move_values.values())


@dataclass
class OracleAccuracy:
    """An agent's moves against the oracle on a set of solved positions (``oracle_accuracy``).

    Each rate and the mean loss comes with a 95% percentile interval bootstrapped over the
    positions. A move *keeps the result* when the mover's result under perfect play (win, draw or
    loss: the sign of the value) after it is the same as after a best move."""

    agent: str
    positions: int
    optimal: float  # share of positions where the agent's move is a best one
    optimal_ci: list[float]
    kept: float  # share of positions where the agent's move keeps the result
    kept_ci: list[float]
    mean_loss: float  # mean stones (final score difference) lost by the agent's move against a best move
    mean_loss_ci: list[float]


def sample_positions(env: str | Game, positions: int, seed: int = 0, max_board: int | None = None,
                     players: tuple[Agent, Agent] | None = None, **options) -> list[State]:
    """The distinct positions ``solved_positions`` would solve (the same arguments, the same positions),
    unsolved: e.g. to time agents on the positions of real games."""
    return _sample_positions(game_of(env, **options), positions, np.random.default_rng(seed), max_board=max_board,
                             players=players)


def solved_positions(env: str | Game, positions: int, seed: int = 0, memory: str | int = "512M",
                     max_board: int | None = None, players: tuple[Agent, Agent] | None = None,
                     progress=None, **options) -> list[SolvedPosition]:
    """``positions`` distinct sampled positions (as ``optimal_move_rate`` samples them), every legal move of
    each valued exactly; ``progress(done, total)`` is called after each one. The same arguments give the
    same positions, so several agents can be measured on one solved set (``oracle_accuracy``)."""
    if positions < 1:
        raise ValueError(f"positions must be at least 1, got {positions}")
    game = game_of(env, **options)
    if max_board is not None and _stones_on_board(game.new_state(0)) is None:
        raise ValueError(f"max_board needs a game whose scores only grow (Kalah, Afrika, Progressive); "
                         f"{game.env_id} does not count stones on the board")
    table = SolverTable(memory)
    states = _sample_positions(game, positions, np.random.default_rng(seed), max_board=max_board, players=players)
    out = []
    for state in states:
        out.append(SolvedPosition(state, move_values(state, table)))
        if progress is not None:
            progress(len(out), len(states))
    return out


def oracle_accuracy(agent: Agent, solved: list[SolvedPosition], seed: int = 0) -> OracleAccuracy:
    """How often ``agent`` (reset with ``seed`` before each position) plays a best move, how often it keeps
    the result, and the stones it loses a move, on ``solved`` (see ``OracleAccuracy``)."""
    if not solved:
        raise ValueError("oracle_accuracy: no solved positions")
    hits, kept, loss = (np.zeros(len(solved)) for _ in range(3))
    for i, position in enumerate(solved):
        agent.reset(seed=seed)
        move = agent.act(position.state.clone())
        if move not in position.move_values:
            raise ValueError(f"oracle_accuracy: {agent.name} played {move}, not a legal move "
                             f"(legal: {sorted(position.move_values)})")
        got, best = position.move_values[move], position.best
        hits[i], kept[i], loss[i] = got == best, np.sign(got) == np.sign(best), best - got
    return OracleAccuracy(agent.name, len(solved), float(hits.mean()), _bootstrap_mean_interval(hits, seed),
                          float(kept.mean()), _bootstrap_mean_interval(kept, seed),
                          float(loss.mean()), _bootstrap_mean_interval(loss, seed))


def optimal_move_rate(agent: Agent, env: str | Game, positions: int = 100, seed: int = 0,
                      memory: str | int = "512M", max_board: int | None = None,
                      players: tuple[Agent, Agent] | None = None, **options) -> OptimalMoveRate:
    """Share of sampled positions where ``agent`` plays an optimal move (see the module docstring)."""
    game = game_of(env, **options)
    solved = solved_positions(game, positions, seed, memory, max_board, players)
    if not solved:
        return OptimalMoveRate(game.env_id, agent.name, 0, 0, 0.0, [0.0, 1.0], 0.0)
    accuracy = oracle_accuracy(agent, solved, seed)
    n = len(solved)
    return OptimalMoveRate(game.env_id, agent.name, n, int(round(accuracy.optimal * n)), accuracy.optimal,
                           accuracy.optimal_ci, accuracy.mean_loss)


def _bootstrap_mean_interval(values: np.ndarray, seed: int, samples: int = 2000) -> list[float]:
    if len(values) == 0:
        return [0.0, 1.0]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB007]))
    means = values[rng.integers(len(values), size=(samples, len(values)))].mean(axis=1)
    return [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]
