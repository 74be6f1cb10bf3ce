"""``mancala tournament``: a round robin between agents, with Elo ratings.

    mancala tournament ID --agents SPEC SPEC ... [key=value ...] [--openings N] [--opening-plies LO-HI]
                       [--seed S] [--workers W] [--backend local|ray] [--address ADDR] [--out DIR]
                       [--bootstrap B] [--no-plot] [--json]
        every pair plays the same opening suite, each opening from both seats; prints the
        ratings table (or the JSON with --json) and writes DIR/tournament-ID.csv, .json and .png
"""

from __future__ import annotations

import argparse
import json

from mancala_envs.agents.specs import make_agent
from mancala_envs.evaluation.tournament import json_default, round_robin
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import make_game_from_args

from .arguments import SEED, integer_at_least
from .output import only_json_on_stdout
from .suite_options import add_backend_arguments, add_suite_arguments, check_backend_args, suite_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("tournament", help="round robin between agents; Elo table, CSV, JSON and a plot")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="agent specs, e.g. random greedy alphabeta:depth=4 mcts:sims=1000")
    add_suite_arguments(p)
    p.add_argument("--seed", type=SEED, default=0, help="seed of the suite and the agents (default 0)")
    p.add_argument("--workers", type=integer_at_least(1), default=None, help="processes (default: every core)")
    add_backend_arguments(p)
    p.add_argument("--out", default="tournaments", help="directory for the CSV, JSON and plot (default tournaments/)")
    p.add_argument("--bootstrap", type=integer_at_least(1), default=200, help="bootstrap samples for the Elo intervals (default 200)")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the whole result (ratings, rows, per-pair results) as JSON")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    specs, pairs = [], list(args.options)
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
    check_backend_args(args)
    game = make_game_from_args(args.env_id, pairs)
    with only_json_on_stdout(args.json):
        result = round_robin(game, specs, suite_from_args(game, args), seed=args.seed, workers=args.workers,
                             bootstrap_samples=args.bootstrap, progress=not args.no_progress, backend=args.backend,
                             address=args.address)
        paths = result.write(args.out, plot=not args.no_plot)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=json_default))
        return 0
    print(result.table())
    print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    return 0
