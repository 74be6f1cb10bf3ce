#!/usr/bin/env python
"""Throughput benchmarks of mancala-envs against its peers. See benchmarks/README.md.

    python benchmarks/run.py [--quick] [--out FILE]

Figures (each measured several times after a warm-up; the reported value is the median):

  kernel        random playouts of kalah-v0 (Kalah(6,4)) through the numba kernel,
                one core (``mancala_envs.core.playout.random_playouts``), moves/s
  kernel_by_id  the same for every registered id
  aec           the standard PettingZoo AEC loop on ``mancala_envs.make("kalah-v0")``, steps/s
  tictactoe     the same loop on PettingZoo's ``tictactoe_v3.env()``, steps/s (the peer);
                ``aec_vs_tictactoe_rounds``: the two loops timed in interleaved rounds, the
                median per-round ratio with its spread and best-of (the AEC target's figure)
  openspiel     OpenSpiel's ``mancala`` through its Python API, moves/s (the peer)
  state_api     our ``State`` API in a plain Python loop (new_state/legal_actions/apply),
                moves/s: the like-for-like of the OpenSpiel loop
  batch         ``BatchEnv`` random play at B=1024 on every core numba uses, steps/s;
                ``batch_modes``: the same specialised, forced serial / parallel, and with
                one core kept busy; ``batch_vs_openspiel_rounds``: OpenSpiel's lean loop and the
                specialised BatchEnv (threads chosen) timed in interleaved rounds, the median
                per-round ratio with its spread and best-of (the batch target's figure)
  ppo_selfplay  MaskablePPO on ``SelfPlayVecEnv`` against the same learner on a no-logic
                env, alternated rounds, steps/s and ratios (wall and CPU time)
  cold_start    a new process to its first search move, warm and empty numba caches, s
  first_use     each family's first use and the first small solve, CPU seconds from empty caches
                and warm: read from ``benchmarks/first_use.py``'s results file (it takes minutes
                from empty caches); ``--first-use`` reruns it first
  mcts          our MCTS (``mancala_envs.agents.mcts``, UCT with random rollouts) from the start of
                kalah-v0, simulations/s, one core; ``mcts_by_id`` for every id
  openspiel_mcts  OpenSpiel's C++ ``MCTSBot`` (one random rollout per simulation) from
                the start of its ``mancala`` (Kalah(6,4)), simulations/s, one core (the peer)
  alphabeta_by_id  our alpha-beta (``mancala_envs.agents.search``), iterative deepening from every id's
                start position for a fixed time, nodes/s
  (the search figures are measured by the functions of ``benchmarks/search.py``)
  cards         kernel moves/s, MCTS sims/s and alpha-beta nodes/s of the card games, here and
                at ``CARDS_BASELINE`` (the commit before their speed-up), alternated in one
                run by ``benchmarks/cards.py``; ratios new/baseline (rondell-v0 and
                widdershins-v0 with --quick, every card id in the full run, none in --smoke)

Prints a table and writes JSON (to a temporary name, then ``os.replace``). Timings are never
asserted; the exit code is 1 only when a figure failed with an error (an optional peer that
is not installed is recorded as "not installed").
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import random
import statistics
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "latest.json"
SCHEMA_VERSION = 1

# The card games' figures are measured against this commit in the same run (benchmarks/cards.py):
# main before issue 21's card-game work, whose figures the issue calls "today's".
CARDS_BASELINE = "1daa25f"

# Targets from the issue. Reported, never asserted.
TARGETS = {
    "kernel_moves_per_s": {
        "value": 10_000_000.0,
        "text": "kernel random playouts of Kalah(6,4) >= 10 M moves/s on one core",
    },
    "kernel_vs_kalah_only": {
        "value": 0.9,
        "text": "generic kernel (random_playouts, kalah-v0) >= 0.9x a Kalah-only numba loop, same run",
    },
    "aec_vs_tictactoe": {
        "value": 3.0,
        "text": "AEC env steps/s >= 3x PettingZoo tictactoe_v3 steps/s (same lean loop), median of interleaved rounds",
    },
    "batch_steps_per_s": {
        "value": 20_000_000.0,
        "text": "BatchEnv Kalah(6,4) (specialise=True) at B=1024 on 2 cores >= 20 M steps/s (observations and masks included)",
    },
    "batch_vs_openspiel": {
        "value": 20.0,
        "text": "BatchEnv random play (specialise=True) at B=1024 on 2 cores >= 20x OpenSpiel's lean mancala loop (moves/s), "
                "median of interleaved rounds",
    },
    "ppo_vs_trivial": {
        "value": 0.8,
        "text": "MaskablePPO steps/s on SelfPlayVecEnv (snapshot opponent, 32 games) >= 0.8x on a trivial masked env",
    },
    "mcts_vs_openspiel": {
        "value": 2.0,
        "text": "MCTS simulations/s on Kalah(6,4) >= 2x OpenSpiel's C++ MCTSBot, one core each",
    },
    "cold_start_seconds": {
        "value": 1.0,
        "lower_is_better": True,
        "text": "a new process (warm numba cache) plays its first alpha-beta / MCTS move within 1 s",
    },
    "cards_vs_baseline": {
        "value": 3.0,
        "text": f"card games 3x faster: the smallest ratio (kernel, MCTS, alpha-beta; Rondell, Widdershins) "
                f"to commit {CARDS_BASELINE}, same run",
    },
}

# (repeats, seconds per repeat) for each kind of figure
MODES = {
    # the test suite's smoke run: every code path, tiny budgets, small batches (serial compile)
    "smoke": {"kernel": (1, 0.05), "kernel_by_id": (1, 0.05), "python_loop": (1, 0.05), "aec_by_id": (1, 0.05),
              "batch": (1, 0.05), "batch_by_id": (1, 0.05), "batch_rounds": (1, 0.05), "aec_rounds": (1, 0.05), "ppo": ((4, 256),),
              "mcts": (1, 200), "mcts_by_id": None, "alphabeta_by_id": None, "kernel_limit": (1, 0.05),
              "cold_start": None},
    "quick": {"kernel": (3, 0.4), "kernel_by_id": (1, 0.3), "python_loop": (3, 0.5), "aec_by_id": (1, 0.3),
              "batch": (3, 0.5), "batch_by_id": (1, 0.3), "batch_rounds": (9, 0.5), "aec_rounds": (9, 0.5),
              "ppo": ((8, 8192), (16, 16384), (32, 32768), (64, 65536)),
              "mcts": (5, 20_000), "mcts_by_id": (1, 5_000), "alphabeta_by_id": (1, 0.3), "kernel_limit": (7, 0.3),
              "cold_start": 3},
    "full": {"kernel": (5, 3.0), "kernel_by_id": (3, 1.5), "python_loop": (5, 3.0), "aec_by_id": (3, 1.0),
             "batch": (5, 2.0), "batch_by_id": (3, 1.0), "batch_rounds": (15, 1.0), "aec_rounds": (15, 1.0),
             "ppo": ((8, 32768), (16, 65536), (32, 131072), (64, 262144)),
             "mcts": (9, 20_000), "mcts_by_id": (3, 20_000), "alphabeta_by_id": (3, 2.0), "kernel_limit": (15, 1.0),
             "cold_start": 5},
}
# batch_rounds, aec_rounds: (interleaved rounds, seconds per side and round);
# mcts: (repeats, simulations per search); alphabeta_by_id: (repeats, seconds per search);
# kernel_limit: (alternated repeats, seconds each); cold_start: warm processes per agent;
# None: the figure is skipped (the smoke run measures the search on kalah-v0 only, and no
# cold start: its first-ever compile alone takes tens of seconds)

KERNEL_ID = "kalah-v0"


# -- helpers --------------------------------------------------------------------------------
def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine_info() -> dict[str, Any]:
    import numba

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "numba": numba.__version__,
        "numba_threads": numba.get_num_threads(),
        "numpy": np.__version__,
        "pettingzoo": _version("pettingzoo"),
        "open_spiel": _version("open_spiel"),
        "pygame": _version("pygame"),
        "mancala_envs": _version("mancala-envs"),
    }


def _summary(rates: list[float], unit: str, **extra: Any) -> dict[str, Any]:
    return {
        "status": "ok",
        "unit": unit,
        "value": statistics.median(rates),
        "best": max(rates),
        "worst": min(rates),
        "samples": rates,
        **extra,
    }


def _not_installed(what: str, exc: BaseException) -> dict[str, Any]:
    return {"status": "not installed", "detail": f"{what}: {type(exc).__name__}: {exc}"}


def _failed(exc: BaseException) -> dict[str, Any]:
    return {"status": "error", "detail": "".join(traceback.format_exception_only(type(exc), exc)).strip()}


# -- (a), (b): the kernel ---------------------------------------------------------------------
def bench_kernel(env_id: str, repeats: int, seconds: float, seed: int = 12345) -> dict[str, Any]:
    """Random playouts inside numba, one core. Compilation is excluded by a warm-up call."""
    import mancala_envs
    from mancala_envs.core.playout import random_playouts

    game = mancala_envs.make_game(env_id)
    warm = random_playouts(game, 50, seed)  # compiles the loop for this kernel
    compile_seconds = warm.seconds
    probe = random_playouts(game, 2000, seed + 1)
    games_per_s = probe.games / max(probe.seconds, 1e-9)
    n_games = max(200, int(games_per_s * seconds))
    rates, moves, spent = [], 0, 0.0
    for r in range(repeats):
        totals = random_playouts(game, n_games, seed + 2 + r)
        rates.append(totals.moves / totals.seconds)
        moves += totals.moves
        spent += totals.seconds
    return _summary(
        rates,
        "moves/s",
        games_per_repeat=n_games,
        moves=moves,
        seconds=spent,
        mean_game_length=moves / (n_games * repeats),
        first_call_seconds=compile_seconds,
    )


def bench_kernel_limit(repeats: int, seconds: float, seed: int = 777) -> dict[str, Any]:
    """The generic kernel against the Kalah-only loop (``benchmarks/kalah_only.py``), one core.

    ``random_playouts`` on kalah-v0 (generic and ``specialise=True``) and the Kalah-only
    loop play the same games (same seeds, checked here), alternated repeat by repeat so that
    the machine's load weighs on all three alike; the ratios are medians of per-repeat ratios.
    """
    import mancala_envs
    from mancala_envs.core.playout import random_playouts

    limit = _bench_module("kalah_only")
    game = mancala_envs.make_game(KERNEL_ID)
    first = {}
    for specialise in (False, True):
        start = time.perf_counter()
        random_playouts(game, 10, seed, specialise=specialise)  # loads or compiles the loop
        first["specialised" if specialise else "generic"] = time.perf_counter() - start
    limit.kalah_only_playouts(10, seed)
    probe = random_playouts(game, 2000, seed, specialise=True)
    moves, finished, _, _ = limit.kalah_only_playouts(2000, seed)
    same_games = probe.moves == moves and probe.finished == finished
    n_games = max(200, int(probe.games / max(probe.seconds, 1e-9) * seconds))
    rates: dict[str, list[float]] = {"generic": [], "specialised": [], "kalah_only": []}
    cpu_rates: dict[str, list[float]] = {name: [] for name in rates}  # moves per CPU second of this thread
    for r in range(repeats):
        for specialise in (False, True):
            cpu_start = time.thread_time()
            totals = random_playouts(game, n_games, seed + r, specialise=specialise)
            name = "specialised" if specialise else "generic"
            rates[name].append(totals.moves / totals.seconds)
            cpu_rates[name].append(totals.moves / max(time.thread_time() - cpu_start, 1e-9))
        cpu_start = time.thread_time()
        moves, _, _, spent = limit.kalah_only_playouts(n_games, seed + r)
        rates["kalah_only"].append(moves / spent)
        cpu_rates["kalah_only"].append(moves / max(time.thread_time() - cpu_start, 1e-9))
    ratio = {name: statistics.median(a / b for a, b in zip(rates[name], rates["kalah_only"]))
             for name in ("generic", "specialised")}
    # On a loaded machine the wall-clock samples lose random slices to other processes;
    # the loops are single-threaded, so their CPU time is the steadier comparison.
    cpu_ratio = {name: statistics.median(a / b for a, b in zip(cpu_rates[name], cpu_rates["kalah_only"]))
                 for name in ("generic", "specialised")}
    return {
        "status": "ok",
        "env_id": KERNEL_ID,
        "games_per_repeat": n_games,
        "same_games": same_games,
        "first_call_seconds": first,
        "generic": _summary(rates["generic"], "moves/s"),
        "specialised": _summary(rates["specialised"], "moves/s"),
        "kalah_only": _summary(rates["kalah_only"], "moves/s"),
        "ratio_generic": ratio["generic"],
        "ratio_specialised": ratio["specialised"],
        "cpu_ratio_generic": cpu_ratio["generic"],
        "cpu_ratio_specialised": cpu_ratio["specialised"],
    }


# -- (l): cold start ----------------------------------------------------------------------------
COLD_START_AGENTS = ("alphabeta:depth=4", "mcts:sims=1000")
_COLD_START_CODE = """
import json, sys, time
t0 = time.perf_counter()
import mancala_envs
from mancala_envs.agents.specs import make_agent
t1 = time.perf_counter()
state = mancala_envs.make_game(sys.argv[1]).new_state(0)
make_agent(sys.argv[2], seed=0).act(state)
t2 = time.perf_counter()
print(json.dumps({"import_seconds": t1 - t0, "first_move_seconds": t2 - t1, "cpu_seconds": time.process_time(),
                  "move_clock": t2}), flush=True)
"""


def _one_process(env_id: str, spec: str, env: dict[str, str]) -> dict[str, float]:
    import subprocess

    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _COLD_START_CODE, env_id, spec], env=env, capture_output=True,
                          text=True, check=True)
    wall = time.perf_counter() - start
    child = json.loads(done.stdout.strip().splitlines()[-1])
    # perf_counter is the system-wide monotonic clock (CLOCK_MONOTONIC on Linux), so the
    # child's reading at its move and ours at the launch compare
    move_seconds = child.pop("move_clock") - start
    return {"launch_to_move_seconds": move_seconds, "process_seconds": wall,
            "exit_seconds": wall - move_seconds, **child}


def bench_cold_start(repeats: int) -> dict[str, Any]:
    """A new process's first search move: wall time from launching ``python`` to the move.

    ``launch_to_move_seconds`` (the figure): from launching the process to the end of its
    first ``act``; ``process_seconds``: to the end of the process, which adds the
    interpreter's shutdown (``exit_seconds``: its last garbage collection runs over every
    object numba created, about 0.2 s on a quiet machine). ``cpu_seconds`` is the process's
    CPU time up to the move (interpreter start, imports, cache loads, the search): what the
    wall time would be on an idle core. On a loaded machine the wall time is the CPU time
    stretched by the load.

    ``first_ever``: with an empty numba cache (a fresh ``NUMBA_CACHE_DIR``), so everything
    compiles: the kernels and the search loop. ``warm``: later processes with that cache
    (the median of ``repeats``), the case of every run after the first.
    """
    import tempfile

    out: dict[str, Any] = {"status": "ok", "env_id": KERNEL_ID, "agents": {}}
    with tempfile.TemporaryDirectory(prefix="mancala-numba-cache-") as cache_dir:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
        # Python's bytecode cache too, as after any install (pip writes it; an editable
        # install writes it on first import): without it every process recompiles our modules
        # from source (about 0.2 s of CPU)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for spec in COLD_START_AGENTS:
            first_ever = _one_process(KERNEL_ID, spec, env)
            warm = [_one_process(KERNEL_ID, spec, env) for _ in range(repeats)]
            out["agents"][spec] = {
                "first_ever": first_ever,
                "warm": {key: statistics.median(w[key] for w in warm) for key in warm[0]},
                "warm_samples": warm,
            }
    out["value"] = max(a["warm"]["launch_to_move_seconds"] for a in out["agents"].values())
    out["unit"] = "s"
    return out


FIRST_USE_FILE = ROOT / "benchmarks" / "results" / "first_use.json"


def first_use_figure(path: Path = FIRST_USE_FILE) -> dict[str, Any]:
    """The CPU seconds per case of ``benchmarks/first_use.py``'s last run, read from its file."""
    if not path.exists():
        return {"status": "not measured", "detail": "run python benchmarks/first_use.py"}
    data = json.loads(path.read_text(encoding="utf-8"))
    cases = {}
    for case in data["cases"]:
        cold, warm = case["empty_caches"], case.get("warm") or {}
        cases[case["case"]] = {"empty_caches_cpu_seconds": cold.get("cpu_seconds"),
                               "warm_cpu_seconds": warm.get("cpu_seconds"),
                               "target_cpu_seconds": case["target_cpu_seconds"], "met": case["met"]}
    warm_processes = {one["case"]: _warm_process_figure(one) for one in data.get("warm_process", [])}
    return {"status": "ok", "file": str(path.relative_to(ROOT)), "created": data.get("created"),
            "commit": (data.get("provenance") or {}).get("commit"), "cases": cases,
            "warm_processes": warm_processes}


def _warm_process_figure(one: dict[str, Any]) -> dict[str, Any]:
    """One warm new process of ``first_use.json``: its command, wall and CPU seconds, import time, target."""
    return {"command": one.get("command"), "status": one.get("status"),
            "wall_seconds": one.get("wall_seconds"), "cpu_seconds": one.get("cpu_seconds"),
            "import_wall_seconds": (one.get("imports") or {}).get("wall_seconds"),
            "target_wall_seconds": one.get("target_wall_seconds"), "met": one.get("met")}


# -- (g), (h): the batched engine and self-play training -----------------------------------
BATCH_SIZE = 1024


def _batch_runner(env_id: str, batch_size: int, threads: str = "chosen", specialise: bool = False):
    """A ``BatchEnv`` playing at random, ready to time: (``run_for(budget)`` -> (steps, games
    started, seconds), first-call seconds, the ``BatchEnv``). Its steps run on every thread numba
    has: the caller sets ``numba.set_num_threads`` (``bench_batch`` does)."""
    from mancala_envs.vector import BatchEnv, ThreadChooser

    start = time.perf_counter()
    batch = BatchEnv(env_id, batch_size, seed=0, specialise=specialise)
    for _ in range(2):  # compiles (or loads) both steps: the chooser's probe starts serial, then parallel
        batch.step(batch.sample_actions())
    compile_seconds = time.perf_counter() - start
    if threads != "chosen" and batch.threads is not None:
        batch.threads = ThreadChooser.always(threads == "parallel")

    def run_for(budget: float):
        steps = 0
        t0 = time.perf_counter()
        elapsed = 0.0
        while elapsed < budget:
            for _ in range(20):
                batch.step(batch.sample_actions())
            steps += 20 * batch_size
            elapsed = time.perf_counter() - t0
        return steps, int(batch.episodes.sum()), elapsed

    return run_for, compile_seconds, batch


def _parallel_share(batch) -> float | None:
    """The share of ``batch``'s steps so far that ran in parallel (None without a chooser)."""
    return batch.threads.parallel_share() if batch.threads is not None else None


def bench_batch(env_id: str, repeats: int, seconds: float, batch_size: int = BATCH_SIZE,
                threads: str = "chosen", specialise: bool = False) -> dict[str, Any]:
    """BatchEnv random play: game steps per second at B = 1024, on every core numba uses.

    ``threads``: "chosen" (the default ``ThreadChooser``, what a user gets), "serial" or
    "parallel" (the one compiled step forced, for comparison). ``specialise``: the
    ``BatchEnv`` option (the game's option values compiled into the step).
    """
    import numba

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        run_for, compile_seconds, batch = _batch_runner(env_id, batch_size, threads, specialise)
        rates, steps, games, spent = _repeat_loop(run_for, repeats, seconds)
    finally:
        numba.set_num_threads(1)
    return _summary(rates, "steps/s", batch_size=batch_size, threads=numba.config.NUMBA_NUM_THREADS,
                    step_mode=threads, specialise=specialise, steps=steps, seconds=spent, first_call_seconds=compile_seconds,
                    parallel_share=_parallel_share(batch))


def _interleaved_rates(runners: dict[str, Callable[[float], tuple[int, int, float]]], rounds: int,
                       seconds: float) -> dict[str, list[float]]:
    """Each runner's rate (count / elapsed) in ``rounds`` rounds of ``seconds`` each, the runners
    one right after the other within a round, the order reversed every other round (so neither
    side always runs in the later, warmer half). The first runner comes first in even rounds."""
    for run_for in runners.values():  # warm-ups
        run_for(min(0.2, seconds))
    names = list(runners)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            count, _, elapsed = runners[name](seconds)
            rates[name].append(count / elapsed)
    return rates


def _rounds_ratio(ours: list[float], peer: list[float]) -> dict[str, Any]:
    """The per-round ratios ``ours / peer`` of interleaved rounds: median, spread, best-of."""
    ratios = [o / p for o, p in zip(ours, peer)]
    return {"status": "ok", "unit": "x", "value": statistics.median(ratios), "worst": min(ratios),
            "best": max(ratios), "samples": ratios, "best_of": max(ours) / max(peer), "rounds": len(ratios)}


def bench_batch_vs_openspiel(rounds: int, seconds: float, batch_size: int = BATCH_SIZE) -> dict[str, Any]:
    """The batch target's ratio measured in interleaved rounds: each round times OpenSpiel's lean
    loop and ``BatchEnv(KERNEL_ID, 1024, specialise=True)`` (threads chosen per step, what a user
    gets) for ``seconds`` each, one right after the other, and takes their ratio.

    Why rounds: the speed of a shared machine's virtual cores changes from minute to minute
    (``benchmarks/batch_threads.py`` shows it), so two figures taken
    minutes apart give a ratio that swings with the machine, not the code. Within a round both
    sides see nearly the same machine; the order alternates from round to round (OpenSpiel first
    in even rounds), so neither side always runs in the later, warmer half. Reported: the median
    of the per-round ratios with their min and max, and best-of (each side's best round, divided):
    the ratio when both sides are at their best. Both loops run in this process, at this priority.
    """
    import numba

    try:
        import pyspiel  # noqa: F401
    except ImportError as exc:
        return _not_installed("open_spiel (pyspiel)", exc)
    openspiel_run, _ = _openspiel_runner()
    load_before = os.getloadavg()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        timed_run, _, batch = _batch_runner(KERNEL_ID, batch_size, "chosen", specialise=True)
        shares: list[float | None] = []
        probes: list[dict[str, int]] = []

        def batch_run(budget: float):  # also notes the round's share of parallel steps and its probes
            chooser = batch.threads
            before = (dict(chooser.steps_run), dict(chooser.probes_won)) if chooser is not None else None
            counts = timed_run(budget)
            if before is not None:
                run = {mode: chooser.steps_run[mode] - before[0][mode] for mode in (False, True)}
                shares.append(run[True] / max(run[False] + run[True], 1))
                probes.append({"won_parallel": chooser.probes_won[True] - before[1][True],
                               "won_serial": chooser.probes_won[False] - before[1][False]})
            return counts

        rates = _interleaved_rates({"openspiel": openspiel_run, "batch": batch_run}, rounds, seconds)
    finally:
        numba.set_num_threads(1)
    return {
        "parallel_share_by_round": shares[-rounds:],  # the warm-up's is dropped
        "probes_by_round": probes[-rounds:],  # ThreadChooser's probes that each step won
        **_rounds_ratio(rates["batch"], rates["openspiel"]),
        "openspiel": _summary(rates["openspiel"], "moves/s"),
        "batch": _summary(rates["batch"], "steps/s", batch_size=batch_size, specialise=True, step_mode="chosen"),
        "seconds_per_side": seconds,
        "load_average": {"start": list(load_before), "end": list(os.getloadavg())},
    }


_BUSY_LOOP = "import time\nend = time.time() + 600\nwhile time.time() < end: pass"


def bench_batch_modes(env_id: str, repeats: int, seconds: float, batch_size: int = BATCH_SIZE) -> dict[str, Any]:
    """BatchEnv specialised (figure (g) is the generic step), with each step forced serial or
    parallel, then the three thread modes with one core kept busy (all specialised).

    The busy core: one more Python process spinning at the same priority (stopped at the end),
    the case the issue asks about ("degrades gracefully when a core is busy").
    """
    import subprocess

    out: dict[str, Any] = {"status": "ok"}
    for mode in ("chosen", "serial", "parallel"):
        out[mode] = bench_batch(env_id, repeats, seconds, batch_size, threads=mode, specialise=True)
    busy = subprocess.Popen([sys.executable, "-c", _BUSY_LOOP])
    try:
        time.sleep(0.2)
        for mode in ("chosen", "serial", "parallel"):
            out[f"busy_core_{mode}"] = bench_batch(env_id, repeats, seconds, batch_size, threads=mode,
                                                   specialise=True)
    finally:
        busy.kill()
        busy.wait()
    return out


class _TrivialMaskedVecEnv:
    """The cost floor of a masked VecEnv: no game logic, fixed-length episodes (built lazily)."""

    @staticmethod
    def build(num_envs: int, obs_size: int, num_actions: int, episode_length: int):
        from gymnasium import spaces
        from stable_baselines3.common.vec_env.base_vec_env import VecEnv

        class TrivialMaskedVecEnv(VecEnv):
            def __init__(self):
                self.render_mode = None
                super().__init__(num_envs, spaces.Box(0, 1, (obs_size,), np.float32), spaces.Discrete(num_actions))
                self.t = np.zeros(num_envs, dtype=np.int64)
                self.masks = np.ones((num_envs, num_actions), dtype=bool)
                self.obs = np.zeros((num_envs, obs_size), dtype=np.float32)

            def reset(self):
                self.t[:] = np.arange(num_envs) % episode_length
                return self.obs.copy()

            def step_async(self, actions):
                self.actions = actions

            def step_wait(self):
                self.t += 1
                done = self.t >= episode_length
                rewards = np.where(done, 1.0, 0.0).astype(np.float32)
                infos = [{"terminal_observation": self.obs[i].copy()} if done[i] else {} for i in range(num_envs)]
                self.t[done] = 0
                return self.obs.copy(), rewards, done, infos

            def action_masks(self):
                return self.masks

            def close(self):
                pass

            def get_attr(self, name, indices=None):
                return [getattr(self, name)] * num_envs

            def set_attr(self, name, value, indices=None):
                setattr(self, name, value)

            def env_method(self, name, *args, indices=None, **kwargs):
                return [getattr(self, name)(*args, **kwargs)[i] for i in range(num_envs)]

            def env_is_wrapped(self, wrapper_class, indices=None):
                return [False] * num_envs

        return TrivialMaskedVecEnv()


PPO_ROUNDS = 4  # alternated rounds of ours and the trivial env per figure


def _env_seconds(env) -> list[float]:
    """Wrap ``env``'s calls that SB3 makes (step_wait, env_method) to add up their CPU time."""
    spent = [0.0]
    for name in ("step_wait", "env_method"):
        call = getattr(env, name)

        def timed(*args, _call=call, **kwargs):
            start = time.process_time()
            try:
                return _call(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - start

        setattr(env, name, timed)
    return spent


def bench_ppo_selfplay(num_envs: int, timesteps: int, rounds: int = PPO_ROUNDS) -> dict[str, Any]:
    """MaskablePPO steps/s on SelfPlayVecEnv (kalah-v0, snapshot opponent) vs a no-logic env.

    The two learners train in alternated rounds (``timesteps / rounds`` each), so that the
    machine's load weighs on both alike; ``ratio`` is the median of the per-round ratios of
    wall time, ``cpu_ratio`` the same in process CPU time (steadier on a loaded machine).
    ``env_cpu_share``: the part of our learner's CPU time spent inside the env's calls
    (``step_wait`` and ``action_masks``), measured in place; what is left is the learner's own.
    """
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        return _not_installed("torch / sb3-contrib (the train extra)", exc)
    from mancala_envs.agents.learned.frozen_policy import PolicyOpponent
    from mancala_envs.training.selfplay import SelfPlayVecEnv

    torch.set_num_threads(1)
    settings = dict(n_steps=128, batch_size=256, n_epochs=4, seed=0, verbose=0,
                    policy_kwargs=dict(net_arch=[64, 64]))
    env = SelfPlayVecEnv(KERNEL_ID, num_envs, opponents=["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, **settings)
    env.pool.entries.clear()
    env.pool.add(PolicyOpponent.snapshot(model, "snapshot"))
    env.reset()
    game = env.game
    trivial = _TrivialMaskedVecEnv.build(num_envs, game.observation_size, game.num_actions, 25)
    floor_model = MaskablePPO("MlpPolicy", trivial, **settings)
    for learner in (model, floor_model):  # warm-up: compiles, allocates
        learner.learn(total_timesteps=num_envs * settings["n_steps"])
    env_cpu = _env_seconds(env)
    per_round = max(num_envs * settings["n_steps"], timesteps // rounds)
    wall: dict[str, list[float]] = {"ours": [], "trivial": []}
    cpu: dict[str, list[float]] = {"ours": [], "trivial": []}
    for _ in range(rounds):
        for name, learner in (("ours", model), ("trivial", floor_model)):
            start, start_cpu = time.perf_counter(), time.process_time()
            learner.learn(total_timesteps=per_round, reset_num_timesteps=False)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    steps = per_round * rounds
    return {"status": "ok", "value": steps / sum(wall["ours"]), "unit": "steps/s",
            "trivial_env_steps_per_s": steps / sum(wall["trivial"]),
            "ratio": statistics.median(t / o for t, o in zip(wall["trivial"], wall["ours"])),
            "cpu_ratio": statistics.median(t / o for t, o in zip(cpu["trivial"], cpu["ours"])),
            "env_cpu_share": env_cpu[0] / sum(cpu["ours"]), "env_cpu_us_per_step": 1e6 * env_cpu[0] / steps,
            "rounds": rounds, "num_envs": num_envs, "timesteps": steps, "torch_threads": 1,
            "opponent": "frozen snapshot of the learner", **{k: v for k, v in settings.items() if k != "policy_kwargs"}}


# -- (c), (d), (e), (f): Python-level loops ----------------------------------------------------
def _repeat_loop(run_for: Callable[[float], tuple[int, int, float]], repeats: int, seconds: float):
    """``run_for(budget)`` -> (count, games, elapsed); count is what ``unit`` counts."""
    run_for(min(0.2, seconds))  # warm-up: imports, kernel loading, first compilations
    rates, counts, games, spent = [], 0, 0, 0.0
    for _ in range(repeats):
        count, n, elapsed = run_for(seconds)
        rates.append(count / elapsed)
        counts += count
        games += n
        spent += elapsed
    return rates, counts, games, spent


def aec_loop(env, budget: float, seed0: int = 0) -> tuple[int, int, int, float]:
    """The standard PettingZoo AEC loop until ``budget`` seconds pass (whole games).

    Returns (env.step calls, moves with an action, games, seconds).
    """
    choice = random.Random(seed0).choice
    steps = moves = games = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < budget:
        env.reset(seed=seed0 + games)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(choice(np.flatnonzero(obs["action_mask"])))
                moves += 1
            env.step(action)
            steps += 1
        games += 1
        elapsed = time.perf_counter() - start
    return steps, moves, games, elapsed


def bench_aec(make_env: Callable[[], Any], repeats: int, seconds: float) -> dict[str, Any]:
    env = make_env()
    moves_seen = []

    def run_for(budget: float):
        steps, moves, games, elapsed = aec_loop(env, budget)
        moves_seen.append((moves, elapsed))
        return steps, games, elapsed

    rates, steps, games, spent = _repeat_loop(run_for, repeats, seconds)
    move_rates = [m / e for m, e in moves_seen[1:]]  # skip the warm-up
    return _summary(
        rates,
        "steps/s",
        steps=steps,
        games=games,
        seconds=spent,
        moves_per_s=statistics.median(move_rates),
        steps_per_game=steps / max(games, 1),
    )


def bench_aec_vs_tictactoe(rounds: int, seconds: float) -> dict[str, Any]:
    """The AEC target's ratio in interleaved rounds: the same lean loop (``aec_loop``) on
    ``make(KERNEL_ID)`` and on PettingZoo's ``tictactoe_v3``, ``seconds`` each, one right after
    the other, their ratio per round (steps/s); the median, spread and best-of are reported.
    Why rounds: a burst of load during one figure's repeats can halve the ratio of two figures
    taken apart, with no change to the code."""
    try:
        _tictactoe_env()
    except ImportError as exc:  # pettingzoo[classic] needs pygame
        return _not_installed("pettingzoo.classic.tictactoe_v3 (needs pygame)", exc)
    import mancala_envs

    def runner(env):
        def run_for(budget: float):
            steps, _, games, elapsed = aec_loop(env, budget)
            return steps, games, elapsed
        return run_for

    load_before = os.getloadavg()
    rates = _interleaved_rates({"aec": runner(mancala_envs.make(KERNEL_ID)), "tictactoe": runner(_tictactoe_env())},
                               rounds, seconds)
    return {
        **_rounds_ratio(rates["aec"], rates["tictactoe"]),
        "aec": _summary(rates["aec"], "steps/s", env_id=KERNEL_ID),
        "tictactoe": _summary(rates["tictactoe"], "steps/s", env="tictactoe_v3"),
        "seconds_per_side": seconds,
        "load_average": {"start": list(load_before), "end": list(os.getloadavg())},
    }


def _openspiel_runner():
    """OpenSpiel's mancala in its leanest idiomatic Python loop (Python's ``random``, no numpy per
    move): (``run_for(budget)`` -> (moves, games, seconds), the game)."""
    import pyspiel

    game = pyspiel.load_game("mancala")
    choice = random.Random(0).choice

    def run_for(budget: float):
        moves = games = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < budget:
            state = game.new_initial_state()  # mancala has no chance nodes
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
            moves += state.move_number()
            games += 1
            elapsed = time.perf_counter() - start
        return moves, games, elapsed

    return run_for, game


def bench_openspiel(repeats: int, seconds: float) -> dict[str, Any]:
    """OpenSpiel's mancala at its leanest idiomatic Python loop (Python's ``random``, no numpy per move)."""
    try:
        import pyspiel  # noqa: F401
    except ImportError as exc:
        return _not_installed("open_spiel (pyspiel)", exc)
    run_for, game = _openspiel_runner()
    rates, moves, games, spent = _repeat_loop(run_for, repeats, seconds)
    return _summary(
        rates,
        "moves/s",
        moves=moves,
        games=games,
        seconds=spent,
        mean_game_length=moves / max(games, 1),
        game=str(game),
        loop="state.apply_action(random.choice(state.legal_actions()))",
    )


def bench_plain_python(repeats: int, seconds: float) -> dict[str, Any]:
    """Kalah(6,4) written by hand in plain Python (``benchmarks/kalah_only.py``)."""
    plain = _bench_module("kalah_only").plain_python_kalah_playouts

    def run_for(budget: float):
        return plain(budget)

    rates, moves, games, spent = _repeat_loop(run_for, repeats, seconds)
    return _summary(rates, "moves/s", moves=moves, games=games, seconds=spent, mean_game_length=moves / max(games, 1))


def bench_state_api(env_id: str, repeats: int, seconds: float) -> dict[str, Any]:
    import mancala_envs

    game = mancala_envs.make_game(env_id)
    choice = random.Random(0).choice
    cap = game.max_plies

    def run_for(budget: float):
        moves = games = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < budget:
            state = game.new_state(games)
            while not state.is_terminal() and (cap is None or state.plies < cap):
                state.apply(choice(state.legal_actions()))
                moves += 1
            games += 1
            elapsed = time.perf_counter() - start
        return moves, games, elapsed

    rates, moves, games, spent = _repeat_loop(run_for, repeats, seconds)
    return _summary(rates, "moves/s", moves=moves, games=games, seconds=spent)


def _tictactoe_env():
    from pettingzoo.classic import tictactoe_v3

    return tictactoe_v3.env()


# -- (i), (j), (k): the search agents -----------------------------------------------------------
def _bench_module(name: str):
    """A module of ``benchmarks/`` (``search``: the search figures; ``kalah_only``: the speed limit)."""
    import importlib

    here = str(ROOT / "benchmarks")
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(name)


def _search_bench():
    return _bench_module("search")


def bench_mcts(env_id: str, repeats: int, sims: int) -> dict[str, Any]:
    import mancala_envs

    fig = _search_bench().bench_mcts(mancala_envs.make_game(env_id), sims, repeats)
    return _summary(fig["samples"], "sims/s", sims=sims)


def bench_openspiel_mcts(repeats: int, sims: int) -> dict[str, Any]:
    try:
        import pyspiel  # noqa: F401
    except ImportError as exc:
        return _not_installed("open_spiel", exc)
    fig = _search_bench().bench_openspiel(sims, repeats)
    return _summary(fig["samples"], "sims/s", sims=sims, game="mancala")


def bench_alphabeta(env_id: str, repeats: int, seconds: float) -> dict[str, Any]:
    import mancala_envs

    fig = _search_bench().bench_alphabeta(mancala_envs.make_game(env_id), seconds, repeats)
    return _summary(fig["samples"], "nodes/s", seconds=seconds, depth=fig["depth"])


# -- (m): the card games against the commit before their speed-up ------------------------------
# per mode: the ids measured by benchmarks/cards.py (its quick budgets), or None to skip
CARDS_PLAN = {"smoke": None, "quick": ("rondell-v0", "widdershins-v0"), "full": "all"}


def bench_cards(mode: str) -> dict[str, Any]:
    """``benchmarks/cards.py``: kernel, MCTS and alpha-beta of the card games, here and at
    ``CARDS_BASELINE``, alternated in one run (without a git checkout: here only)."""
    cards = _bench_module("cards")
    ids = cards.CARD_IDS if CARDS_PLAN[mode] == "all" else CARDS_PLAN[mode]
    try:
        result = cards.run(ids, "quick", CARDS_BASELINE)
    except cards.BaselineError as exc:
        result = {**cards.run(ids, "quick", None), "baseline_error": str(exc)}
    ratios = [fig["ratio"] for row in result["figures"].values() for fig in row.values() if "ratio" in fig]
    return {"status": "ok", **result, "min_ratio": min(ratios) if ratios else None}


# -- the run ----------------------------------------------------------------------------------
def _guard(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return fn()
    except Exception as exc:  # recorded, reported, and turned into exit code 1
        return _failed(exc)


def _ratio(a: dict[str, Any], b: dict[str, Any], key_a: str = "value", key_b: str = "value") -> float | None:
    if a.get("status") != "ok" or b.get("status") != "ok":
        return None
    return a[key_a] / b[key_b]


def _verdict(target: dict[str, Any], measured: float | None) -> dict[str, Any]:
    if measured is None:
        met = None
    elif target.get("lower_is_better"):
        met = measured <= target["value"]
    else:
        met = measured >= target["value"]
    return {**target, "measured": measured, "met": met}


def run(mode: str) -> dict[str, Any]:
    import numba

    import mancala_envs

    numba.set_num_threads(1)
    plan = MODES[mode]
    load_at_start = os.getloadavg()
    started = time.perf_counter()
    figures: dict[str, Any] = {}

    k_rep, k_sec = plan["kernel"]
    figures["kernel"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_kernel(KERNEL_ID, k_rep, k_sec)})

    l_rep, l_sec = plan["kernel_limit"]
    figures["kernel_limit"] = _guard(lambda: bench_kernel_limit(l_rep, l_sec))

    b_rep, b_sec = plan["kernel_by_id"]
    figures["kernel_by_id"] = {env_id: _guard(lambda e=env_id: bench_kernel(e, b_rep, b_sec)) for env_id in mancala_envs.list_envs()}

    p_rep, p_sec = plan["python_loop"]
    figures["aec"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_aec(lambda: mancala_envs.make(KERNEL_ID), p_rep, p_sec)})

    e_rep, e_sec = plan["aec_by_id"]
    figures["aec_by_id"] = {
        env_id: _guard(lambda e=env_id: bench_aec(lambda: mancala_envs.make(e), e_rep, e_sec))
        for env_id in mancala_envs.list_envs()
    }

    def tictactoe():
        try:
            _tictactoe_env()
        except ImportError as exc:  # pettingzoo[classic] needs pygame
            return _not_installed("pettingzoo.classic.tictactoe_v3 (needs pygame)", exc)
        return {"env": "tictactoe_v3", **bench_aec(_tictactoe_env, p_rep, p_sec)}

    figures["tictactoe"] = _guard(tictactoe)
    a_rounds, a_sec = plan["aec_rounds"]
    figures["aec_vs_tictactoe_rounds"] = _guard(lambda: bench_aec_vs_tictactoe(a_rounds, a_sec))
    figures["openspiel"] = _guard(lambda: bench_openspiel(p_rep, p_sec))
    figures["state_api"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_state_api(KERNEL_ID, p_rep, p_sec)})
    figures["plain_python"] = _guard(lambda: bench_plain_python(p_rep, p_sec))

    size = 64 if mode == "smoke" else BATCH_SIZE
    g_rep, g_sec = plan["batch"]
    figures["batch"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_batch(KERNEL_ID, g_rep, g_sec, size)})
    figures["batch_modes"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_batch_modes(KERNEL_ID, g_rep, g_sec, size)})
    r_rounds, r_sec = plan["batch_rounds"]
    figures["batch_vs_openspiel_rounds"] = _guard(
        lambda: {"env_id": KERNEL_ID, **bench_batch_vs_openspiel(r_rounds, r_sec, size)})
    h_rep, h_sec = plan["batch_by_id"]
    figures["batch_by_id"] = {
        env_id: _guard(lambda e=env_id: bench_batch(e, h_rep, h_sec, size)) for env_id in mancala_envs.list_envs()
    }
    # The issue's range of game counts (8 to 64): the env's cost per call is fixed, so the
    # ratio grows with the number of games; every count is reported, the headline is 32.
    figures["ppo_selfplay_by_envs"] = {
        str(envs): _guard(lambda e=envs, t=steps: bench_ppo_selfplay(e, t)) for envs, steps in plan["ppo"]
    }
    by_envs = figures["ppo_selfplay_by_envs"]
    figures["ppo_selfplay"] = by_envs.get("32", next(iter(by_envs.values())))

    m_rep, m_sims = plan["mcts"]
    figures["mcts"] = _guard(lambda: {"env_id": KERNEL_ID, **bench_mcts(KERNEL_ID, m_rep, m_sims)})
    figures["openspiel_mcts"] = _guard(lambda: bench_openspiel_mcts(m_rep, m_sims))
    if plan["mcts_by_id"] is not None:
        i_rep, i_sims = plan["mcts_by_id"]
        figures["mcts_by_id"] = {
            env_id: _guard(lambda e=env_id: bench_mcts(e, i_rep, i_sims)) for env_id in mancala_envs.list_envs()
        }
    if plan["alphabeta_by_id"] is not None:
        a_rep, a_sec = plan["alphabeta_by_id"]
        figures["alphabeta_by_id"] = {
            env_id: _guard(lambda e=env_id: bench_alphabeta(e, a_rep, a_sec)) for env_id in mancala_envs.list_envs()
        }

    if CARDS_PLAN[mode] is not None:
        figures["cards"] = _guard(lambda: bench_cards(mode))

    if plan["cold_start"] is not None:
        figures["cold_start"] = _guard(lambda: bench_cold_start(plan["cold_start"]))

    figures["first_use"] = _guard(first_use_figure)

    def ok_value(fig: dict[str, Any]) -> float | None:
        return fig.get("value") if fig.get("status") == "ok" else None

    limit = figures["kernel_limit"]
    ratios = {
        "kernel_vs_kalah_only": limit.get("ratio_generic"),
        "kernel_specialised_vs_kalah_only": limit.get("ratio_specialised"),
        "batch_vs_openspiel_moves": _ratio(figures["batch"], figures["openspiel"]),
        "batch_specialised_vs_openspiel_moves": _ratio(figures["batch_modes"].get("chosen", {}), figures["openspiel"]),
        "batch_vs_openspiel_interleaved": ok_value(figures["batch_vs_openspiel_rounds"]),
        "batch_vs_plain_python_moves": _ratio(figures["batch"], figures["plain_python"]),
        "kernel_vs_plain_python_moves": _ratio(figures["kernel"], figures["plain_python"]),
        "aec_vs_plain_python_moves": _ratio(figures["aec"], figures["plain_python"], key_a="moves_per_s"),
        "state_api_vs_plain_python_moves": _ratio(figures["state_api"], figures["plain_python"]),
        "openspiel_vs_plain_python_moves": _ratio(figures["openspiel"], figures["plain_python"]),
        "ppo_selfplay_vs_trivial_env": figures["ppo_selfplay"].get("ratio"),
        "ppo_selfplay_vs_trivial_env_by_envs": {n: fig.get("ratio") for n, fig in by_envs.items()},
        "kernel_vs_openspiel_moves": _ratio(figures["kernel"], figures["openspiel"]),
        "aec_vs_tictactoe_steps": _ratio(figures["aec"], figures["tictactoe"]),
        "aec_vs_tictactoe_interleaved": ok_value(figures["aec_vs_tictactoe_rounds"]),
        "aec_vs_openspiel_moves": _ratio(figures["aec"], figures["openspiel"], key_a="moves_per_s"),
        "state_api_vs_openspiel_moves": _ratio(figures["state_api"], figures["openspiel"]),
        "mcts_vs_openspiel_sims": _ratio(figures["mcts"], figures["openspiel_mcts"]),
    }
    measured = {
        "kernel_moves_per_s": ok_value(figures["kernel"]),
        "kernel_vs_kalah_only": ratios["kernel_specialised_vs_kalah_only"],
        # the median of the interleaved rounds' ratios (bench_aec_vs_tictactoe)
        "aec_vs_tictactoe": ratios["aec_vs_tictactoe_interleaved"],
        # like the kernel's target, the specialised step (BatchEnv(..., specialise=True)) counts
        "batch_steps_per_s": ok_value(figures["batch_modes"].get("chosen", {})) if size == BATCH_SIZE else None,
        # the median of the interleaved rounds' ratios (bench_batch_vs_openspiel), not two figures
        # taken minutes apart
        "batch_vs_openspiel": ratios["batch_vs_openspiel_interleaved"] if size == BATCH_SIZE else None,
        "ppo_vs_trivial": ratios["ppo_selfplay_vs_trivial_env"],
        "mcts_vs_openspiel": ratios["mcts_vs_openspiel_sims"],
        "cold_start_seconds": ok_value(figures.get("cold_start", {})),
        "cards_vs_baseline": figures.get("cards", {}).get("min_ratio"),
    }
    targets = {name: _verdict(TARGETS[name], value) for name, value in measured.items()}
    return {
        "schema": SCHEMA_VERSION,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "plan": {
            **{
                k: {"repeats": v[0], "seconds_per_repeat": v[1]}
                for k, v in plan.items()
                if k not in ("ppo", "mcts", "mcts_by_id", "cold_start") and v is not None
            },
            **{k: {"repeats": v[0], "simulations": v[1]} for k in ("mcts", "mcts_by_id") if (v := plan[k]) is not None},
            "ppo": [{"games": envs, "timesteps": steps} for envs, steps in plan["ppo"]],
            "cold_start": {"warm_processes": plan["cold_start"]},
        },
        "machine": machine_info(),
        "load_average": {"start": list(load_at_start), "end": list(os.getloadavg())},
        "targets": targets,
        "figures": figures,
        "ratios": ratios,
        "total_seconds": time.perf_counter() - started,
    }


# -- output -----------------------------------------------------------------------------------
def _fmt_rate(fig: dict[str, Any], key: str = "value") -> str:
    if fig.get("status") != "ok":
        return fig.get("status", "?")
    value = fig[key]
    if value >= 1e6:
        return f"{value / 1e6:8.2f} M"
    if value >= 1e3:
        return f"{value / 1e3:8.1f} k"
    return f"{value:8.1f}  "


def _warm_process_line(case: str, one: dict[str, Any]) -> str:
    """A report line for one warm new process (``first_use.json``'s ``warm_process``)."""
    label = f"(n) warm process, {case}: wall"
    if one.get("status") != "ok" or one.get("wall_seconds") is None:
        return f"{label:<52} {one.get('status')} ({one.get('command')})"
    met = one.get("met")
    verdict = "not measured" if met is None else ("met" if met else "missed")
    return (f"{label:<52} {one['wall_seconds']:8.2f} s  (CPU {one['cpu_seconds']:.2f} s; imports "
            f"{one['import_wall_seconds']:.2f} s; target <= {one['target_wall_seconds']} s: {verdict}; "
            f"{one['command']})")


def _fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _spread(fig: dict[str, Any]) -> str:
    if fig.get("status") != "ok":
        return fig.get("detail", "")
    if "samples" not in fig:  # a single measurement
        return ""
    return f"(min {_fmt_rate(fig, 'worst').strip()}, max {_fmt_rate(fig, 'best').strip()}, n={len(fig['samples'])})"


def _interleaved(fig: dict[str, Any]) -> str:
    """The per-round ratios of interleaved rounds (``_rounds_ratio``): median, spread, best-of."""
    if fig.get("status") != "ok":
        return f"{fig.get('status', 'n/a')} {fig.get('detail', '')}".strip()
    return (f"median {fig['value']:.2f}x over {fig['rounds']} rounds (min {fig['worst']:.2f}x, max {fig['best']:.2f}x; "
            f"best-of {fig['best_of']:.2f}x; load {fig['load_average']['start'][0]:.1f} -> "
            f"{fig['load_average']['end'][0]:.1f})")


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    f = report["figures"]
    lines = [
        f"mancala-envs benchmarks ({report['mode']})  {report['created']}",
        f"python {m['python']}, numba {m['numba']} ({m['numba_threads']} thread), numpy {m['numpy']}, "
        f"pettingzoo {m['pettingzoo']}, open_spiel {m['open_spiel'] or 'not installed'}",
        f"cpu: {m['cpu_model']}, {m['cpu_count']} cpus ({m['cpus_usable']} usable)",
        "",
        f"{'figure':<52} {'median':>10} {'unit':<8} spread",
        "-" * 108,
    ]

    def row(name: str, fig: dict[str, Any], key: str = "value", unit: str | None = None):
        unit = unit or fig.get("unit", "")
        spread = _spread(fig) if key == "value" else ""
        lines.append(f"{name:<52} {_fmt_rate(fig, key):>10} {unit:<8} {spread}")

    row(f"(a) kernel random playouts, {KERNEL_ID}, 1 core", f["kernel"])
    limit = f.get("kernel_limit", {})
    if limit.get("status") == "ok":
        row("(a) same, alternated with the Kalah-only loop: generic", limit["generic"])
        row("    specialised (random_playouts(specialise=True))", limit["specialised"])
        row("    Kalah-only numba loop (benchmarks/kalah_only.py)", limit["kalah_only"])
    else:
        row("(a) kernel vs Kalah-only loop", limit)
    for env_id, fig in f["kernel_by_id"].items():
        row(f"(b) kernel random playouts, {env_id}", fig)
    row(f"(c) AEC env loop, make({KERNEL_ID!r})", f["aec"])
    if f["aec"].get("status") == "ok":
        row("    same loop, counting moves only", f["aec"], key="moves_per_s", unit="moves/s")
    for env_id, fig in f.get("aec_by_id", {}).items():
        row(f"(c) AEC env loop, {env_id}", fig)
    row("(d) AEC env loop, pettingzoo tictactoe_v3", f["tictactoe"])
    aec_rounds = f.get("aec_vs_tictactoe_rounds", {})
    if aec_rounds.get("status") == "ok":
        row(f"(d) interleaved rounds: AEC env loop, {KERNEL_ID}", aec_rounds["aec"])
        row("    AEC env loop, pettingzoo tictactoe_v3", aec_rounds["tictactoe"])
    row("(e) OpenSpiel mancala, lean Python loop", f["openspiel"])
    row("(e) Kalah(6,4) by hand in plain Python", f["plain_python"])
    row(f"(f) State API loop, {KERNEL_ID}", f["state_api"])
    row(f"(g) BatchEnv random play, {KERNEL_ID}, B={BATCH_SIZE}", f["batch"])
    modes = f.get("batch_modes", {})
    if modes.get("status") == "ok":
        row("    specialise=True (option values compiled in)", modes["chosen"])
        row("    specialised, every step serial (one thread)", modes["serial"])
        row("    specialised, every step parallel", modes["parallel"])
        row("    one core busy: threads chosen per step", modes["busy_core_chosen"])
        row("    one core busy: every step serial", modes["busy_core_serial"])
        row("    one core busy: every step parallel", modes["busy_core_parallel"])
    elif modes:
        row("(g) BatchEnv serial / parallel / busy core", modes)
    rounds = f.get("batch_vs_openspiel_rounds", {})
    if rounds.get("status") == "ok":
        row("(g) interleaved rounds: OpenSpiel lean loop", rounds["openspiel"])
        row("    BatchEnv specialise=True, threads chosen", rounds["batch"])
        shares = rounds.get("parallel_share_by_round") or []
        if shares:
            lines.append("    share of its steps run in parallel, by round: " + " ".join(f"{x:.2f}" for x in shares))
    for env_id, fig in f.get("batch_by_id", {}).items():
        row(f"(g) BatchEnv random play, {env_id}", fig)
    for envs, fig in f.get("ppo_selfplay_by_envs", {"?": f["ppo_selfplay"]}).items():
        row(f"(h) MaskablePPO on SelfPlayVecEnv, {envs} games", fig)
        if fig.get("status") == "ok":
            row("    same settings, trivial masked env", fig, key="trivial_env_steps_per_s", unit="steps/s")
    row(f"(i) MCTS, {KERNEL_ID} start, {f['mcts'].get('sims', '?')} simulations", f["mcts"])
    row("(j) OpenSpiel C++ MCTSBot, mancala start", f["openspiel_mcts"])
    for env_id, fig in f.get("mcts_by_id", {}).items():
        row(f"(i) MCTS, {env_id}", fig)
    for env_id, fig in f.get("alphabeta_by_id", {}).items():
        row(f"(k) alpha-beta, {env_id} (depth {fig.get('depth', '?')})", fig)
    cards = f.get("cards")
    if cards is not None and cards.get("status") == "ok":
        lines += ["", "(m) " + "\n    ".join(_bench_module("cards").table(cards)), ""]
    elif cards is not None:
        lines.append(f"{'(m) card games vs ' + CARDS_BASELINE:<52} {cards.get('status')}: {cards.get('detail', '')}")
    cold = f.get("cold_start")
    if cold is not None:
        if cold.get("status") != "ok":
            lines.append(f"{'(l) cold start':<52} {cold.get('status')}: {cold.get('detail', '')}")
        for spec, one in cold.get("agents", {}).items():
            warm, first = one["warm"], one["first_ever"]
            lines.append(f"{f'(l) cold start, {spec}: launch to first move':<52} "
                         f"{warm['launch_to_move_seconds']:8.2f} s  "
                         f"(CPU {warm['cpu_seconds']:.2f} s; import {warm['import_seconds']:.2f} s, "
                         f"move {warm['first_move_seconds']:.2f} s; to the process's end "
                         f"{warm['process_seconds']:.2f} s; "
                         f"first ever, empty cache: {first['launch_to_move_seconds']:.1f} s)")
    first = f.get("first_use", {})
    if first.get("status") != "ok":
        lines.append(f"{'(n) first use':<52} {first.get('status')}: {first.get('detail', '')}")
    for case, one in first.get("cases", {}).items():
        lines.append(f"{f'(n) first use, {case}: CPU from empty caches':<52} "
                     f"{one['empty_caches_cpu_seconds']:8.1f} s  (warm {one['warm_cpu_seconds']:.1f} s; target "
                     f"<= {one['target_cpu_seconds']:.0f} s: {'met' if one['met'] else 'missed'}; "
                     f"{first['file']} of {first['created']})")
    for case, one in first.get("warm_processes", {}).items():
        lines.append(_warm_process_line(case, one))
    r = report["ratios"]
    lines += [
        "",
        "ratios",
        f"  kernel vs Kalah-only numba loop:        {_fmt_ratio(r['kernel_vs_kalah_only'])} generic, "
        f"{_fmt_ratio(r['kernel_specialised_vs_kalah_only'])} specialised (same games: {limit.get('same_games')}); "
        f"in CPU time {_fmt_ratio(limit.get('cpu_ratio_generic'))} / {_fmt_ratio(limit.get('cpu_ratio_specialised'))}",
        f"  BatchEnv vs plain Python (moves/s):     {_fmt_ratio(r['batch_vs_plain_python_moves'])}",
        f"  kernel vs plain Python (moves/s):       {_fmt_ratio(r['kernel_vs_plain_python_moves'])}",
        f"  AEC env vs plain Python (moves/s):      {_fmt_ratio(r['aec_vs_plain_python_moves'])}",
        f"  State API vs plain Python (moves/s):    {_fmt_ratio(r['state_api_vs_plain_python_moves'])}",
        f"  OpenSpiel vs plain Python (moves/s):    {_fmt_ratio(r['openspiel_vs_plain_python_moves'])}",
        f"  BatchEnv vs OpenSpiel (moves/s):        {_fmt_ratio(r['batch_vs_openspiel_moves'])} generic, "
        f"{_fmt_ratio(r['batch_specialised_vs_openspiel_moves'])} specialised (figures taken minutes apart)",
        f"  BatchEnv vs OpenSpiel, interleaved:     {_interleaved(f.get('batch_vs_openspiel_rounds', {}))}",
        f"  PPO self-play vs trivial env (steps/s): {_fmt_ratio(r['ppo_selfplay_vs_trivial_env'])} at 32 games; "
        + ", ".join(f"{n}: {_fmt_ratio(v)}" for n, v in r.get("ppo_selfplay_vs_trivial_env_by_envs", {}).items()),
        f"    in CPU time:                          {_fmt_ratio(f['ppo_selfplay'].get('cpu_ratio'))} at 32 games; "
        f"the env's share of the learner's CPU time: {100 * f['ppo_selfplay'].get('env_cpu_share', float('nan')):.0f}% "
        f"({f['ppo_selfplay'].get('env_cpu_us_per_step', float('nan')):.1f} us per step)",
        f"  kernel vs OpenSpiel (moves/s):          {_fmt_ratio(r['kernel_vs_openspiel_moves'])}",
        f"  AEC env vs tictactoe_v3 (steps/s):      {_fmt_ratio(r['aec_vs_tictactoe_steps'])} (figures taken apart)",
        f"  AEC env vs tictactoe_v3, interleaved:   {_interleaved(f.get('aec_vs_tictactoe_rounds', {}))}",
        f"  AEC env vs OpenSpiel (moves/s):         {_fmt_ratio(r['aec_vs_openspiel_moves'])}",
        f"  State API vs OpenSpiel (moves/s):       {_fmt_ratio(r['state_api_vs_openspiel_moves'])}",
        f"  MCTS vs OpenSpiel MCTSBot (sims/s):     {_fmt_ratio(r['mcts_vs_openspiel_sims'])}",
        "",
        "targets (from the issue; reported, not asserted)",
    ]
    for target in report["targets"].values():
        met = target["met"]
        verdict = "not measured" if met is None else ("met" if met else "NOT met")
        measured = target["measured"]
        if measured is None:
            shown = "n/a"
        elif measured >= 1e3:
            shown = f"{measured / 1e6:.2f} M"
        elif target.get("lower_is_better"):
            shown = f"{measured:.2f} s"
        else:
            shown = f"{measured:.2f}x"
        lines.append(f"  {target['text']}: measured {shown} -> {verdict}")
    load = report["load_average"]
    lines.append("")
    lines.append(f"load average (1, 5, 15 min) at start {load['start']}, at end {load['end']} on "
                 f"{m['cpus_usable']} usable cpus")
    lines.append(f"total time {report['total_seconds']:.1f} s")
    return "\n".join(lines)


def write_json(report: dict[str, Any], out: Path) -> None:
    from mancala_envs.core.files import write_text_atomic

    write_text_atomic(out, json.dumps(report, indent=2, sort_keys=False) + "\n")


def _errors(report: dict[str, Any]) -> list[str]:
    found = []
    for name, fig in report["figures"].items():
        items = fig.items() if name.endswith("_by_id") or name.endswith("_by_envs") else [(name, fig)]
        for label, one in items:
            if one.get("status") == "error":
                found.append(f"{label}: {one.get('detail')}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short run (10-14 minutes from an empty numba cache; the full run measures every card id and takes longer)")
    parser.add_argument("--smoke", action="store_true", help="tiny budgets: checks that every figure runs (tests)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON output (default {DEFAULT_OUT.relative_to(ROOT)})")
    parser.add_argument("--first-use", action="store_true",
                        help="rerun benchmarks/first_use.py first (minutes), else report its last results file")
    args = parser.parse_args(argv)
    if args.first_use:
        _bench_module("first_use").main([])
    report = run("smoke" if args.smoke else "quick" if args.quick else "full")
    print(render(report))
    write_json(report, args.out)
    print(f"wrote {args.out}")
    errors = _errors(report)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
