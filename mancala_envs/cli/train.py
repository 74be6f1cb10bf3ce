"""``mancala train``: MaskablePPO by self-play (``mancala_envs.training``).

    mancala train configs/kalah-v0-quick.yaml [key=value ...]
    mancala train --resume runs/kalah-v0-20261122-050000
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from mancala_envs.training.config import ConfigError, load_config
from mancala_envs.training.report import results_table
from mancala_envs.training.run_folder import RunState, resume_run, start_run


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("train", help="self-play training with evaluation against baselines")
    parser.add_argument("config", nargs="?", help="YAML config (see configs/)")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. total_timesteps=20000")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    command = "mancala train " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["train"] else " ".join(map(shlex.quote, sys.argv))
    if args.resume:
        run_dir = Path(args.resume)
        if args.config or args.overrides or args.options:
            raise ConfigError("--resume continues a run with its saved config; give no config file or overrides")
        config, state = resume_run(run_dir)
    else:
        if not args.config:
            raise ConfigError("give a config file (e.g. configs/kalah-v0-quick.yaml) or --resume RUN_DIR")
        config = load_config(args.config, list(args.overrides) + list(args.options or []))
        run_dir = start_run(config, command)
        state = RunState()
    print(f"run folder: {run_dir}", flush=True)
    # the training loop imports torch and SB3 at its top: the other subcommands load without them
    from mancala_envs.training.train import make_trainer

    report = make_trainer(config, run_dir, state, echo=lambda text: print(text, flush=True)).run()
    print()
    if "learner" in report:
        print(f"learner: {report['learner']}")
    print(results_table(report["final_evaluation"], report["ratings"]))
    if "bare_network_evaluation" in report:
        print("\nthe bare policy network (policy:RUN_DIR, no search):")
        print(results_table(report["bare_network_evaluation"]))
    print(f"\nreport: {run_dir / 'report.md'}")
    return 0
