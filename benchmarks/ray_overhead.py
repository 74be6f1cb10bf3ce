"""The Ray backend's overhead on one machine, and a projection of a big tournament onto a cluster.

    .venv/bin/python benchmarks/ray_overhead.py                     # both tournaments, 2 workers
    .venv/bin/python benchmarks/ray_overhead.py --openings 10 --workers 2 --out FILE

For each tournament (alpha-beta agents; MCTS agents) it plays the same seeded round robin
(``round_robin``) on the local backend (forked processes) and on a local Ray with the same
number of CPUs, checks that the ``results`` are equal, and reports games/s per worker and the
overhead ratio (Ray's seconds over local seconds). Ray is timed twice: the first tournament
(workers start, unpickle the agents and compile numba's kernels) and a second one on the
same, now warm, workers (the steady state of a long tournament).

Then it times MCTS at 10,000 simulations per move on this machine (seconds per move, plies
per game from the MCTS tournament's games) and projects a 10-agent, 500-opening round robin
(45 pairs x 1000 games) at that setting onto 1, 8 and 64 machines, with the assumptions
printed beside the figures. Results go to ``benchmarks/results/ray_overhead.json`` through a
temporary file; ``os.getloadavg()`` is recorded at the start and the end. On a shared machine,
run it when no other timing run is going.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import ray  # noqa: E402

from mancala_envs.agents import make_agent  # noqa: E402
from mancala_envs.evaluation.tournament import json_default, round_robin  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.registry import make_game  # noqa: E402

TOURNAMENTS = {
    "alpha-beta": ["alphabeta:depth=3", "alphabeta:depth=4", "alphabeta:depth=5"],
    "mcts": ["mcts:sims=200", "mcts:sims=400", "mcts:sims=800"],
}
PROJECTION = {"agents": 10, "openings": 500, "sims": 10_000, "machines": (1, 8, 64), "cores": (2, 16)}


def results_of(result) -> list:
    return json.loads(json.dumps(result.to_dict()["results"], default=json_default))


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def measure_tournament(name: str, specs: list[str], openings: int, workers: int) -> dict:
    games = math.comb(len(specs), 2) * 2 * openings
    common = dict(openings=openings, seed=1, workers=workers, bootstrap_samples=10)
    cold, cold_s = timed(round_robin, "kalah-v0", specs, **common)  # compiles (or loads) in this process
    local, local_s = timed(round_robin, "kalah-v0", specs, **common)
    first, first_s = timed(round_robin, "kalah-v0", specs, backend="ray", **common)
    warm, warm_s = timed(round_robin, "kalah-v0", specs, backend="ray", **common)
    equal = results_of(cold) == results_of(local) == results_of(first) == results_of(warm)
    plies = [len(actions) for m in local.matches for _, actions in m.games_played]
    row = {
        "tournament": name, "agents": specs, "games": games, "workers": workers, "equal_results": equal,
        "local_first_s": round(cold_s, 2), "local_s": round(local_s, 2), "ray_first_s": round(first_s, 2), "ray_warm_s": round(warm_s, 2),
        "local_games_per_s_per_worker": round(games / local_s / workers, 3),
        "ray_warm_games_per_s_per_worker": round(games / warm_s / workers, 3),
        "overhead_first": round(first_s / cold_s, 3), "overhead_warm": round(warm_s / local_s, 3),
        "mean_plies": float(np.mean(plies)),
    }
    print(f"{name}: {games} games on {workers} workers; local first {cold_s:.1f} s, local {local_s:.1f} s, "
          f"Ray first {first_s:.1f} s, "
          f"Ray warm {warm_s:.1f} s; games/s per worker {row['local_games_per_s_per_worker']} local, "
          f"{row['ray_warm_games_per_s_per_worker']} Ray (warm); overhead x{row['overhead_warm']} warm, "
          f"x{row['overhead_first']} first; results equal: {equal}", flush=True)
    return row


def seconds_per_move(sims: int, moves: int = 6) -> float:
    """Seconds per MCTS move at ``sims`` simulations, over the first ``moves`` plies of a game."""
    game = make_game("kalah-v0")
    agent = make_agent(f"mcts:sims={sims}", seed=0)
    agent.warmup(game)
    state = game.new_state(0)
    start = time.perf_counter()
    for _ in range(moves):
        state.apply(agent.act(state.clone()))
    return (time.perf_counter() - start) / moves


def projection(move_s: float, plies: float, overhead: float) -> dict:
    p = PROJECTION
    pairs = math.comb(p["agents"], 2)
    games = pairs * 2 * p["openings"]
    pair_s = 2 * plies * move_s * overhead  # one task: both games of an opening
    table = []
    for cores in p["cores"]:
        for machines in p["machines"]:
            workers = machines * cores
            busy = min(workers, p["openings"])  # the matches run one after another: <= 500 tasks at once
            rounds = math.ceil(p["openings"] / busy)
            hours = pairs * rounds * pair_s / 3600
            table.append({"machines": machines, "cores_per_machine": cores, "workers": workers,
                          "busy_workers": busy, "hours": round(hours, 2)})
    return {"games": games, "pairs": pairs, "seconds_per_move": round(move_s, 4), "plies_per_game": round(plies, 1),
            "overhead": overhead, "core_hours": round(games * plies * move_s * overhead / 3600, 1), "table": table}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--openings", type=int, default=10, help="openings per pair (default 10)")
    parser.add_argument("--workers", type=int, default=2, help="local processes = Ray CPUs (default 2)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ray_overhead.json"))
    args = parser.parse_args(argv)
    load_start = os.getloadavg()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    rows = [measure_tournament(name, specs, args.openings, args.workers) for name, specs in TOURNAMENTS.items()]
    move_s = seconds_per_move(PROJECTION["sims"])
    mcts = rows[-1]
    plan = projection(move_s, mcts["mean_plies"], max(1.0, mcts["overhead_warm"]))
    print(f"MCTS 10k sims: {move_s:.3f} s per move on this machine, {mcts['mean_plies']:.0f} plies per game "
          f"(MCTS tournament); {plan['games']} games = {plan['core_hours']} core-hours")
    for line in plan["table"]:
        print(f"  {line['machines']:>3} machines x {line['cores_per_machine']:>2} cores: {line['hours']:>8.2f} h "
              f"({line['busy_workers']} of {line['workers']} workers busy)")
    payload = {"load_start": load_start, "load_end": os.getloadavg(), "ray": ray.__version__, "rows": rows,
               "projection": plan, "assumptions": [
                   "per-core speed of this machine; seconds per move measured over the first plies of a game",
                   "plies per game from the MCTS tournament's games (sims 200-800)",
                   "overhead: the warm Ray/local ratio of the MCTS tournament (at least 1)",
                   "matches of a round robin are played one after another, each split into one task per opening "
                   "pair, so at most 500 workers are busy at once",
               ]}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(args.out), json.dumps(payload, indent=1) + "\n")
    print(f"wrote {args.out}")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
