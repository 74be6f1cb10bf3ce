"""Game families. Importing this package registers every id (see ``mancala_envs.registry``)."""

from ..registry import register_game
from .kalah import KalahGame

register_game("kalah-v0", KalahGame, "Egyptian Mancala (standard Kalah): captures, extra turns, Pratt's rules")
register_game(
    "kalah-basic-v0",
    KalahGame,
    "Pratt's Basic Mancala: no captures, no extra turns, leftover seeds count for nobody",
    extra_turn=False,
    capture=False,
    leftover="discard",
)
register_game(
    "kalah-bidirectional-v0",
    KalahGame,
    "Pratt's bidirectional Mancala: each move sows either way; single seeds cannot be played",
    directions=2,
    min_sow=2,
)
register_game(
    "kalah-chosen-start-v0",
    KalahGame,
    "Egyptian Mancala after a setup: player_0 fills the holes, player_1 picks side and turn",
    chosen_start=True,
)
register_game(
    "kalah-irving2000-v0",
    KalahGame,
    "Kalah as solved by Irving et al. (2000) and played by OpenSpiel: empty captures, ends on an empty row",
    capture_needs_opposite=False,
    skip_origin=False,
    end="side_empty",
    leftover="owner",
)

__all__ = ["KalahGame"]
