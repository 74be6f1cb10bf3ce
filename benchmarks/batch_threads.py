#!/usr/bin/env python
"""What the second core is worth, round by round, next to BatchEnv's serial and parallel steps.

    python benchmarks/batch_threads.py [--rounds 8] [--steps 600] [--out FILE]

Why this exists: ``BatchEnv("kalah-v0", 1024, specialise=True)``'s parallel step varied
widely between quiet runs of ``benchmarks/run.py`` (the docs' performance page). This script separates
the step from the machine. Each round, alternated:

* ``pair_cores``: the Kalah-only loop of ``benchmarks/kalah_only.py`` (no shared data, no
  allocation) on one thread, then two copies at once on numba's two threads (one
  ``prange`` of two iterations, each its own state and seed): ``2 * t_one / t_two``. Two
  independent cores give 2.0; two hyperthreads of one physical core, or a second thread
  that waits for a busy core, give less. It is what any two-thread split can gain at best
  at that moment.
* ``serial_us`` / ``parallel_us``: the median time of one ``batch.step(batch.sample_actions())``
  at B = 1024 on Kalah(6,4), specialised, with the serial and the parallel compiled step
  forced (``ThreadChooser.always``), ``--steps`` steps each;
* ``parallel_speedup``: ``serial_us / parallel_us``;
* ``first_parallel_us``, ``second_parallel_us``: the first two parallel steps' times right
  after the serial ones (not in ``parallel_us``'s median): numba's worker thread sleeps during a serial stretch, and the
  first parallel step waits for it (``ThreadChooser`` does not compare that step).

It prints one line per round and the summary, and writes the JSON (every round, numba's
threading layer, the load average before and after) to ``benchmarks/results/batch_threads.json``
or ``--out`` (temporary name, then ``os.replace``). No timing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:  # run from a checkout without installing
        sys.path.insert(0, str(path))

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

from kalah_only import _kalah_only_loop  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.vector import BatchEnv, ThreadChooser  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "batch_threads.json"
BATCH_SIZE = 1024


@njit(parallel=True)
def _loops_at_once(n_games, seeds, states, moves):
    """``len(seeds)`` independent Kalah-only loops, one per ``prange`` iteration."""
    for t in prange(seeds.shape[0]):
        moves[t] = _kalah_only_loop(n_games, seeds[t], states[t])[0]


def pair_cores(n_games: int, seed: int) -> float:
    """What two threads of independent work are worth, in cores (see the module docstring)."""
    # each state on cache lines of its own (two 84-byte rows side by side share a line, and
    # both threads writing it would measure the line's moves between the cores instead)
    states = np.zeros((2, 64), np.int32)  # the loop uses the first STATE_SIZE entries of its row
    moves = np.zeros(2, np.int64)
    start = time.perf_counter()
    _kalah_only_loop(n_games, seed, states[0])
    one = time.perf_counter() - start
    start = time.perf_counter()
    _loops_at_once(n_games, np.array([seed, seed + 1], np.int64), states, moves)
    two = time.perf_counter() - start
    return 2 * one / two


def step_times_us(batch: BatchEnv, parallel: bool, steps: int) -> list[float]:
    """The wall time of each ``step(sample_actions())``, with the one compiled step forced."""
    batch.threads = ThreadChooser.always(parallel)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        batch.step(batch.sample_actions())
        times.append(1e6 * (time.perf_counter() - start))
    return times


def measure(rounds: int, steps: int, pair_games: int = 20_000) -> dict[str, Any]:
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    load_before = os.getloadavg()
    batch = BatchEnv("kalah-v0", BATCH_SIZE, seed=0, specialise=True)
    for parallel in (False, True, False, True):  # compile or load both steps
        step_times_us(batch, parallel, 3)
    pair_cores(200, 0)  # compile the loops
    rows = []
    for r in range(rounds):
        pair = pair_cores(pair_games, 1000 * r)
        serial = statistics.median(step_times_us(batch, False, steps))
        parallel_times = step_times_us(batch, True, steps + 2)
        parallel = statistics.median(parallel_times[2:])
        rows.append({"pair_cores": pair, "serial_us": serial, "parallel_us": parallel,
                     "parallel_speedup": serial / parallel,
                     "first_parallel_us": parallel_times[0], "second_parallel_us": parallel_times[1]})
        print(f"round {r}: pair {pair:.2f} cores | step serial {serial:.1f} us ({BATCH_SIZE / serial:.1f} M steps/s), "
              f"parallel {parallel:.1f} us ({BATCH_SIZE / parallel:.1f} M) -> {serial / parallel:.2f}x | first parallel "
              f"steps after serial ones {parallel_times[0]:.0f}, {parallel_times[1]:.0f} us", flush=True)
    return {"rounds": rows, "threading_layer": numba.threading_layer(), "threads": numba.config.NUMBA_NUM_THREADS,
            "batch_size": BATCH_SIZE, "steps_per_sample": steps, "load_average_before": load_before,
            "load_average_after": os.getloadavg()}


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=_positive, default=8)
    parser.add_argument("--steps", type=_positive, default=600, help="timed steps per mode and round")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = measure(args.rounds, args.steps)
    for key in ("pair_cores", "parallel_speedup"):
        values = [row[key] for row in result["rounds"]]
        print(f"{key}: min {min(values):.2f} median {statistics.median(values):.2f} max {max(values):.2f}")
    print(f"threading layer {result['threading_layer']}, load average {result['load_average_before'][0]:.1f} "
          f"-> {result['load_average_after'][0]:.1f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
