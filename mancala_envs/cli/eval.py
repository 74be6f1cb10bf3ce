"""``mancala eval``: a trained agent against any agents, seats swapped every game.

    mancala eval runs/kalah-v0-20261122-050000 --against random greedy alphabeta:depth=4 --games 200
    mancala eval model.zip --env kalah-v0 pits=4 --against random

The game comes from the run folder's ``config.yaml`` (also for a model file inside a run
folder); for a model file elsewhere give ``--env ID`` and any options as ``key=value``.
Prints the table and writes ``eval-<time>.csv`` and ``.json`` next to the model (or to
``--out DIR``), atomically.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mancala_envs.agents.policy import PolicyAgent, resolve_model_path
from mancala_envs.core.files import write_text_atomic
from mancala_envs.registry import make_game, parse_options
from mancala_envs.training.config import ConfigError
from mancala_envs.training.train import EVAL_FIELDS, evaluate, ladder_results, learner_ratings, results_table


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


def _run_dir_of(path: Path) -> Path | None:
    for candidate in (path, path.parent, path.parent.parent):
        if (candidate / "config.yaml").is_file():
            return candidate
    return None


def run(args: argparse.Namespace) -> int:
    import yaml

    # key=value words anywhere on the line: the mancala command collects them in args.options
    game_options = list(args.options)
    model_path = resolve_model_path(args.model)
    run_dir = _run_dir_of(Path(args.model))
    if args.env:
        options = parse_options(args.env, game_options)
        env_id = args.env
    elif run_dir is not None:
        saved = yaml.safe_load((run_dir / "config.yaml").read_text(encoding="utf-8"))
        env_id, options = saved["env_id"], dict(saved.get("options") or {})
        if game_options:
            raise ConfigError("the game comes from the run's config.yaml; give --env ID to evaluate on another one")
    else:
        raise ConfigError(f"{str(args.model)!r} is not inside a run folder; give the game with --env ID [key=value ...]")
    if args.games < 1:
        raise ConfigError(f"--games must be at least 1, got {args.games}")
    game = make_game(env_id, **options)
    learner = PolicyAgent(model_path, name="learner")
    learner.check_game(game)
    specs = list(dict.fromkeys(["random", *args.against]))  # random anchors the ratings
    print(f"evaluating {model_path} on {env_id}: {args.games} games against each of {', '.join(specs)}", flush=True)
    rows = evaluate(game, learner, specs, args.games, args.seed, step=0)
    ladder = ladder_results(game, specs, args.ladder_games, args.seed + 5)
    ratings = learner_ratings(ladder, rows, intervals=True).as_dict()
    print(results_table(rows, ratings))

    out_dir = Path(args.out) if args.out else (run_dir or model_path.parent)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EVAL_FIELDS)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: row.get(k, "") for k in EVAL_FIELDS})
    write_text_atomic(out_dir / f"eval-{stamp}.csv", buffer.getvalue())
    payload: dict[str, Any] = {"model": str(model_path), "env_id": env_id, "options": options, "games": args.games,
                               "seed": args.seed, "rows": rows, "ratings": ratings, "ladder_pairs": ladder}
    write_text_atomic(out_dir / f"eval-{stamp}.json", json.dumps(payload, indent=1) + "\n")
    print(f"\nwrote {out_dir / f'eval-{stamp}.csv'} and .json")
    return 0
