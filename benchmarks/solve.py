"""Exact values of Kalah(m, n) boards: what ``mancala solve`` reaches on this machine, from a cold start.

    .venv/bin/python benchmarks/solve.py [--boards 6x4,4x4] [--ids ID,...] [--timeout S]
                                         [--threads T] [--memory SIZE] [--endgame auto|N]
                                         [--cache cold|warm] [--out FILE]

Every board runs the command a user would run, ``mancala solve ID pits=m seeds=n --json``, in
its own process. ``--cache cold`` (the default) points ``MANCALA_ENVS_CACHE`` at a fresh
temporary folder, so the wall time of the process includes starting Python, compiling the
search, building the endgame database and solving. ``--cache warm`` uses the user's cache
folder instead, where a database built once (by an earlier run or ``mancala solve``) is
loaded, not rebuilt: the way to time the large Kalah(6,5) database apart from the search.
The JSON of each run splits the time (``compile_seconds``, ``endgame_seconds`` for building or
loading the database, ``seconds`` for the search); a loaded database's build time is read
from its description and reported beside it. Default boards: every ``pits`` x ``seeds`` from
1x1 to 6x4 (Irving et al. 2000, Table 9, up to the standard board) for
``kalah-irving2000-v0``, and 6x4 for ``kalah-v0``.

Long boards (``--boards 6x5 --timeout 1800``) print the solve's progress as it comes (each
null-window search's proven bounds and nodes), stop at the time limit with the bounds proven
so far, and the results file is rewritten after every board, so a run that is stopped or
interrupted still records what it proved (``status`` "over S s" or "interrupted", with
``lower``/``upper`` and the nodes of the last report).

``--midgame K --plies LO-HI`` measures node counts instead of seconds: it solves, in this
process on one thread (whose node count is the same on every run), the ``K`` positions of
an opening suite (``mancala_envs.evaluation.openings.opening_suite``, ``LO`` to ``HI`` random plies, kept only
if a 2-ply search finds neither side ahead by more than a quarter of the seeds) of each board,
and writes their values, node counts and each null-window search's nodes (bounds on the
mover's margin) to ``benchmarks/results/solve_midgame.json`` (or
``--out``). The way to compare a change of the solver (a database size, an ordering) on
positions of a board too large to solve from the start, at any load:
``--boards 6x5 --midgame 3 --plies 8-10 --endgame 23``.

The machine's load (``os.getloadavg``) is recorded before and after every board, and the CPU
time the process used (``cpu_seconds``, user + system) beside its wall time: timings on a
shared machine are only comparable at a similar load. Results go to
``benchmarks/results/solve.json`` (or ``--out``), written atomically; boards already in the
file and not run again keep their rows, so the slow boards can be run on their own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mancala_envs.agents.endgame import default_seeds, load_or_build  # noqa: E402
from mancala_envs.evaluation.openings import opening_suite  # noqa: E402
from mancala_envs.agents.solver import solve  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.registry import make_game  # noqa: E402

TABLE_9 = [(m, n) for m in range(1, 7) for n in range(1, 5)]
# one progress line of ``mancala solve`` (cli/solve.py, _show_progress)
PROGRESS = re.compile(r"^\s*(?P<stage>exact|deepening)\s(?:.*?bounds \[(?P<lower>-?\d+), (?P<upper>-?\d+)\])?"
                      r".*?guess (?P<guess>[+-]?\d+)\s+(?P<nodes>[\d,]+) nodes")


def solve_board(env_id: str, pits: int, seeds: int, args: argparse.Namespace) -> dict:
    command = [sys.executable, "-m", "mancala_envs.cli", "solve", env_id, f"pits={pits}", f"seeds={seeds}",
               "--json", "--threads", str(args.threads), "--time-limit", str(args.timeout),
               "--endgame", args.endgame]
    if args.memory:
        command += ["--memory", args.memory]
    if not args.progress:
        command.append("--quiet")
    row = {"id": env_id, "pits": pits, "seeds": seeds, "cache": args.cache, "load": os.getloadavg()[0]}
    last: dict = {}
    folder = tempfile.TemporaryDirectory() if args.cache == "cold" else nullcontext(None)
    with folder as cache:
        env = dict(os.environ, MANCALA_ENVS_CACHE=cache) if cache else dict(os.environ)
        start = time.perf_counter()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        errors: list[str] = []
        reader = threading.Thread(target=_follow, args=(child.stderr, f"{pits}x{seeds}", last, errors, args.progress),
                                  daemon=True)
        # stdout on a thread of its own too: communicate() would also read stderr, racing the
        # reader above (and closing the stream under it when the solve ends)
        output: list[str] = []
        writer = threading.Thread(target=lambda: output.append(child.stdout.read()), daemon=True)
        reader.start()
        writer.start()
        try:
            child.wait(timeout=args.timeout + 300)
        except (subprocess.TimeoutExpired, KeyboardInterrupt) as stop:
            child.kill()
            child.wait()
            status = "killed" if isinstance(stop, subprocess.TimeoutExpired) else "interrupted"
            return {**row, "status": status, "cold_start_seconds": round(time.perf_counter() - start, 2),
                    "load_after": os.getloadavg()[0], **_last_report(last)}
        wall = time.perf_counter() - start
        reader.join(timeout=5)
        writer.join(timeout=5)
        stdout = "".join(output)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    row["load_after"] = os.getloadavg()[0]
    if child.returncode != 0:
        return {**row, "status": "error", "stderr": "".join(errors).strip()[-500:], **_last_report(last)}
    result = json.loads(stdout)
    status = "solved" if result["exact"] else f"over {args.timeout:g} s"
    return {**row, "status": status, "cold_start_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), **result}


def _follow(stream, board: str, last: dict, errors: list, echo: bool) -> None:
    """Read the solve's stderr: keep its last progress report, echo it, keep other lines for errors."""
    for line in stream:
        match = PROGRESS.match(line)
        if match is None:
            errors.append(line)
            continue
        if match["stage"] == "exact":
            last.update(lower=int(match["lower"]), upper=int(match["upper"]), nodes=int(match["nodes"].replace(",", "")))
        if echo:
            print(f"  {board} {line.strip()}", flush=True)


def _last_report(last: dict) -> dict:
    """What the stopped solve had proved (bounds on the first player's margin) at its last report."""
    if not last:
        return {"lower": None, "upper": None, "note": "no null-window search finished"}
    return {"lower": last["lower"], "upper": last["upper"], "nodes_at_last_report": last["nodes"]}


def _merged(path: Path, rows: list[dict]) -> list[dict]:
    """``rows`` after the rows of ``path`` (a previous run) for boards not run again."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))["boards"]
    except (OSError, ValueError, KeyError, TypeError):
        return rows
    fresh = {(r["id"], r["pits"], r["seeds"]) for r in rows}
    return [r for r in old if (r.get("id"), r.get("pits"), r.get("seeds")) not in fresh] + rows


def _write(args: argparse.Namespace, rows: list[dict]) -> None:
    report = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
              "timeout": args.timeout, "threads": args.threads, "cache": args.cache, "endgame": args.endgame,
              "command": "mancala solve ID pits=m seeds=n --json --threads T --time-limit S --endgame E",
              "boards": _merged(args.out, rows)}
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")


def _print_row(row: dict) -> None:
    board = f"{row['pits']}x{row['seeds']}"
    if row["status"] == "solved":
        print(f"{row['id']:<22}{board:>6}{row['value']:>+7}{row['nodes']:>15,}{row['endgame_hits']:>13,}"
              f"{row['seconds']:>10.2f}{row['endgame_seconds']:>7.1f}{row['cold_start_seconds']:>8.1f}"
              f"{row['cpu_seconds']:>8.1f}{row['load']:>6.1f}", flush=True)
        return
    bounds = "no bound proved" if row.get("lower") is None else f"value in [{row['lower']:+}, {row['upper']:+}]"
    nodes = row.get("nodes", row.get("nodes_at_last_report"))
    nodes = f", {nodes:,} nodes" if nodes is not None else ""
    print(f"{row['id']:<22}{board:>6}  {row['status']}: {bounds}{nodes} (load {row['load']:.1f})", flush=True)


def solve_midgame(env_id: str, pits: int, seeds: int, args: argparse.Namespace) -> dict:
    """Solve ``args.midgame`` openings of ``args.plies`` random plies in this process, one thread: node counts."""
    game = make_game(env_id, pits=pits, seeds=seeds)
    lo, hi = (int(x) for x in args.plies.split("-"))
    suite = opening_suite(game, args.midgame, plies=(lo, hi), seed=0, balanced=2)
    size = None if args.endgame == "auto" else int(args.endgame)
    endgame = None if args.endgame == "none" else load_or_build(game, size if size is not None else default_seeds(game))
    rows = []
    for index in range(len(suite.openings)):
        state = suite.start(index)
        passes: list[dict] = []  # each null-window search: the bounds it left and its nodes

        def record(report, passes=passes):
            if "testing" not in report.extra:
                done = sum(p["nodes"] for p in passes)
                passes.append({"lower": report.lower, "upper": report.upper, "nodes": report.nodes - done})

        result = solve(state, memory=args.memory or "1G", threads=1, endgame=endgame,
                       time_limit=args.timeout, progress=record)
        on_board = endgame.seeds_on_board(state) if endgame is not None else None
        rows.append({"opening": index, "plies": state.plies, "seeds_on_board": on_board, "value": result.value,
                     "exact": result.exact, "nodes": result.nodes, "seconds": round(result.seconds, 2),
                     "first_move_cut_rate": round(result.first_move_cuts / max(result.move_cuts, 1), 4),
                     "passes": passes})
        print(f"  {pits}x{seeds} opening {index}: {on_board} seeds on the board, value {result.value:+} "
              f"{'' if result.exact else '(stopped) '}{result.nodes:,} nodes", flush=True)
    return {"id": env_id, "pits": pits, "seeds": seeds, "endgame_seeds": None if endgame is None else endgame.max_seeds,
            "plies": args.plies, "load": os.getloadavg()[0], "positions": rows,
            "total_nodes": sum(r["nodes"] for r in rows), "all_exact": all(r["exact"] for r in rows)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=None, help="comma-separated PITSxSEEDS (default: Table 9 up to 6x4)")
    parser.add_argument("--ids", default="kalah-irving2000-v0", help="ids for --boards (default Irving's rules)")
    parser.add_argument("--timeout", type=float, default=600.0, help="time limit per board, s (default 600)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory", default=None, help="table size per board (default: the command's)")
    parser.add_argument("--endgame", default="auto", help="the command's --endgame: auto, none or N seeds")
    parser.add_argument("--cache", choices=("cold", "warm"), default="cold",
                        help="cold: an empty database cache per board (default); warm: the user's cache folder")
    parser.add_argument("--quiet", dest="progress", action="store_false", help="no progress lines")
    parser.add_argument("--midgame", type=int, default=0, metavar="K",
                        help="solve K openings of each board in this process, one thread: node counts")
    parser.add_argument("--plies", default="8-10", help="the openings' random plies, LO-HI (with --midgame)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    results = ROOT / "benchmarks" / "results"
    args.out = args.out or results / ("solve_midgame.json" if args.midgame else "solve.json")
    if args.boards:
        boards = [tuple(int(x) for x in b.split("x")) for b in args.boards.split(",")]
        runs = [(env_id, m, n) for env_id in args.ids.split(",") for m, n in boards]
    else:
        runs = [("kalah-irving2000-v0", m, n) for m, n in TABLE_9] + [("kalah-v0", 6, 4)]
    if args.midgame:
        boards_done = []
        for env_id, pits, seeds in runs:
            boards_done.append(solve_midgame(env_id, pits, seeds, args))
            print(f"{env_id} {pits}x{seeds}: {boards_done[-1]['total_nodes']:,} nodes in "
                  f"{len(boards_done[-1]['positions'])} positions", flush=True)
            write_text_atomic(args.out, json.dumps({"machine": platform.platform(), "endgame": args.endgame,
                                                    "boards": boards_done}, indent=2) + "\n")
        print(f"wrote {args.out}")
        return 0
    rows: list[dict] = []
    print(f"{'id':<22}{'board':>6}{'value':>7}{'nodes':>15}{'db hits':>13}{'search s':>10}{'db s':>7}"
          f"{'cold s':>8}{'cpu s':>8}{'load':>6}")
    for env_id, pits, seeds in runs:
        row = solve_board(env_id, pits, seeds, args)
        rows.append(row)
        _print_row(row)
        _write(args, rows)  # after every board: a stopped run keeps what it measured
        if row["status"] == "interrupted":
            break
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
