"""Every registered id in PettingZoo's and Gymnasium's registries, as ``mancala/<id>``.

``pettingzoo.make("aec", "mancala/kalah-v0")`` builds ``mancala_envs.make("kalah-v0")``,
``pettingzoo.make("parallel", "mancala/kalah-v0")`` the same env through PettingZoo's
``turn_based_aec_to_parallel``, and ``gymnasium.make("mancala/kalah-v0")`` builds
``MancalaGymEnv("kalah-v0")``; ``gymnasium.make_vec("mancala/kalah-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` builds ``vector_gym.MancalaVectorEnv`` (N games on
the batched engine). Importing ``mancala_envs`` registers them all.

Subprocesses
------------
The registries live in each interpreter, and a fresh one has not imported ``mancala_envs``,
so ``gymnasium.make("mancala/kalah-v0")`` in a child process fails with ``NamespaceNotFound``
(Gymnasium 1.x has no plugin mechanism that would import us by itself). Two things make the
ids work anyway:

* Importing ``mancala_envs`` adds it to the ``forkserver`` start method's preload list
  (``multiprocessing.set_forkserver_preload``), so children of the fork server (SB3's
  ``SubprocVecEnv`` default on Linux and macOS) and of ``fork`` have the ids registered:
  ``make_vec_env("mancala/kalah-v0", n_envs=8, vec_env_cls=SubprocVecEnv)`` just works.
* Anywhere else (``spawn``, Windows), write the id in Gymnasium's ``module:id`` form, which
  imports the module first: ``make_vec_env("mancala_envs:mancala/kalah-v0", ...)``. It works
  with every start method.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import gymnasium
import pettingzoo
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .gym import MancalaGymEnv
from .registry import list_envs, make
from .vector_gym import MancalaVectorEnv


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
        if self.kind == "vector":
            return MancalaVectorEnv(self.env_id, **kwargs)
        return MancalaGymEnv(self.env_id, **kwargs)

    def __repr__(self) -> str:
        template = {
            "aec": "mancala_envs.make({!r})",
            "parallel": "turn_based_aec_to_parallel(mancala_envs.make({!r}))",
            "gym": "mancala_envs.MancalaGymEnv({!r})",
            "vector": "mancala_envs.MancalaVectorEnv({!r})",
        }[self.kind]
        return template.format(self.env_id)


def register_with_frameworks(env_id: str) -> None:
    """Register ``env_id`` as ``mancala/<env_id>`` with PettingZoo (AEC, parallel) and Gymnasium."""
    namespaced = f"mancala/{env_id}"
    if namespaced not in pettingzoo.aec_registry:
        pettingzoo.register("aec", namespaced, entry_point=_Factory(env_id, "aec"))
    if namespaced not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", namespaced, entry_point=_Factory(env_id, "parallel"))
    if namespaced not in gymnasium.registry:
        # The single-agent env enforces the game's own ply cap, so no TimeLimit is added.
        gymnasium.register(
            id=namespaced, entry_point=_Factory(env_id, "gym"), vector_entry_point=_Factory(env_id, "vector")
        )


def register_all() -> None:
    """Register every id of ``mancala_envs.registry`` (ids already there are left as they are).

    Importing ``mancala_envs`` calls it; call it again after ``register_game`` of your own.
    It also preloads the package in the fork server (see Subprocesses above).
    """
    for env_id in list_envs():
        register_with_frameworks(env_id)
    preload_in_forkserver()


def preload_in_forkserver() -> None:
    """Add ``mancala_envs`` to the fork server's preload list, keeping what is there.

    The fork server imports its preload list once when it starts and forks every child from
    itself, so the children see the registered ids. No effect once the server is running,
    and none on platforms without a fork server.
    """
    try:
        from multiprocessing import forkserver
    except ImportError:  # no fork server on this platform
        return
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    # The standard library keeps the list privately; its documented default is ["__main__"].
    current = list(getattr(getattr(forkserver, "_forkserver", None), "_preload_modules", None) or ["__main__"])
    if "mancala_envs" not in current:
        forkserver.set_forkserver_preload(current + ["mancala_envs"])
