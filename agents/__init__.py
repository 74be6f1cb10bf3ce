"""Anything that picks moves, and the arena that plays agents against each other."""

from .arena import MatchResult, play_game, play_match
from .base import Agent
from .simple import GreedyAgent, RandomAgent
from .specs import AGENT_FACTORIES, AgentSpecError, make_agent

__all__ = [
    "AGENT_FACTORIES",
    "Agent",
    "AgentSpecError",
    "GreedyAgent",
    "MatchResult",
    "RandomAgent",
    "make_agent",
    "play_game",
    "play_match",
]
