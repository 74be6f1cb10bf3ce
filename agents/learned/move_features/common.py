"""What every game's move features share: the declaration, the resolved set, the reply loops.

A game's feature module (``rondell``, ``widdershins``, ``progressive`` in this package) declares
one ``MoveFeatureSet``: the ``Game`` class it reads (the way ``Game.kernel`` declares a kernel),
its name and version (stored in evaluation files), the columns of a move's block and of the
summary, how many blocks and which layout numbers a game's options give, and its jitted
``features_into(layout, state, params, obs, out)`` for one position. ``MoveFeatures`` is a set
resolved for one game (``move_feature_set``): the layout, the width and the function.

The jitted function zeroes ``out`` and fills it only when ``out`` has the width its layout gives:
a search loop built for one game compiles in only that game's function, and a network of another
game's features (another layout, another width) handed to it is then left at zeros instead of
written past its scratch. Each game module ``register``s its set by name.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

import numpy as np
from numba import njit

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.errors import MancalaError
from mancala_envs.core.jit_helpers import copy_into

__all__ = ["MoveFeatureError", "MoveFeatureSet", "MoveFeatures", "NO_GAIN", "NO_MOVE_FEATURES", "batch_of",
           "clear", "difference_with", "no_features_into", "register", "replies_with"]

NO_GAIN = 1 << 30  # more than any gain: -NO_GAIN starts a maximum over no move yet


class MoveFeatureError(MancalaError):
    """A feature set that the game does not have."""


class MoveFeatureSet(NamedTuple):
    """One game's move features, declared next to its code (module docstring)."""

    name: str  # stored in evaluation files (``features_set``), with the version
    game: type  # the Game class whose positions it reads; registered for it (``MOVE_FEATURES``)
    version: int  # the columns' version: a file of another version is refused (its weights read other inputs)
    per_block: int  # the columns of one move's block
    summary: int  # the summary columns after the blocks
    blocks: Callable[[Mapping[str, Any]], int]  # the game's options -> actions with a block (actions 0 .. blocks-1)
    layout: Callable[[Mapping[str, Any]], np.ndarray]  # the game's options -> int64[3] layout numbers
    features_into: Callable  # jitted (layout, state, params, obs, out): one position (``out`` zeroed first)
    features_batch: Callable  # jitted (layout, states, params, observations, out): ``features_into`` row by row

    def __reduce__(self):
        """Pickled by name (a worker process gets its own module's set, compiled or loaded from the cache
        once, not a copy of the jitted functions)."""
        return _registered_set, (self.name,)


_REGISTERED: dict[str, MoveFeatureSet] = {}


def register(feature_set: MoveFeatureSet) -> MoveFeatureSet:
    """Record a game module's declared set under its name (how a pickled set is read back); returns it.
    Importing this module imports the package, which imports every game's module."""
    if _REGISTERED.setdefault(feature_set.name, feature_set) is not feature_set:
        raise MoveFeatureError(f"two move feature sets are named {feature_set.name!r}")
    return feature_set


def _registered_set(name: str) -> MoveFeatureSet:
    """The set registered under ``name``: how a pickled set is read back."""
    if name not in _REGISTERED:
        raise MoveFeatureError(f"no move features named {name!r}; the sets are {', '.join(_REGISTERED)}")
    return _REGISTERED[name]


class MoveFeatures(NamedTuple):
    """A feature set resolved for one game: what the networks and the evaluation files read."""

    name: str  # "none" or "moves" (``FEATURE_SETS``, what ``value.features`` names)
    layout: np.ndarray  # int64[3]: the set's layout numbers for the game's options (zeros: none)
    width: int  # columns: blocks * per_block + summary (0: none)
    blocks: int = 0  # actions 0 .. blocks-1 have a block of per_block columns each, first in the features
    per_block: int = 0
    version: int = 0  # the set's version (0: no features)
    feature_set: MoveFeatureSet | None = None  # the game's declared set (None: no features)


#: No move features (``features: none``), for any game.
NO_MOVE_FEATURES = MoveFeatures("none", np.zeros(3, np.int64), 0)


def resolve(feature_set: MoveFeatureSet, options: Mapping[str, Any]) -> MoveFeatures:
    """``feature_set`` for a game with ``options``: its layout, blocks and width."""
    blocks = int(feature_set.blocks(options))
    layout = np.asarray(feature_set.layout(options), np.int64)
    return MoveFeatures("moves", layout, blocks * feature_set.per_block + feature_set.summary, blocks,
                        feature_set.per_block, feature_set.version, feature_set)


@njit(cache=True, inline="always")
def clear(out):
    for i in range(out.shape[0]):
        out[i] = 0.0


@cached_njit
def no_features_into(layout, state, params, obs, out):
    """``features_into`` of a game without move features: what its search loops compile in."""
    clear(out)


def batch_of(features_into):
    """The batch function of one set from its ``features_into``: one row of ``out`` per position."""

    def features_batch(layout, states, params, observations, out):
        for i in range(observations.shape[0]):
            features_into(layout, states[i], params, observations[i], out[i])

    return cached_njit(features_batch)


# -- the opponent's replies and the score difference, from a game's kernel -----------------------


def replies_with(legal_mask, apply, current_player, returns, difference):
    """The replies function of one game, from its kernel's ``legal_mask``, ``apply``,
    ``current_player`` and ``returns`` and its score ``difference(state, params, me, buffer)``."""

    def replies(after, params, me, reply, mask, buffer):
        """The opponent's moves on ``after`` (their turn), each played by the kernel on ``reply``:
        (legal moves, their best gain (the change of their score difference), moves with a gain,
        1 if one ends the game with ``me`` losing). ``mask``: int8 scratch of at least the
        game's actions, zeros past them; ``buffer``: float64[2] scratch."""
        count = legal_mask(after, params, mask)
        base = difference(after, params, me, buffer)
        best, gaining, losing = -NO_GAIN, 0, 0
        for b in range(mask.shape[0]):
            if mask[b] == 0:
                continue
            copy_into(reply, after)
            apply(reply, params, b)
            gain = base - difference(reply, params, me, buffer)
            best = max(best, gain)
            gaining += 1 if gain > 0 else 0
            if current_player(reply, params) < 0:
                returns(reply, params, buffer)
                losing = 1 if buffer[me] < 0 else losing
        return count, best, gaining, losing

    return replies


def difference_with(scores):
    """The score difference function of one game, from its kernel's ``scores``."""

    def difference(state, params, me, buffer):
        """``me``'s score minus the opponent's (``buffer``: float64[2] scratch)."""
        scores(state, params, buffer)
        return np.int64(buffer[me] - buffer[1 - me])

    return difference
