"""The agent protocol: anything that picks moves.

An agent has a ``name``, ``act(state) -> action`` (a legal action of the player to move in
``state``; it must not modify ``state``) and ``reset(seed=None)``, which starts a new game
and, with a seed, makes its randomness repeatable. Agents never touch the global numpy RNG.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.core.game import State


class Agent:
    """Base class: seeded randomness and the protocol's defaults."""

    name = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, state: State) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def warmup(self, game) -> None:
        """Pay one-off costs (numba compilation for ``game``'s kernel) now, e.g. before forking."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
