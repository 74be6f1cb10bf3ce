"""Evaluations a reviewer can trust: matches over opening suites, tournaments, ratings, oracle analysis.

Every strength figure is played over an opening suite (``openings``): distinct start positions,
each played from both seats, intervals bootstrapped over openings (``paired_results``).
``play_match`` (``arena``) plays two agents over a suite, locally or on Ray (``ray_backend``);
one dealt game from both seats is ``play_deal_match`` (``matchplay``); ``round_robin``
(``tournament``) plays every pair and fits Elo ratings (``ratings``); ``analysis`` measures an
agent's moves against the exact solver. This layer reads the agents and the env layer only.
"""

from .arena import play_match
from .game_play import PlayedGame, play_game
from .matchplay import play_deal_match
from .openings import OpeningError, OpeningSuite, initial_suite, opening_suite
from .paired_results import PairedResult

__all__ = [
    "OpeningError",
    "OpeningSuite",
    "PairedResult",
    "PlayedGame",
    "initial_suite",
    "opening_suite",
    "play_deal_match",
    "play_game",
    "play_match",
]
