"""``mancala train``: train an agent from a YAML config (``mancala_envs.training``).

    mancala train kalah-v0-quick [key=value ...]            the main job, a packaged config
    mancala train configs/kalah-v0-quick.yaml value.iterations=5 value.policy.teacher=plain
    mancala train kalah-v0-quick value.games=40 --dry-run    print the resolved config and exit
    mancala train --resume runs/kalah-v0-20261122-050000

CONFIG is a YAML file or the name of a config installed with the package (the files of the
repository's ``configs/``: ``kalah-v0-quick``, ``kalah-v0``, ...). Its ``algo`` picks the
trainer (``mancala_envs.training.algorithms``): the main job, ``search-bootstrap``, trains a learned
evaluation from self-play search and evaluates it inside alpha-beta and as a bare policy over
an opening suite; ``ppo`` and ``rllib_ppo`` train a policy network by self-play. An override
of a key the algorithm does not read is refused. Training needs the ``train`` extra; without
it the command says how to install it.

Ctrl-C abandons the step under way (a checkpoint being written is finished first), keeps the
last checkpoint, prints the command that continues the run and exits with status 130.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from mancala_envs.core.extras import require_extra
from mancala_envs.training.config import ConfigError, load_config, packaged_configs
from mancala_envs.training.report import results_table
from mancala_envs.training.checkpoint import RunState, checkpoint_file, read_checkpoint
from mancala_envs.training.run_folder import resume_run, start_run
from mancala_envs.training.train import make_trainer  # imports the chosen trainer (torch, SB3, Ray) only when called

# What the training loop imports (torch, SB3, TensorBoard's writer, rich): checked up front.
INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it)
TRAIN_MODULES = ("yaml", "torch", "stable_baselines3", "sb3_contrib", "tensorboard", "rich")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("train", help="self-play training with evaluation against baselines")
    parser.add_argument("config", nargs="?", metavar="CONFIG",
                        help="YAML config file, or the name of a packaged config (e.g. kalah-v0, kalah-v0-quick)")
    parser.add_argument("overrides", nargs="*", metavar="key=value",
                        help="config overrides, e.g. value.iterations=5 (keys the config's algo reads)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    parser.add_argument("--dry-run", action="store_true", help="print the resolved config (YAML) and exit")
    parser.set_defaults(func=run)
    return parser


def interrupted(run_dir: Path, algo: str) -> str:
    """What Ctrl-C left: the last checkpoint and the command that continues the run."""
    state, _ = read_checkpoint(checkpoint_file(run_dir))
    unit = "iteration" if algo == "search-bootstrap" else "step"
    kept = f"its checkpoint after {unit} {state.steps}" if state else "no checkpoint yet (it resumes from the start)"
    return (f"interrupted: the run keeps {kept}; continue it with:\n"
            f"  mancala train --resume {shlex.quote(str(run_dir))}")


def require_train_extra(purpose: str) -> None:
    for module in TRAIN_MODULES:
        require_extra(module, "train", purpose)


def run(args: argparse.Namespace) -> int:
    command = "mancala train " + " ".join(shlex.quote(a) for a in sys.argv[2:]) if sys.argv[1:2] == ["train"] else " ".join(map(shlex.quote, sys.argv))
    require_extra("yaml", "train", "mancala train")
    if args.resume:
        run_dir = Path(args.resume)
        if args.config or args.overrides or args.options:
            raise ConfigError("--resume continues a run with its saved config; give no config file or overrides")
        require_train_extra("mancala train")
        config, state = resume_run(run_dir, warn=lambda text: print(text, file=sys.stderr, flush=True))
    else:
        if not args.config:
            raise ConfigError("give a config file (e.g. configs/kalah-v0-quick.yaml), the name of a packaged "
                              f"config ({', '.join(sorted(packaged_configs()))}) or --resume RUN_DIR")
        require_train_extra("mancala train")
        config = load_config(args.config, list(args.overrides) + list(args.options or []))
        if args.dry_run:
            import yaml

            print(yaml.safe_dump(config.to_dict(), sort_keys=False), end="")
            return 0
        run_dir = start_run(config, command)
        state = RunState()
    print(f"run folder: {run_dir}", flush=True)
    try:
        report = make_trainer(config, run_dir, state, echo=lambda text: print(text, flush=True)).run()
    except KeyboardInterrupt:
        print(f"\n{interrupted(run_dir, config.algo)}", file=sys.stderr, flush=True)
        return INTERRUPTED
    print()
    if "learner" in report:
        print(f"learner: {report['learner']}")
    print(results_table(report["final_evaluation"], report["ratings"]))
    if "bare_network_evaluation" in report:
        print("\nthe bare policy network (policy:RUN_DIR, no search):")
        print(results_table(report["bare_network_evaluation"]))
    print(f"\nreport: {run_dir / 'report.md'}")
    return 0
