"""Matches between agents over an opening suite: every opening played from both seats.

``play_match(env, agent_a, agent_b, openings=100, plies=None, seed=0, workers=1)``

* ``openings`` is a number of openings (a suite is drawn with ``opening_suite(env, openings,
  plies, seed)``, whose ``plies`` default suits the game; ``mancala_envs.evaluation.openings``) or a ready ``OpeningSuite``; the match
  is ``2 * len(suite)`` games. Game ``2i`` starts from opening ``i`` with agent A as
  ``player_0``, game ``2i + 1`` from the same opening with A as ``player_1``, so the luck of
  a deal or of an opening favours each agent once per pair.
* Before every game each agent is ``reset`` with a seed derived from the suite's seed and
  the game's index, so a match is repeatable and a game's moves depend neither on the
  process that played it nor on what it played before.
* ``workers`` processes (``None``: every core, capped by the number of games) play the
  games; the parent forks them (Linux), so the agents, the game and numba's compiled code
  are inherited, not pickled. ``workers=1`` plays in this process.
* ``backend="ray"`` plays the games on a Ray cluster instead (``address``: the cluster, default
  a local Ray started on demand; ``mancala_envs.evaluation.ray_backend``), split by opening pairs,
  with the same results as the local processes for the same seed. The default ``"local"``
  never imports Ray.
* A game reaching the id's ``max_plies`` is truncated: neither win, draw nor loss.

Returns a ``PairedResult`` (``mancala_envs.evaluation.paired_results``): the score with a
bootstrap interval over openings, per seat, and the number of distinct games.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from typing import Any, Callable

import numpy as np

from mancala_envs.core.errors import InvalidOptionError
from mancala_envs.core.game import Game
from mancala_envs.registry import game_of

from mancala_envs.agents.base import Agent
from .game_play import play_game
from .openings import DEFAULT_OPENINGS, OpeningSuite, opening_suite
from .paired_results import DRAW, LOSS, TRUNCATED, WIN, PairedResult
from mancala_envs.agents.specs import make_agent

BACKENDS = ("local", "ray")


def agent_seeds(suite: OpeningSuite) -> np.ndarray:
    """``(games, 2)`` reset seeds: game ``g``'s seeds for agent A and agent B."""
    games = 2 * len(suite)
    return np.random.SeedSequence([suite.seed, 2]).generate_state(games * 2, dtype=np.uint32).reshape(games, 2)


# The match a forked worker plays: set in the parent just before forking.
_JOB: dict = {}


def play_indexed(job: dict, g: int) -> tuple[int, list[float], list, list[int], bool]:
    """Game ``g`` of a match (``job``: its suite, agents and reset seeds); ``(g, returns, scores, actions, truncated)``."""
    suite, a, b = job["suite"], job["a"], job["b"]
    seat_a = g % 2
    a.reset(seed=int(job["agent_seeds"][g, 0]))
    b.reset(seed=int(job["agent_seeds"][g, 1]))
    seated = (a, b) if seat_a == 0 else (b, a)
    played = play_game(suite.game, seated, start=suite.start(g // 2))
    return g, played.returns, played.scores, played.actions, played.truncated


def _play_indexed(g: int) -> tuple[int, list[float], list, list[int], bool]:
    return play_indexed(_JOB, g)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def play_match(
    env: str | Game,
    agent_a: Agent | Any | str,
    agent_b: Agent | Any | str,
    openings: int | OpeningSuite = DEFAULT_OPENINGS,
    plies: tuple[int, int] | None = None,
    seed: int = 0,
    workers: int | None = 1,
    progress: Callable[[int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
    **options,
) -> PairedResult:
    """Agent A against agent B over an opening suite, each opening from both seats (module docstring).

    ``env``: an env id (with ``options``), a ``Game``, or an env made by this package (``make``,
    ``gymnasium.make``): its game and options (``env.unwrapped.game``).

    An agent is an ``Agent``, any object with ``act(state) -> action``, or a spec (``specs.make_agent``).

    ``progress(n)`` is called after each finished game with the number finished so far.
    ``backend``: ``"local"`` (processes of this machine) or ``"ray"`` (``address``: the cluster).
    """
    check_backend(backend)
    game = game_of(env, **options)
    agent_a, agent_b = make_agent(agent_a, seed=seed), make_agent(agent_b, seed=seed + 1)
    suite = openings if isinstance(openings, OpeningSuite) else opening_suite(game, openings, plies, seed)
    if suite.game != game:
        raise InvalidOptionError(f"the opening suite is of {suite.env_id} {suite.options}, not of this game ({game!r})")
    games = 2 * len(suite)
    if workers is None:
        workers = 0 if backend == "ray" else default_workers()  # ray: 0 stands for every CPU of the cluster
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not (
            workers >= 1 or (backend == "ray" and workers == 0)):
        allowed = "an integer >= 1 or None (every core)"
        if backend == "ray":
            allowed = "an integer >= 1, 0 or None (every CPU of the cluster)"
        raise InvalidOptionError(f"workers must be {allowed}, got {workers!r}")
    workers = int(workers)
    for agent in (agent_a, agent_b):
        agent.warmup(game)  # compile in this process, so forked workers inherit the code
    job = {"suite": suite, "a": agent_a, "b": agent_b, "agent_seeds": agent_seeds(suite)}
    outcomes = _play_all(job, games, min(workers, games), progress, backend, address)
    return _paired_result(suite, agent_a.name, agent_b.name, outcomes)


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise InvalidOptionError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")


def _play_all(job: dict, games: int, workers: int, progress: Callable[[int], None] | None,
              backend: str = "local", address: str | None = None) -> list:
    """Every game of ``job``, in this process or in ``workers`` forked ones (or on Ray), in game order."""
    if backend == "ray":
        from .ray_backend import play_all_on_ray  # imports ray: only when asked for

        return play_all_on_ray(job, games, play_indexed, workers or None, progress, address)
    outcomes: list = [None] * games
    _JOB.clear()
    _JOB.update(job)
    try:
        if workers == 1 or "fork" not in mp.get_all_start_methods():
            for g in range(games):
                outcomes[g] = _play_indexed(g)
                if progress:
                    progress(g + 1)
        else:
            # Ctrl-C reaches the whole process group: the workers leave it to the caller (no traceback each)
            ignore_ctrl_c = (signal.SIGINT, signal.SIG_IGN)
            with mp.get_context("fork").Pool(workers, initializer=signal.signal, initargs=ignore_ctrl_c) as pool:
                for done, out in enumerate(pool.imap_unordered(_play_indexed, range(games), chunksize=1), start=1):
                    outcomes[out[0]] = out
                    if progress:
                        progress(done)
                pool.close()  # let the workers exit on their own: a SIGTERM trips handlers a driver
                pool.join()   # may have installed (Ray's prints a stack)
    finally:
        _JOB.clear()
    return outcomes


def _paired_result(suite: OpeningSuite, name_a: str, name_b: str, outcomes: list) -> PairedResult:
    n = len(suite)
    result = PairedResult(name_a, name_b, suite, np.zeros((n, 2), np.int8), np.zeros((n, 2)), seed=suite.seed)
    for g, rets, scores, actions, truncated in outcomes:
        opening, seat_a = suite.openings[g // 2], g % 2
        result.score_diff[g // 2, seat_a] = scores[seat_a] - scores[1 - seat_a]
        result.outcomes[g // 2, seat_a] = (TRUNCATED if truncated else WIN if rets[seat_a] > 0
                                           else LOSS if rets[seat_a] < 0 else DRAW)
        result.games_played.append((opening.deal_seed, opening.actions + tuple(actions)))
    return result
