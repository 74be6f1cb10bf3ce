"""Fill numba's disk cache with the kernels and search loops before the test workers start.

``conftest.pytest_sessionstart`` runs this as a few processes at once when pytest-xdist runs
the suite on several workers. Without it, every worker compiled the same search loops
(alpha-beta and MCTS for every rule kernel, about four minutes of one core on a fresh clone)
at the same time, each for itself; split over the processes here, each loop is compiled
once, and the workers load them from disk (``core.compiled.cached_njit``) in seconds.

Usage: ``python tests/warm_cache.py SHARE SHARES``: this process compiles every SHARES-th
distinct kernel, starting at SHARE, and plays one random game of each id that uses it.
"""

from __future__ import annotations

import sys

import mancala_envs
from mancala_envs.agents import RandomAgent
from mancala_envs.evaluation import play_game
from mancala_envs.agents.mcts import mcts_search
from mancala_envs.agents.search import TranspositionTable, search


def ids_by_kernel() -> list[list[str]]:
    """The registered ids, grouped by the rule kernel their game compiles (in registry order)."""
    groups: dict[int, list[str]] = {}
    for env_id in mancala_envs.list_envs():
        groups.setdefault(id(mancala_envs.make_game(env_id).kernel), []).append(env_id)
    return list(groups.values())


def warm(share: int, shares: int) -> None:
    for ids in ids_by_kernel()[share::shares]:
        for env_id in ids:
            game = mancala_envs.make_game(env_id)
            play_game(game, (RandomAgent(0), RandomAgent(1)), seed=0)
        state = mancala_envs.make_game(ids[0]).new_state(0)
        search(state, depth=1, tt=TranspositionTable(4))
        mcts_search(state, sims=2)


if __name__ == "__main__":
    warm(int(sys.argv[1]), int(sys.argv[2]))
