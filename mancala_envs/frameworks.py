"""Every registered id in PettingZoo's and Gymnasium's registries, as ``mancala/<id>``.

``pettingzoo.make("aec", "mancala/kalah-v0")`` builds ``mancala_envs.make("kalah-v0")``,
``pettingzoo.make("parallel", "mancala/kalah-v0")`` the same env through PettingZoo's
``turn_based_aec_to_parallel``, and ``gymnasium.make("mancala/kalah-v0")`` builds
``MancalaGymEnv("kalah-v0")``. Importing ``mancala_envs`` registers them all.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import pettingzoo
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

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
        if self.kind == "parallel":
            return turn_based_aec_to_parallel(make(self.env_id, **kwargs))
        return MancalaGymEnv(self.env_id, **kwargs)

    def __repr__(self) -> str:
        maker = {"aec": "make", "parallel": "turn_based_aec_to_parallel(make", "gym": "MancalaGymEnv"}[self.kind]
        return f"mancala_envs.{maker}({self.env_id!r}){')' if self.kind == 'parallel' else ''}"


def register_with_frameworks(env_id: str) -> None:
    """Register ``env_id`` as ``mancala/<env_id>`` with PettingZoo (AEC, parallel) and Gymnasium."""
    namespaced = f"mancala/{env_id}"
    if namespaced not in pettingzoo.aec_registry:
        pettingzoo.register("aec", namespaced, entry_point=_Factory(env_id, "aec"))
    if namespaced not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", namespaced, entry_point=_Factory(env_id, "parallel"))
    if namespaced not in gymnasium.registry:
        # The single-agent env enforces the game's own ply cap, so no TimeLimit is added.
        gymnasium.register(id=namespaced, entry_point=_Factory(env_id, "gym"))


def register_all() -> None:
    """Register every id of ``mancala_envs.registry`` (ids already there are left as they are).

    Importing ``mancala_envs`` calls it; call it again after ``register_game`` of your own.
    """
    for env_id in list_envs():
        register_with_frameworks(env_id)
