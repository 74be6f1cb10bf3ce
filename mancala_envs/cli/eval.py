"""``mancala eval``: a trained agent against any agents, seats swapped every game.

    mancala eval runs/kalah-v0-20261122-050000 --against random greedy alphabeta:depth=4 --games 200
    mancala eval model.zip --env kalah-v0 pits=4 --against random

The game comes from the run folder's ``config.yaml`` (also for a model file inside a run
folder); for a model file elsewhere give ``--env ID`` and any options as ``key=value``.
Prints the table and writes ``eval-<time>.csv`` and ``.json`` next to the model (or to
``--out DIR``), atomically (``mancala_envs.training.evaluation.evaluate_saved_model``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mancala_envs.training.config import ConfigError
from mancala_envs.training.evaluation import evaluate_saved_model
from mancala_envs.training.report import results_table


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("eval", help="evaluate a trained model against agents")
    parser.add_argument("model", metavar="MODEL_OR_RUN_DIR")
    parser.add_argument("--against", nargs="+", default=["random", "greedy"], metavar="SPEC", help="agent specs")
    parser.add_argument("--games", type=int, default=100, help="games per opponent (default 100)")
    parser.add_argument("--env", metavar="ID", help="the game, for a model file outside a run folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ladder-games", type=int, default=10, help="games per pair of opponents for their ratings")
    parser.add_argument("--out", metavar="DIR", help="where to write the CSV and JSON (default: beside the model)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ConfigError(f"--games must be at least 1, got {args.games}")
    # key=value words anywhere on the line: the mancala command collects them in args.options
    result = evaluate_saved_model(args.model, args.against, args.games, args.seed, args.ladder_games,
                                  env_id=args.env, game_options=list(args.options),
                                  out_dir=Path(args.out) if args.out else None,
                                  echo=lambda text: print(text, flush=True))
    print(results_table(result.rows, result.ratings))
    print(f"\nwrote {result.csv_path} and .json")
    return 0
