"""Anything that picks moves, and the arena that plays agents against each other.

Random and greedy baselines (``simple``), alpha-beta (``search``), the exact solver (``solver``)
with the Kalah endgame databases (``endgame``), MCTS
(``mcts``), a human at the terminal (``human``; ``play`` seats a person against any agent, the
``mancala play`` command); agents from specs (``specs``); opening suites (``openings``), matches over
them and their report (``arena``, ``paired_results``; one deal from both seats: ``matchplay``), round-robin tournaments (``tournament``) and Elo ratings (``ratings``);
accuracy against perfect play (``analysis``).
"""

from .arena import play_game, play_match
from .base import Agent
from .human import HumanAgent
from .matchplay import play_deal_match
from .mcts import MCTSAgent, mcts_search
from .openings import OpeningError, OpeningSuite, initial_suite, opening_suite
from .paired_results import PairedResult
from .search import AlphaBetaAgent, search
from .simple import GreedyAgent, RandomAgent
from .solver import SolveResult, SolverAgent, solve
from .specs import AGENT_FACTORIES, AgentSpecError, make_agent

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
