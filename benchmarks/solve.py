"""Exact values of Kalah(m, n) boards: what ``mancala solve`` reaches on this machine, from a cold start.

    .venv/bin/python benchmarks/solve.py [--boards 6x4,4x4] [--ids ID,...] [--timeout S]
                                         [--threads T] [--memory SIZE] [--out FILE]

Every board runs the command a user would run, ``mancala solve ID pits=m seeds=n --json``, in
its own process with an empty database cache (``MANCALA_ENVS_CACHE`` pointed at a fresh
temporary folder): the wall time of the process includes starting Python, compiling the
search, building the endgame database and solving. The JSON of each run splits the time
(``compile_seconds``, ``endgame_seconds`` for the database build alone, ``seconds`` for the
search). Default boards: every ``pits`` x ``seeds`` from 1x1 to 6x4 (Irving et al. 2000,
Table 9, up to the standard board) for ``kalah-irving2000-v0``, and 6x4 for ``kalah-v0``.
The machine's load (``os.getloadavg``) is recorded before every board, and the CPU time the
process used (``cpu_seconds``, user + system) beside its wall time: timings on a shared
machine are only comparable at a similar load. Results go to ``benchmarks/results/solve.json``
(or ``--out``), written atomically; boards already in the file and not run again keep their
rows, so the slow boards can be run on their own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mancala_envs.core.files import write_text_atomic  # noqa: E402

TABLE_9 = [(m, n) for m in range(1, 7) for n in range(1, 5)]


def solve_board(env_id: str, pits: int, seeds: int, timeout: float, threads: int, memory: str | None) -> dict:
    command = [sys.executable, "-m", "mancala_envs.cli", "solve", env_id, f"pits={pits}", f"seeds={seeds}",
               "--json", "--quiet", "--threads", str(threads), "--time-limit", str(timeout)]
    if memory:
        command += ["--memory", memory]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, MANCALA_ENVS_CACHE=cache)
        start = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 300, cwd=ROOT, env=env)
        except subprocess.TimeoutExpired:
            return {"id": env_id, "pits": pits, "seeds": seeds, "status": "killed", "load": load}
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        return {"id": env_id, "pits": pits, "seeds": seeds, "status": "error", "stderr": done.stderr.strip()[-500:],
                "load": load}
    result = json.loads(done.stdout)
    status = "solved" if result["exact"] else f"over {timeout:g} s"
    return {"id": env_id, "pits": pits, "seeds": seeds, "status": status, "cold_start_seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2), "load": load, **result}


def _merged(path: Path, rows: list[dict]) -> list[dict]:
    """``rows`` after the rows of ``path`` (a previous run) for boards not run again."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))["boards"]
    except (OSError, ValueError, KeyError, TypeError):
        return rows
    fresh = {(r["id"], r["pits"], r["seeds"]) for r in rows}
    return [r for r in old if (r.get("id"), r.get("pits"), r.get("seeds")) not in fresh] + rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=None, help="comma-separated PITSxSEEDS (default: Table 9 up to 6x4)")
    parser.add_argument("--ids", default="kalah-irving2000-v0", help="ids for --boards (default Irving's rules)")
    parser.add_argument("--timeout", type=float, default=600.0, help="time limit per board, s (default 600)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory", default=None, help="table size per board (default: the command's)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "solve.json")
    args = parser.parse_args(argv)
    if args.boards:
        boards = [tuple(int(x) for x in b.split("x")) for b in args.boards.split(",")]
        runs = [(env_id, m, n) for env_id in args.ids.split(",") for m, n in boards]
    else:
        runs = [("kalah-irving2000-v0", m, n) for m, n in TABLE_9] + [("kalah-v0", 6, 4)]
    rows = []
    print(f"{'id':<22}{'board':>6}{'value':>7}{'nodes':>15}{'db hits':>13}{'search s':>10}{'db s':>7}"
          f"{'cold s':>8}{'cpu s':>8}{'load':>6}")
    for env_id, pits, seeds in runs:
        row = solve_board(env_id, pits, seeds, args.timeout, args.threads, args.memory)
        rows.append(row)
        if row["status"] == "solved":
            print(f"{env_id:<22}{f'{pits}x{seeds}':>6}{row['value']:>+7}{row['nodes']:>15,}{row['endgame_hits']:>13,}"
                  f"{row['seconds']:>10.2f}{row['endgame_seconds']:>7.1f}{row['cold_start_seconds']:>8.1f}"
                  f"{row['cpu_seconds']:>8.1f}{row['load']:>6.1f}", flush=True)
        else:
            print(f"{env_id:<22}{f'{pits}x{seeds}':>6}  {row['status']} (load {row['load']:.1f})", flush=True)
    rows = _merged(args.out, rows)
    report = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "timeout": args.timeout, "threads": args.threads,
              "command": "mancala solve ID pits=m seeds=n --json --quiet --threads T --time-limit S", "boards": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
