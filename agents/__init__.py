"""Anything that picks moves: ``act(state) -> action`` for the player to move.

Random and greedy baselines (``simple``), alpha-beta (``search``), MCTS (``mcts``), the exact
solver (``solver``) with the Kalah endgame databases (``endgame``), an exact solve within a time
budget with a search to fall back on (``hybrid``), a human at the terminal
(``human``), agents built from specs such as ``alphabeta:depth=4`` (``specs``), and the learned
evaluations and policies of trained runs (``learned``). Agents only read the env layer;
matches, opening suites and ratings are the evaluation layer above (``mancala_envs.evaluation``).
"""

from .base import Agent
from .human import HumanAgent
from .hybrid import HybridAgent
from .mcts import MCTSAgent, mcts_search
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
    "HybridAgent",
    "MCTSAgent",
    "RandomAgent",
    "SolveResult",
    "SolverAgent",
    "make_agent",
    "mcts_search",
    "search",
    "solve",
]
