"""Solve exactly when the solve finishes in time, else search: the way strong engines play endgames.

``hybrid:solve=0.02,sims=800,eval=RUN_DIR`` (``HybridAgent``) tries, on every move, an exact
solve of the position with the package's solver (``agents.solver.solve``, with the game's
endgame database where the Kalah family has one) within ``solve`` seconds of wall-clock time.

* **The solve finishes**: the agent plays the solver's move, a move of the best final margin
  under perfect play (not only one that keeps the result). This is the same solver that
  values the moves of the oracle row (``evaluation.analysis``): on a position it solves in
  time, the agent plays perfectly by construction. Its oracle figures measure how often the
  solve finishes within the budget, plus the fallback's play on the rest.
* **The solve runs out of time** (or stops without a move): the agent plays the fallback's
  move, ``then=mcts`` (default: ``mcts_search`` with ``sims``, ``c`` and the run's learned
  evaluation ``eval``, as ``mcts:sims=...,eval=...``) or ``then=alphabeta`` (``depth`` plies,
  ``eval`` at the leaves, as ``alphabeta:depth=...,eval=...``). The solve's proven bounds are
  not used by the fallback.

The time a move is therefore at most about ``solve`` plus the fallback's time: positions
with many stones left (the opening and middle game) take both, positions the solver finishes
take the solve alone.

The solver's transposition table (``memory``, default ``64M``: a larger one found hardly more
solves within a budget of a few tens of milliseconds) is made, and every page of it written
once, on the first move of a game of new rules: pages first touched inside a solve would
cost their page faults out of that move's budget. It is kept from move to move and across
``reset``: its entries are exact values of positions of the game, true in every later game,
so a later solve that meets one stops there. The budget is wall-clock time (read every few
thousand nodes), so the solve's CPU time stays within about the budget, and the share of
positions solved depends on the machine's speed and load: a busy machine gives the solve less CPU within its
budget, so fewer positions are solved and more are left to the fallback. For the same reason
the agent is not repeatable move for move, as ``mcts:time=`` and ``alphabeta:time=`` are not.

Options: ``solve`` (seconds, > 0; default 0.02), ``then`` (``mcts`` or ``alphabeta``), ``sims`` (at least 1,
default 800) and ``c`` (>= 0, default 1.4) for ``then=mcts``, ``depth`` (at least 1, default 6)
for ``then=alphabeta``, ``eval`` (a run folder or ``evaluation.npz``; none: plain search),
``memory`` (the solver table's size, e.g. ``64M``, ``1G``). ``sims``/``c`` with
``then=alphabeta``, or ``depth`` with ``then=mcts``, are refused. Every option is checked
when the agent is made, with an error naming what is allowed.
"""

from __future__ import annotations

from pathlib import Path

from mancala_envs.core.game import Game, State

from .base import Agent
from .learned.learned_eval import LearnedEval, load_evaluation
from .mcts import MCTSAgent
from .search import AlphaBetaAgent
from .solver import SolveResult, SolverTable, parse_memory, solve

__all__ = ["HybridAgent"]

FALLBACKS = ("mcts", "alphabeta")


class HybridAgent(Agent):
    """An exact solve within ``solve`` seconds a move, else the ``then`` search (see the module docstring)."""

    name = "hybrid"

    def __init__(self, seed: int | None = None, solve: float = 0.02, then: str = "mcts", sims: int | None = None,
                 c: float | None = None, depth: int | None = None, eval: str | LearnedEval | None = None,
                 memory: str | int = "64M"):
        super().__init__(seed)
        if not solve > 0:
            raise ValueError(f"hybrid: solve must be > 0 seconds, got {solve}")
        if then not in FALLBACKS:
            raise ValueError(f"hybrid: then must be one of {', '.join(FALLBACKS)}, got {then!r}")
        if then == "mcts" and depth is not None:
            raise ValueError("hybrid: depth is an option of then=alphabeta; then=mcts takes sims and c")
        if then == "alphabeta" and (sims is not None or c is not None):
            raise ValueError("hybrid: sims and c are options of then=mcts; then=alphabeta takes depth")
        self.solve_seconds = float(solve)
        self.then = then
        self.memory = parse_memory(memory)
        self.table: SolverTable | None = None  # made on the first move of a game (``act``)
        self._game: Game | None = None
        evaluation = load_evaluation(eval) if isinstance(eval, (str, Path)) else eval
        if then == "mcts":
            self.fallback: Agent = MCTSAgent(seed, sims=800 if sims is None else sims, c=1.4 if c is None else c,
                                             eval=evaluation)
        else:
            self.fallback = AlphaBetaAgent(seed, depth=6 if depth is None else depth, eval=evaluation)
        self.last: SolveResult | None = None  # the last move's solve (``exact``: whether the solver's move was played)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fallback.reset(seed)

    def warmup(self, game: Game) -> None:
        self.fallback.warmup(game)
        solve(game.new_state(0), table=SolverTable(1 << 12), time_limit=0.05)

    def act(self, state: State) -> int:
        if self._game != state.game:
            self._game = state.game
            self.table = SolverTable(self.memory)  # another game's entries would answer wrongly
            self.table.clear()  # every page written now, not inside the budget of the next solves
        self.last = solve(state, table=self.table, time_limit=self.solve_seconds)
        if self.last.exact and self.last.best_action >= 0:
            return self.last.best_action
        return self.fallback.act(state)

    def __getstate__(self):
        data = dict(self.__dict__)
        data["table"] = None
        data["_game"] = None
        data["last"] = None
        return data
