"""``mancala eval``: a trained agent against any agents over an opening suite.

    mancala eval runs/kalah-v0-20261122-050000 --against random greedy alphabeta:depth=4 --openings 100
    mancala eval model.zip --env kalah-v0 pits=4 --against random

Every opening is played from both seats against every opponent; scores come with 95%
intervals bootstrapped over openings. The game comes from the run folder's ``config.yaml``
(also for a model file inside a run folder); for a model file elsewhere give ``--env ID`` and
any options as ``key=value``. Prints the table (opponents the model trained against are
marked) and writes ``eval-<time>.csv`` and ``.json`` next to the model (or to ``--out DIR``),
atomically (``mancala_envs.training.evaluation.evaluate_saved_model``). ``--json`` prints
one report per ``--against`` opponent, one JSON object a line, each with exactly the keys of
``mancala match --json``.

A value-trainer run folder (``algo: search-bootstrap``) plays its search agent,
``alphabeta:depth=D,eval=RUN_DIR`` with the run's ``value.eval_depth`` (what the run's own
report measures); ``--bare`` plays its bare policy network (``policy:RUN_DIR``) instead.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mancala_envs.training.evaluation import evaluate_saved_model
from mancala_envs.training.report import results_table

from .arguments import SEED, integer_at_least
from .output import only_json_on_stdout
from .suite_options import add_backend_arguments, add_suite_arguments, check_backend_args, suite_from_args
from .train import require_train_extra


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("eval", help="evaluate a trained model against agents over an opening suite")
    parser.add_argument("model", metavar="MODEL_OR_RUN_DIR")
    parser.add_argument("--against", nargs="+", default=["random", "greedy"], metavar="SPEC", help="agent specs")
    add_suite_arguments(parser)
    parser.add_argument("--env", metavar="ID", help="the game, for a model file outside a run folder")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the suite and the agents (default 0)")
    parser.add_argument("--ladder-openings", type=integer_at_least(0), default=10,
                        help="openings per pair of opponents for their ratings (default 10; 0: none)")
    add_backend_arguments(parser)
    parser.add_argument("--out", metavar="DIR", help="where to write the CSV and JSON (default: beside the model)")
    parser.add_argument("--bare", action="store_true",
                        help="value-trainer runs: play the bare policy network instead of the search agent")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar or lines on stderr")
    parser.add_argument("--json", action="store_true",
                        help="print one report per --against opponent (a JSON object a line)")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    require_train_extra("mancala eval")
    check_backend_args(args)
    # key=value words anywhere on the line: the mancala command collects them in args.options
    echo = (lambda text: None) if args.json else (lambda text: print(text, flush=True))
    with only_json_on_stdout(args.json):
        result = evaluate_saved_model(args.model, args.against, lambda game: suite_from_args(game, args),
                                      args.ladder_openings, env_id=args.env, game_options=list(args.options),
                                      out_dir=Path(args.out) if args.out else None, echo=echo,
                                      progress=not args.no_progress, backend=args.backend, address=args.address,
                                      bare=args.bare)
    if args.json:
        for row, match in zip(result.rows, result.matches):
            if row["opponent"] in args.against:
                print(json.dumps(match.report()))
        return 0
    print(results_table(result.rows, result.ratings))
    print(f"\nwrote {result.csv_path} and .json")
    return 0
