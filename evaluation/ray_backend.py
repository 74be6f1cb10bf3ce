"""The Ray backend of the arena: a match's games played by long-lived workers on a Ray cluster.

``play_match(..., backend="ray", address=None)`` (``mancala_envs.evaluation.arena``) hands its
games here instead of to forked processes; ``mancala match/eval/tournament --backend ray``,
``backend: ray`` in a training config and ``round_robin(..., backend="ray")`` all end here.
Needs the ``ray`` extra (``pip install "mancala-envs[ray]"``); nothing else imports this module
unless the Ray backend is asked for.

* **Where.** ``address`` is a running cluster's address (``"auto"``: the one ``ray start`` began
  on this machine; ``"ray://host:10001"``: a remote one through Ray Client); ``None`` uses the
  Ray already initialised in this process, else starts a local one on demand.
* **Who plays.** One ``MatchWorker`` actor per worker (``workers``, default: every CPU of the
  cluster that is free, e.g. not held by RLlib's env runners), each a process that lives as
  long as the driver. It unpickles a match's agents
  once, warms them (numba compiles each kernel once per process) and plays chunks of opening
  pairs. The actors are kept for later matches, so a tournament compiles once per worker, not
  once per pair or game.
* **What a task is.** A chunk of consecutive opening pairs: opening ``i`` gives games ``2i``
  and ``2i + 1`` (A as ``player_0``, then as ``player_1``), played with the reset seeds the
  suite fixes for those game indices. A game's moves therefore depend neither on the worker
  nor on the chunk, and both backends give the same results for the same seed.
* **A lost worker** (its node gone, its process killed) fails the chunk it held; the chunk
  goes back to the queue, a new actor takes the lost one's place, and the chunk is played
  again elsewhere. Results are stored by game index and a game already stored is never
  stored again, so a chunk that is played twice is counted once.
* **Your own agents** travel with cloudpickle: a class defined in a script or notebook goes by
  value; one from a module goes by name, so that module must be importable on every machine
  of the cluster (installed, or shipped with ``ray.init(runtime_env={"py_modules": [...]})``).
* **Progress** is the same callback as on the local backend: ``progress(done)`` with the
  number of games finished, after every chunk.
"""

from __future__ import annotations

import math
import os
from collections import deque
from typing import Any, Callable

import ray
from ray import cloudpickle
from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError, WorkerCrashedError

from mancala_envs.core.errors import MancalaError

from .work_chunks import CHUNKS_PER_WORKER, chunks  # noqa: F401 (the one cut, shared with the trainer)

LOST_WORKER_ERRORS = (RayActorError, ActorDiedError, ActorUnavailableError, WorkerCrashedError)

# The workers of this driver, reused by every later match (their numba code stays compiled).
_WORKERS: list = []
_SESSION: dict = {}  # the Ray job (driver connection) the workers belong to


class RayBackendError(MancalaError):
    """A Ray cluster that cannot be reached, or a match that cannot be shipped to it."""


def connect(address: str | None = None) -> None:
    """Join the cluster at ``address``, or the Ray of this process, or start a local one."""
    if ray.is_initialized():
        return
    try:
        ray.init(address=address, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise RayBackendError(f"cannot reach a Ray cluster at {address!r}: {err}; start one with "
                              f"'ray start --head' and pass --address auto (or leave --address out to start "
                              f"a local Ray)") from None


def disconnect() -> None:
    """Leave Ray (``ray.shutdown``) if this process joined it, so the driver's background
    threads print nothing more; the workers go with the driver. A later match connects again."""
    if ray.is_initialized():
        ray.shutdown()
    _WORKERS.clear()
    _SESSION.clear()


def release_workers() -> None:
    """End the match workers this process keeps between matches, so their CPUs are free for other
    Ray work in the same cluster (a trainer's self-play actors, say); a later match starts new ones."""
    for worker in _WORKERS:
        ray.kill(worker)
    _WORKERS.clear()


def cluster_cpus() -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


@ray.remote(num_cpus=1, max_restarts=0)
class MatchWorker:
    """One worker process: holds the match it plays (agents unpickled and warmed once)."""

    def __init__(self):
        self.job_id: int | None = None
        self.job: dict | None = None

    def pid(self) -> int:
        return os.getpid()

    def play(self, job_id: int, job_box: list, openings: list[int]) -> list:
        """Both games of each opening index in ``openings``: ``[play(job, g) for each game g]``."""
        if job_id != self.job_id:
            self.play_one, self.job = cloudpickle.loads(ray.get(job_box[0]))
            for agent in (self.job["a"], self.job["b"]):
                agent.warmup(self.job["suite"].game)
            self.job_id = job_id
        return [self.play_one(self.job, g) for i in openings for g in (2 * i, 2 * i + 1)]


def _free_cpus() -> int:
    """CPUs our workers hold or could take now (others may be held by RLlib's env runners, say)."""
    return len(_WORKERS) + int(ray.available_resources().get("CPU", 0))


def _forget_old_workers() -> None:
    """After ``ray.shutdown()`` and a new ``ray.init()`` the old handles are gone: start afresh."""
    job = ray.get_runtime_context().get_job_id()
    if _SESSION.get("job") != job:
        _WORKERS.clear()
        _SESSION["job"] = job


def _workers(count: int) -> list:
    """``count`` live workers (started on first use, kept for later matches of this Ray session)."""
    while len(_WORKERS) < count:
        _WORKERS.append(MatchWorker.remote())
    return _WORKERS[:count]


def _replace(worker) -> Any:
    """A new worker in place of a lost one."""
    index = _WORKERS.index(worker)
    _WORKERS[index] = MatchWorker.remote()
    return _WORKERS[index]


def run_chunks(pool: list, work: list, submit: Callable[[Any, Any], Any], replace: Callable[[Any], Any],
               finished: Callable[[Any, Any], None]) -> None:
    """Every chunk of ``work`` played on the workers of ``pool``, each busy with one chunk at a time.

    ``submit(worker, chunk)`` starts a chunk and returns its object ref; ``finished(chunk, result)`` is
    called once per chunk, in the order they finish. A chunk whose worker is lost (``LOST_WORKER_ERRORS``:
    its node gone, its process killed) goes back to the front of the queue, ``replace(worker)`` gives the
    worker that takes the lost one's place, and the chunk is played again by whichever worker is free next;
    a lost chunk returned nothing, so no chunk is finished twice. Any other error of a chunk is raised.
    """
    queue = deque(work)
    idle, running = list(pool), {}
    while queue or running:
        while queue and idle:
            worker, chunk = idle.pop(), queue.popleft()
            running[submit(worker, chunk)] = (worker, chunk)
        ready, _ = ray.wait(list(running), num_returns=1)
        worker, chunk = running.pop(ready[0])
        try:
            result = ray.get(ready[0])
        except LOST_WORKER_ERRORS:
            queue.appendleft(chunk)
            idle.append(replace(worker))
            continue
        idle.append(worker)
        finished(chunk, result)


_job_counter = 0


def play_all_on_ray(job: dict, games: int, play: Callable[[dict, int], tuple], workers: int | None,
                    progress: Callable[[int], None] | None, address: str | None = None) -> list:
    """Every game of ``job`` (``games`` = 2 per opening) on Ray workers; the outcomes in game order.

    ``play(job, g)`` plays game ``g`` and returns a tuple whose first item is ``g`` (it travels
    with the job, pickled by reference, so this module needs no import of the arena).
    """
    global _job_counter
    connect(address)
    try:
        blob = cloudpickle.dumps((play, job))
    except Exception as err:  # noqa: BLE001 - pickle raises many kinds for an unpicklable agent
        raise RayBackendError(f"the Ray backend ships the agents to its workers, and one cannot be pickled "
                              f"(cloudpickle): {err}; use the local backend for it") from None
    _job_counter += 1
    job_id, job_box = _job_counter, [ray.put(blob)]  # boxed: workers fetch it once, not on every call
    _forget_old_workers()
    pool = _workers(max(1, min(workers or cluster_cpus(), _free_cpus(), math.ceil(games / 2))))
    outcomes: list = [None] * games
    done = 0

    def store(chunk: list[int], played: list) -> None:
        nonlocal done
        for out in played:
            if outcomes[out[0]] is None:  # a game is stored once, whatever happens to its chunk
                outcomes[out[0]] = out
                done += 1
        if progress:
            progress(done)

    run_chunks(pool, chunks(games // 2, len(pool)), lambda worker, chunk: worker.play.remote(job_id, job_box, chunk),
               _replace, store)
    return outcomes
