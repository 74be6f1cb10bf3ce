"""Anything that picks moves, and the arena that plays agents against each other.

Random and greedy baselines (``simple``), alpha-beta (``search``), the exact solver (``solver``)
with the Kalah endgame databases (``endgame``), MCTS
(``mcts``), a human at the terminal (``human``; ``play`` seats a person against any agent, the
``mancala play`` command); agents from specs (``specs``); opening suites (``openings``), matches over
them and their report (``arena``, ``paired_results``; one deal from both seats: ``matchplay``), round-robin tournaments (``tournament``) and Elo ratings (``ratings``);
accuracy against perfect play (``analysis``).
"""

import importlib

from .base import Agent
from .human import HumanAgent
from .mcts import MCTSAgent, mcts_search
from .search import AlphaBetaAgent, search
from .simple import GreedyAgent, RandomAgent
from .solver import SolveResult, SolverAgent, solve
from .specs import AGENT_FACTORIES, AgentSpecError, make_agent

# The arena and the opening suites are imported when first named (PEP 562): a process that
# only builds an agent and plays its moves (``make_agent(...).act(state)``) does not load them.
_ON_FIRST_USE = {
    "play_game": "arena", "play_match": "arena", "play_deal_match": "matchplay",
    "OpeningError": "openings", "OpeningSuite": "openings", "initial_suite": "openings",
    "opening_suite": "openings", "PairedResult": "paired_results",
}


def __getattr__(name: str):
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_ON_FIRST_USE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))


__all__ = [
    "AGENT_FACTORIES",
    "Agent",
    "AgentSpecError",
    "AlphaBetaAgent",
    "GreedyAgent",
    "HumanAgent",
    "MCTSAgent",
    "OpeningError",
    "OpeningSuite",
    "PairedResult",
    "RandomAgent",
    "SolveResult",
    "SolverAgent",
    "make_agent",
    "mcts_search",
    "initial_suite",
    "opening_suite",
    "play_deal_match",
    "play_game",
    "play_match",
    "search",
    "solve",
]
