"""Move features: what each move does, as extra network inputs for the card games, Progressive and Kalah.

A network that reads every card of every pile (Rondell: 499 observation entries, Widdershins:
1901) must learn from a few thousand positions where a move ends, which depends on the
height of the lifted pile and on which piles are still in the ring. It does not: fitted on
the raw observation, the bare policy networks of both card games played like random
(``configs/README.md``). The *move features* give, for every move, what it does, so a
network weighs each move by its effect. They are inputs, not rules.

Every set is read from the game's own kernel: every legal move is played by the kernel's
``apply`` on a copy of the position's state, and so is every reply of the opponent on the
afterstate; the columns are counts read from those afterstates (the kernels' ``scores``,
``current_player``, ``returns``, ``legal_mask``, and Widdershins' ``player_cards``). No sowing,
landing or capture is computed here: the rules stay in the kernels, sow-on laps, repetitions and
the endings included.

One module per game declares its set next to its code, column by column in its docstring:
``rondell`` (``RONDELL_FEATURES``), ``widdershins`` (``WIDDERSHINS_FEATURES``),
``progressive`` (``PROGRESSIVE_FEATURES``) and ``kalah`` (``KALAH_FEATURES``). Each is a ``MoveFeatureSet`` (``common``) naming the
``Game`` class it reads, the way a ``Game`` names its ``kernel``, and registered by its name
(``common.register``: a pickled set is read back by name, so a worker process uses its own
compiled functions); ``MOVE_FEATURES`` maps each Game class to its set. Nothing dispatches on a family's name: a game's set is found from the
game itself (``move_feature_set``) or from its kernel (``features_into_for``).

``features: moves`` in a value config (``value.features``) appends them to the encoded
observation (``mancala_envs.core.encodings``) as extra input columns; the evaluation file
records the set's name and version (``mancala_envs.agents.learned.learned_eval`` refuses a file
of another set or version), and the jitted forward pass inside alpha-beta and MCTS computes them
at the leaf from its state (the set's ``features_into``, through
``learned_eval.features_loader``).

A search loop is built per kernel and compiles in only its own game's ``features_into``
(``features_into_for``; ``no_features_into`` for a game without move features): each set plays
its own game's moves, and compiling another game's set into a loop only lengthens its first
compile.

``move_feature_set(name, game)`` gives the set resolved for a game (``MoveFeatures``: layout,
width, blocks, version; ``MoveFeatureError`` for a game without move features); ``move_features``
the features of a batch of positions (states and observations; numpy callers).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mancala_envs.core.game import Game, Kernel

from .common import (NO_MOVE_FEATURES, MoveFeatureError, MoveFeatures, MoveFeatureSet, no_features_into,
                     resolve)
from .kalah import KALAH_FEATURES
from .progressive import PROGRESSIVE_FEATURES
from .rondell import RONDELL_FEATURES
from .widdershins import WIDDERSHINS_FEATURES

__all__ = ["FEATURE_SETS", "MOVE_FEATURES", "MoveFeatureError", "MoveFeatureSet", "MoveFeatures", "NO_MOVE_FEATURES",
           "features_into_for", "move_feature_set", "move_features", "no_features_into"]

#: Feature sets by name (what ``value.features`` names): ``none``, or ``moves`` (the game's own).
FEATURE_SETS = ("none", "moves")

#: Each game's move features, by its Game class (the class its module declares).
MOVE_FEATURES: dict[type[Game], MoveFeatureSet] = {
    s.game: s for s in (RONDELL_FEATURES, WIDDERSHINS_FEATURES, PROGRESSIVE_FEATURES, KALAH_FEATURES)}

_BY_KERNEL: dict[Kernel, MoveFeatureSet] = {s.game.kernel: s for s in MOVE_FEATURES.values()}


def _declared_for(game: Game) -> MoveFeatureSet | None:
    """The set declared for ``game``'s class or the nearest class it derives from (None: none)."""
    for cls in type(game).__mro__:
        if cls in MOVE_FEATURES:
            return MOVE_FEATURES[cls]
    return None


def _games_with_features() -> str:
    names = sorted(cls.family for cls in MOVE_FEATURES)
    return ", ".join(names[:-1]) + " and " + names[-1]


def move_feature_set(name: str, game: Game) -> MoveFeatures:
    """The feature set ``name`` (``FEATURE_SETS``) of ``game``: ``NO_MOVE_FEATURES`` for ``none``,
    the game's declared set with its layout for ``moves``."""
    if name not in FEATURE_SETS:
        raise MoveFeatureError(f"unknown feature set {name!r}; feature sets are {', '.join(FEATURE_SETS)}")
    if name == "none":
        return NO_MOVE_FEATURES
    declared = _declared_for(game)
    if declared is None:
        raise MoveFeatureError(f"the {game.family} family has no move features (feature set 'moves' exists for "
                               f"{_games_with_features()}); use features 'none'")
    return resolve(declared, game.options)


def features_into_for(kernel: Kernel) -> Any:
    """The jitted ``features_into(layout, state, params, obs, out)`` a loop built for ``kernel``
    (alpha-beta, MCTS) compiles in: the set declared for the game whose kernel it is, else
    ``no_features_into``. A loop never sees another game's evaluation (``learned_eval`` refuses
    another game's file)."""
    declared = _BY_KERNEL.get(kernel)
    return no_features_into if declared is None else declared.features_into


def move_features(features: MoveFeatures, params: np.ndarray, states: np.ndarray,
                  observations: np.ndarray) -> np.ndarray:
    """The move features of a batch of positions: their states (n, S) (``State.array``), the game's
    ``params`` and the player to move's observations (n, O); float32 (n, width)."""
    obs = np.ascontiguousarray(np.atleast_2d(observations), dtype=np.float32)
    arrays = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int32)
    if arrays.shape[0] != obs.shape[0]:
        raise MoveFeatureError(f"move features need one state per observation, got {arrays.shape[0]} states "
                               f"and {obs.shape[0]} observations")
    out = np.zeros((obs.shape[0], features.width), np.float32)
    if features.feature_set is not None:
        features.feature_set.features_batch(features.layout, arrays, np.asarray(params, np.int64), obs, out)
    return out
