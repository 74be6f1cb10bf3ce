"""Where the search-bootstrap trainer's self-play games are played: forked processes or Ray actors.

``selfplay_backend(config, game, settings)`` gives the backend of the config's ``backend`` key:

* ``local`` (the default): ``LocalSelfPlay``, a pool of ``value.workers`` processes forked from the
  trainer (0: one per core of this machine); they inherit the game, the settings and the compiled
  searches, and get each iteration's evaluation with their share of the games.
* ``ray``: ``mancala_envs.training.ray_selfplay.RaySelfPlay``, one actor per worker on the Ray
  cluster at ``ray_address`` (0 workers: one per free CPU of the cluster); imported only then.

Both have one verb, ``play(function, evaluation, seeds)``: the games of ``seeds``, one per seed, played
by ``function(game, evaluation, seeds, settings)`` (``search_bootstrap.play_games`` or ``play_dagger``)
in chunks of consecutive seeds, and the chunks' results in the order of the seeds. A game depends only
on its seed (its random generator and its transposition tables start afresh), and the caller joins
the chunks in order, so what an iteration collects is the same whatever the backend, the number of
workers and the way the seeds were cut.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from typing import Any, Callable

from mancala_envs.core.game import Game
from mancala_envs.evaluation.work_chunks import chunked

from .config import TrainConfig

_FORKED: dict[str, Any] = {}  # the game and the settings, set before the pool forks (workers inherit them)


def _play_chunk(job: tuple[Callable, Any, list[int]]) -> Any:
    function, evaluation, seeds = job
    return function(_FORKED["game"], evaluation, seeds, _FORKED["settings"])


class LocalSelfPlay:
    """Self-play on ``workers`` processes forked from this one (a context manager: leaving it ends them)."""

    def __init__(self, game: Game, settings: Any, workers: int):
        self.workers = workers
        _FORKED.update(game=game, settings=settings)
        # Ctrl-C reaches the whole process group: the workers leave it to the trainer, which abandons the
        # iteration under way and keeps the last checkpoint (the command line says how to resume)
        self.pool = multiprocessing.get_context("fork").Pool(workers, initializer=signal.signal,
                                                             initargs=(signal.SIGINT, signal.SIG_IGN))

    def describe(self) -> str:
        return f"self-play on {self.workers} local processes"

    def play(self, function: Callable, evaluation: Any, seeds: list[int]) -> list:
        """``function``'s result for each chunk of consecutive ``seeds``, in order."""
        return self.pool.map(_play_chunk, [(function, evaluation, chunk) for chunk in chunked(seeds, self.workers)],
                             chunksize=1)

    def __enter__(self) -> LocalSelfPlay:
        return self

    def __exit__(self, *exc) -> None:
        self.pool.terminate()


def selfplay_backend(config: TrainConfig, game: Game, settings: Any,
                     warn: Callable[[str], None]) -> LocalSelfPlay:
    """The self-play backend of ``config.backend`` (module docstring); ``warn`` reports a lost Ray actor."""
    workers = config.value.workers
    if config.backend == "ray":
        from .ray_selfplay import RaySelfPlay  # imports ray: only when asked for

        return RaySelfPlay(game, settings, workers, config.ray_address or None, warn)
    return LocalSelfPlay(game, settings, workers or os.cpu_count() or 1)
