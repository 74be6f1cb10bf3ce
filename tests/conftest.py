"""Shared test setup: compile (or load from numba's cache) every kernel once per session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Hypothesis: deterministic in CI, with a generous deadline because the first call of a
# kernel in a process may compile.
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _variant_ids_in(value) -> set[str]:
    """The registered ids that are not a family's main id, named by a test parameter (an id, a
    ``module:mancala/ID`` string, or a tuple holding one)."""
    from mancala_envs.registry import list_envs, main_ids

    variants = set(list_envs()) - set(main_ids())
    words = value if isinstance(value, (tuple, list)) else (value,)
    return {word.rpartition("/")[2] for word in words if isinstance(word, str) and word.rpartition("/")[2] in variants}


def pytest_collection_modifyitems(config, items):
    """The fast lane (``-m "not slow"``) runs every test for each family's main id (``kalah-v0``,
    ``afrika-v0``, ``progressive-v0``, ``rondell-v0``, ``widdershins-v0``); the cases of a test that
    is parametrized over the other ids are marked ``slow`` and run in the full suite."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(_variant_ids_in(value) for value in params.values()):
            item.add_marker(pytest.mark.slow)


def pytest_sessionstart(session):
    """Under pytest-xdist, compile the kernels and search loops once, split over the cores.

    This runs in the controller before xdist starts its workers (xdist starts them in its
    own ``trylast`` hook), so the workers load every loop from numba's disk cache instead
    of each compiling all of them at once (see ``tests/warm_cache.py``). A failure here is
    not hidden: the tests that use the loops compile them again and report it.
    """
    config = session.config
    workers = getattr(config.option, "numprocesses", None) or 0
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    shares = min(workers, os.cpu_count() or 1)
    script = Path(__file__).with_name("warm_cache.py")
    processes = [subprocess.Popen([sys.executable, str(script), str(k), str(shares)]) for k in range(shares)]
    for process in processes:
        process.wait()


@pytest.fixture(scope="session", autouse=True)
def sb3_log_folder(tmp_path_factory):
    """SB3's ``learn()`` without a logger of ours makes an empty log folder: keep it in pytest's tmp."""
    folder = tmp_path_factory.mktemp("sb3-logs")
    previous = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = previous


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Play one short game of every registered id so that compile time is paid once."""
    import mancala_envs
    from mancala_envs.agents import RandomAgent
    from mancala_envs.evaluation import play_game

    for env_id in mancala_envs.list_envs():
        game = mancala_envs.make_game(env_id)
        play_game(game, (RandomAgent(0), RandomAgent(1)), seed=0)
        state = game.new_state(0)
        state.observation(0)
        state.returns()
    yield
