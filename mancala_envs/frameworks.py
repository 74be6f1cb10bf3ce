"""Every registered id in PettingZoo's and Gymnasium's registries, as ``mancala/<id>``.

``pettingzoo.make("aec", "mancala/kalah-v0")`` builds ``mancala_envs.make("kalah-v0")`` and
``gymnasium.make("mancala/kalah-v0")`` builds ``MancalaGymEnv("kalah-v0")``. Importing
``mancala_envs`` registers them all.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import pettingzoo

from .gym import MancalaGymEnv
from .registry import list_envs, make


class _Factory:
    """A picklable entry point for the framework registries."""

    def __init__(self, env_id: str, kind: str):
        self.env_id = env_id
        self.kind = kind

    def __call__(self, **kwargs: Any):
        if self.kind == "aec":
            return make(self.env_id, **kwargs)
        return MancalaGymEnv(self.env_id, **kwargs)

    def __repr__(self) -> str:
        return f"mancala_envs.{'make' if self.kind == 'aec' else 'MancalaGymEnv'}({self.env_id!r})"


def register_with_frameworks(env_id: str) -> None:
    """Register ``env_id`` as ``mancala/<env_id>`` with PettingZoo (AEC) and Gymnasium."""
    namespaced = f"mancala/{env_id}"
    if namespaced not in pettingzoo.aec_registry:
        pettingzoo.register("aec", namespaced, entry_point=_Factory(env_id, "aec"))
    if namespaced not in gymnasium.registry:
        # The single-agent env enforces the game's own ply cap, so no TimeLimit is added.
        gymnasium.register(id=namespaced, entry_point=_Factory(env_id, "gym"))


def register_all() -> None:
    """Register every id of ``mancala_envs.registry`` (ids already there are left as they are).

    Importing ``mancala_envs`` calls it; call it again after ``register_game`` of your own.
    """
    for env_id in list_envs():
        register_with_frameworks(env_id)
