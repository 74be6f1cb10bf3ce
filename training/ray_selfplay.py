"""The search-bootstrap trainer's self-play on a Ray cluster (``backend: ray``).

Needs the ``ray`` extra; ``mancala_envs.training.selfplay_backends`` imports this module only when a
config asks for ``backend: ray``.

* **Where.** ``ray_address`` as for the evaluations (``mancala_envs.evaluation.ray_backend.connect``):
  ``auto``, ``HOST:6379``, ``ray://HOST:10001``; empty, the Ray this process already joined, else a
  local Ray started on demand. Ray's own log lines are kept off the trainer's output the same way.
* **Who plays.** ``value.workers`` ``SelfPlayActor`` actors (0: one per free CPU of the cluster; never
  more than the cluster has free, so none waits for a CPU that will not come), one CPU each, started
  once per run. Each gets the game and the settings once, compiles its searches on its first games and
  keeps them for the whole run.
* **The weights.** Once per iteration the driver puts the new evaluation in Ray's object store
  (``ray.put``) and every task carries the same reference, boxed, so an actor fetches and unpickles it
  once per iteration, not once per game or chunk.
* **What a task is.** A chunk of consecutive games of the iteration (about
  ``evaluation.work_chunks.CHUNKS_PER_WORKER`` per actor); results are stored by chunk and joined in the order
  of the games, so the positions are those of the local backend whatever the number of actors.
* **A lost actor** (its node gone, its process killed) fails the chunk it held: the chunk goes back to
  the queue, a new actor takes the lost one's place, and the chunk is played again
  (``ray_backend.run_chunks``); a failed chunk returned nothing, so no game is counted twice.

Fault injection (for tests): ``MANCALA_RAY_SELFPLAY_FAULT=N`` in the environment kills an actor with
``ray.kill`` when the ``N``-th chunk of this process is handed out: the actor of the oldest chunk
still running (else the one just given the chunk), as a lost node would.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import ray

from mancala_envs.core.game import Game
from mancala_envs.evaluation.ray_backend import cluster_cpus, connect, run_chunks
from mancala_envs.evaluation.work_chunks import chunked

FAULT_ENV = "MANCALA_RAY_SELFPLAY_FAULT"  # "N": kill an actor when the N-th chunk is handed out
_handed_out = 0  # chunks handed out by this process (the fault counts them)


@ray.remote(num_cpus=1, max_restarts=0)
class SelfPlayActor:
    """One self-play process: the game and the settings, the compiled searches and the iteration's network."""

    def __init__(self, setup: tuple[Game, Any]):
        self.game, self.settings = setup
        self.key: int | None = None
        self.evaluation = None

    def play(self, function: Callable, key: int, evaluation_box: list, seeds: list[int]) -> Any:
        """``function(game, evaluation, seeds, settings)``, the evaluation fetched once per ``key``."""
        if key != self.key:
            self.evaluation, self.key = ray.get(evaluation_box[0]), key
        return function(self.game, self.evaluation, seeds, self.settings)


class RaySelfPlay:
    """Self-play on Ray actors (module docstring); a context manager: leaving it ends the actors."""

    def __init__(self, game: Game, settings: Any, workers: int, address: str | None,
                 warn: Callable[[str], None]):
        connect(address)
        self.warn = warn
        self.setup = ray.put((game, settings))
        free = int(ray.available_resources().get("CPU", 0))
        if free == 0:
            warn(f"every CPU of the Ray cluster ({cluster_cpus()}) is held by other work: self-play waits "
                 f"for one to come free")
        self.actors = [SelfPlayActor.remote(self.setup) for _ in range(max(1, min(workers or cluster_cpus(), free)))]
        self.key, self.evaluation, self.box = 0, object(), None
        fault = os.environ.get(FAULT_ENV, "")
        self.fault_at = int(fault) if fault.isdigit() else 0

    @property
    def workers(self) -> int:
        return len(self.actors)

    def describe(self) -> str:
        return f"self-play on {self.workers} Ray actors (a cluster of {cluster_cpus()} CPUs)"

    def play(self, function: Callable, evaluation: Any, seeds: list[int]) -> list:
        """``function``'s result for each chunk of consecutive ``seeds``, in order."""
        if evaluation is not self.evaluation:  # a new network: into the object store, once
            self.key, self.evaluation, self.box = self.key + 1, evaluation, [ray.put(evaluation)]
        work = chunked(seeds, self.workers)
        results: list = [None] * len(work)
        holding: dict[int, Any] = {}  # chunk -> the actor playing it

        def submit(actor, k: int):
            holding[k] = actor
            self._fault(actor, holding)
            return actor.play.remote(function, self.key, self.box, work[k])

        def finished(k: int, result: Any) -> None:
            holding.pop(k, None)
            results[k] = result

        run_chunks(self.actors, range(len(work)), submit, self._replace, finished)
        return results

    def _replace(self, actor) -> Any:
        """A new actor in place of a lost one."""
        self.warn("self-play: a Ray actor was lost (its node or process is gone); its games are played again")
        index = self.actors.index(actor)
        self.actors[index] = SelfPlayActor.remote(self.setup)
        return self.actors[index]

    def _fault(self, actor, holding: dict[int, Any]) -> None:
        """``MANCALA_RAY_SELFPLAY_FAULT``: kill an actor when the chosen chunk is handed out."""
        global _handed_out
        _handed_out += 1
        if _handed_out == self.fault_at:
            busy = [other for other in holding.values() if other is not actor]
            ray.kill(busy[0] if busy else actor, no_restart=True)

    def __enter__(self) -> RaySelfPlay:
        return self

    def __exit__(self, *exc) -> None:
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
