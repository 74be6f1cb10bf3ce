"""``mancala solve``: the exact value and a best move of the start position.

    mancala solve ID [key=value ...] [--json] [--line] [--time-limit S] [--memory SIZE]
                     [--threads T] [--endgame auto|none|N]
        e.g. mancala solve kalah-irving2000-v0 pits=6 seeds=4 --json

Shows the search's progress on stderr (stage, depth, proven bounds, nodes per second). The
Kalah family builds or loads its endgame database first (``mancala_envs.agents.endgame``;
cached on disk, with a progress bar). ``--json`` prints one object with the value, the best
move, the counters (nodes, database hits, cuts) and the seconds split into compile,
database and search. ``--line`` adds a line of perfect play to the end of the game.
``--time-limit``: stop after S seconds with the bounds proven so far (``"exact": false``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from mancala_envs.agents.endgame import EndgameError, endgame_for, load_or_build
from mancala_envs.agents.solver import SolverTable, parse_memory, perfect_line, solve, table_for
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import make_game_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("solve", help="exact value and best move of the start position")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--line", action="store_true", help="also print a line of perfect play to the end")
    p.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds (bounds so far)")
    p.add_argument("--memory", default=None, metavar="SIZE",
                   help="transposition table size, e.g. 512M or 2G (default: a quarter of the free memory, "
                        "at most 1G; 4G for games of 60 or more seeds)")
    p.add_argument("--threads", type=int, default=2, help="search threads sharing the table (default 2)")
    p.add_argument("--endgame", default="auto", metavar="auto|none|N",
                   help="Kalah endgame database: the default size, none, or N seeds on the board")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=run)
    return p


def _endgame(game, choice: str, quiet: bool):
    if choice == "none":
        return None
    seeds = None
    if choice != "auto":
        try:
            seeds = int(choice)
        except ValueError:
            raise MancalaError(f"--endgame must be auto, none or a number of seeds, got {choice!r}") from None
    bar = None if quiet else _ProgressBar("endgame database")
    try:
        if seeds is None:
            table = endgame_for(game, progress=bar)
        else:
            table = load_or_build(game, seeds, progress=bar)
    except EndgameError as err:
        if seeds is not None:
            raise MancalaError(str(err)) from None
        table = None
    finally:
        if bar is not None:
            bar.close()
    return table


class _ProgressBar:
    """A rich progress bar on stderr, fed ``(done, total)``; opened on the first call."""

    def __init__(self, label: str):
        self.label = label
        self.bar = None
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from rich.console import Console  # noqa: PLC0415  (optional dependency)
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _show_progress(quiet: bool):
    """A progress callback for ``solve`` printing one line per step on stderr."""
    if quiet:
        return None

    def show(p) -> None:
        rate = p.nodes / max(p.seconds, 1e-9)
        where = f"depth {p.depth}" if p.stage == "deepening" else f"bounds [{p.lower}, {p.upper}]"
        testing = f"  testing >= {p.extra['testing']:+d}" if "testing" in p.extra else ""
        print(f"  {p.stage:<9} {where:<20} guess {p.guess:+d}  {p.nodes:,} nodes  {rate / 1e6:.2f} M nodes/s  "
              f"{p.seconds:.1f} s{testing}", file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    game = make_game_from_args(args.env_id, args.options)
    if args.time_limit is not None and not args.time_limit > 0:
        raise MancalaError(f"--time-limit must be > 0 seconds, got {args.time_limit}")
    if args.threads < 1:
        raise MancalaError(f"--threads must be at least 1, got {args.threads}")
    try:
        state = game.new_state(0)
        table = table_for(state, parse_memory(args.memory) if args.memory is not None else None)
    except ValueError as err:
        raise MancalaError(f"--memory: {err}") from None
    start = time.perf_counter()
    endgame = _endgame(game, args.endgame, args.quiet)
    built = time.perf_counter()
    # compile (or load from the disk cache) the one search loop the solve will run
    solve(state, table=SolverTable(1 << 12), endgame=endgame, time_limit=1e-3, deepening=False)
    ready = time.perf_counter()
    remaining = None if args.time_limit is None else max(args.time_limit - (ready - start), 1e-3)
    result = solve(state, table=table, threads=args.threads, time_limit=remaining, endgame=endgame,
                   progress=_show_progress(args.quiet))
    out = {
        "env_id": game.env_id,
        "value": result.value,
        "exact": result.exact,
        "lower": result.lower if state.current_player == 0 else -result.upper,
        "upper": result.upper if state.current_player == 0 else -result.lower,
        "best_action": result.best_action,
        "best_move": game.action_to_string(state, result.best_action) if result.best_action >= 0 else None,
        "nodes": result.nodes,
        "nodes_per_second": round(result.nodes / max(result.seconds, 1e-9)),
        "seconds": round(result.seconds, 3),
        "compile_seconds": round(ready - built, 3),
        "endgame_seconds": round(built - start, 3),
        "total_seconds": round(time.perf_counter() - start, 3),
        "endgame_seeds": result.endgame_seeds,
        "endgame_built": bool(endgame is not None and not endgame.loaded),
        "endgame_build_seconds": None if endgame is None else round(endgame.build_seconds, 3),
        "endgame_hits": result.endgame_hits,
        "table_cuts": result.table_cuts,
        "etc_cuts": result.etc_cuts,
        "bound_cuts": result.bound_cuts,
        "expanded": result.expanded,
        "move_cuts": result.move_cuts,
        "first_move_cut_rate": round(result.first_move_cuts / max(result.move_cuts, 1), 4),
        "deferred": result.deferred,
        "iterations": result.iterations,
        "threads": result.threads,
        "table_bytes": result.table_bytes,
        "capped": result.capped,
    }
    if args.line and result.exact:
        out["line"] = [{"action": a, "move": name, "value": v}
                       for a, name, v in perfect_line(state, table=table, endgame=endgame, threads=args.threads)]
    if args.json:
        print(json.dumps(out))
        return 0
    print(state)
    if result.exact:
        who = "player_0 wins" if result.value > 0 else "player_1 wins" if result.value < 0 else "draw"
        print(f"value (player_0 - player_1 under perfect play): {result.value:+} ({who})")
        print(f"best move: {out['best_move']} (action {result.best_action})")
    else:
        print(f"out of time: the value lies in [{out['lower']:+}, {out['upper']:+}]")
    db = f"endgame database {result.endgame_seeds} seeds ({out['endgame_seconds']} s), " if endgame else ""
    print(f"{result.nodes:,} nodes in {result.seconds:.2f} s; {db}compile {out['compile_seconds']} s; "
          f"{result.endgame_hits:,} database hits")
    if "line" in out:
        print("perfect line: " + " ".join(f"{m['move']}" for m in out["line"]))
    return 0

