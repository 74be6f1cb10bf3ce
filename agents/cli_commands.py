"""The ``mancala solve`` and ``mancala tournament`` subcommands (wired into ``mancala_envs.cli``).

    mancala solve ID [key=value ...] [--json] [--key state|obs] [--tt-bits B] [--method mtdf|alphabeta]
        the exact value of the start position: {"value", "best_action", "nodes", "seconds", ...}
        e.g. mancala solve kalah-irving2000-v0 pits=4 seeds=3 --json

    mancala tournament ID --agents SPEC SPEC ... [key=value ...] [--games N] [--seed S]
                       [--workers W] [--out DIR] [--bootstrap B] [--no-plot]
        a round robin with a progress bar; prints the ratings table and writes
        DIR/tournament-ID.csv, .json and .png

Each ``add_*_parser(subparsers)`` registers its subparser with ``set_defaults(func=...)``.
The functions read game options from ``args.options`` (the ``key=value`` words the main
parser leaves over) and return the exit status; bad input raises ``MancalaError``, which
the main command prints.
"""

from __future__ import annotations

import argparse
import json

from mancala_envs.core.errors import MancalaError


def _game(env_id: str, pairs: list[str]):
    from mancala_envs.cli import _game_from_args  # the one reader of ID key=value ...

    return _game_from_args(env_id, pairs)[1]


def cmd_solve(args: argparse.Namespace) -> int:
    from .search import SolverAgent, solve

    game = _game(args.env_id, list(getattr(args, "options", None) or []))
    if not 4 <= args.tt_bits <= 30:
        raise MancalaError(f"--tt-bits must be from 4 to 30, got {args.tt_bits}")
    SolverAgent(key=args.key).warmup(game)  # numba compiles the search here: "seconds" is the solve alone
    result = solve(game, key=args.key, tt_bits=args.tt_bits, method=args.method)
    out = {
        "value": result.to_dict()["value"],
        "best_action": result.best_action,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 6),
        "exact": result.exact,
        "env_id": game.env_id,
        "best_move": game.action_to_string(game.new_state(0), result.best_action),
    }
    if args.json:
        print(json.dumps(out))
    else:
        state = game.new_state(0)
        print(state)
        who = "player_0 wins" if result.value > 0 else "player_1 wins" if result.value < 0 else "draw"
        print(f"value (player_0 - player_1 under perfect play): {out['value']:+} ({who})")
        print(f"best move: {out['best_move']} (action {result.best_action})")
        print(f"{result.nodes} nodes in {result.seconds:.3f} s" + ("" if result.exact else "; ply cap reached, not exact"))
    return 0


def add_solve_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("solve", help="exact value and best move of the start position (small boards)")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--key", choices=("state", "obs"), default="state",
                   help="transposition key: the whole state (safe) or both observations (faster; see agents.search)")
    p.add_argument("--tt-bits", type=int, default=22, help="transposition table of 2**B entries (default 22)")
    p.add_argument("--method", choices=("mtdf", "alphabeta"), default="mtdf", help="search driver (default mtdf)")
    p.set_defaults(func=cmd_solve)
    return p


def cmd_tournament(args: argparse.Namespace) -> int:
    from .specs import make_agent
    from .tournament import round_robin

    specs, pairs = [], list(getattr(args, "options", None) or [])
    for word in args.agents:
        # a game option (pits=4) caught by --agents' nargs; agent specs with parameters have a ':'
        (pairs if "=" in word and ":" not in word else specs).append(word)
    if len(specs) < 2:
        raise MancalaError(f"--agents needs at least 2 agent specs, got {specs}")
    if len(set(specs)) != len(specs):
        raise MancalaError(f"--agents must be distinct, got {specs}")
    for spec in specs:
        make_agent(spec)  # fail before playing anything
        if spec.split(":")[0] == "human":
            raise MancalaError("a tournament cannot seat the human agent")
    if args.games < 1:
        raise MancalaError(f"--games must be at least 1, got {args.games}")
    if args.workers is not None and args.workers < 1:
        raise MancalaError(f"--workers must be at least 1, got {args.workers}")
    game = _game(args.env_id, pairs)
    result = round_robin(game, specs, games=args.games, seed=args.seed, workers=args.workers,
                         bootstrap_samples=args.bootstrap, progress=not args.no_progress)
    print(result.table())
    paths = result.write(args.out, plot=not args.no_plot)
    print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def add_tournament_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("tournament", help="round robin between agents; Elo table, CSV, JSON and a plot")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="agent specs, e.g. random greedy alphabeta:depth=4 mcts:sims=1000")
    p.add_argument("--games", type=int, default=100, help="games per pair (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and agents (default 0)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    p.add_argument("--out", default="tournaments", help="directory for the CSV, JSON and plot (default tournaments/)")
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples for the Elo intervals (default 200)")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_tournament)
    return p
