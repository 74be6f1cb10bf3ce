"""The run folder of ``mancala train``: creating it, resuming from it, and its file layout.

    mancala train configs/kalah-v0-quick.yaml [key=value ...]
    mancala train --resume runs/kalah-v0-20261122-050000

A run folder holds everything about one run:

===========================  ===================================================================
``config.yaml``              the resolved config (file + overrides), used by ``--resume``
``command.txt``, ``meta.json``  the command line, package/torch versions, start time
``checkpoints/latest.zip``   the last checkpoint: the model, the optimiser and the run state (steps,
                             snapshot list, evaluation history) in one archive, committed by one
                             rename (``mancala_envs.training.checkpoint``)
``checkpoints/previous.zip`` the checkpoint before: ``--resume`` falls back to it when the latest
                             one is damaged, says which file was bad and keeps it as ``*.bad``
``checkpoints/state.json``   a readable copy of the latest checkpoint's run state
``snapshots/``               the frozen snapshots of the learner in the opponent pool (``*.pt``;
                             RLlib's ``*.npz``), as long as a kept checkpoint names them
``evals.csv``                every evaluation: step, opponent (and whether it is in the training
                             pool), games and distinct games, wins/draws/losses, the score with
                             its 95% interval over openings, the score per seat, the learner's Elo
``tb/``                      TensorBoard: SB3's training statistics plus ``eval/*``
``final_model.zip``          the trained model (``policy:RUN_DIR`` plays it)
``report.md``, ``report.json``  final table over the final opening suite (saved in the report):
                             scores per opponent and seat, Elo ratings with intervals over
                             openings (random = 0)
``learning_curve.png``       the learner's mean self-play return over training steps
``scores.png``               score against each ladder agent over training steps
===========================  ===================================================================

yaml (and torch, for the version in ``meta.json``) come with the train extra; they are
imported where used, so the command line loads without them.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import mancala_envs
from mancala_envs.core.files import write_text_atomic

from .checkpoint import RunState, load_checkpoint
from .config import ConfigError, TrainConfig, config_from_dict, load_yaml


def read_saved_config(run_dir: Path) -> dict[str, Any]:
    """The raw mapping of the run's ``config.yaml``."""
    config_path = run_dir / "config.yaml"
    if not config_path.is_file():
        raise ConfigError(f"{str(run_dir)!r} is not a run folder: it has no config.yaml")
    return load_yaml(config_path.read_text(encoding="utf-8"))


def run_folder_of(path: Path) -> Path | None:
    """The run folder that is ``path`` or holds it (a model file, a checkpoint), or None."""
    for candidate in (path, path.parent, path.parent.parent):
        if (candidate / "config.yaml").is_file():
            return candidate
    return None


def start_run(config: TrainConfig, command: str) -> Path:
    """A new run folder (named after the config and the time) with its config, command and meta files."""
    import torch
    import yaml

    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    run_dir = Path(config.runs_dir) / f"{config.name or config.env_id}-{stamp}"
    suffix = 1
    while run_dir.exists():
        suffix += 1
        run_dir = Path(config.runs_dir) / f"{config.name or config.env_id}-{stamp}-{suffix}"
    run_dir.mkdir(parents=True)
    write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    write_text_atomic(run_dir / "command.txt", command + "\n")
    meta = {"package": "mancala-envs", "version": mancala_envs.__version__, "created": stamp,
            "python": sys.version.split()[0], "torch": torch.__version__}
    write_text_atomic(run_dir / "meta.json", json.dumps(meta, indent=1) + "\n")
    return run_dir


def resume_run(run_dir: Path, warn: Callable[[str], None] = print) -> tuple[TrainConfig, RunState]:
    """The saved config and the state of the checkpoint the run goes on from (``checkpoint.load_checkpoint``:
    a damaged latest checkpoint falls back to the previous one; a run that never wrote one starts over, and
    one whose checkpoints are all unusable stops with ``CheckpointError``)."""
    config = config_from_dict(read_saved_config(run_dir))
    return config, load_checkpoint(run_dir, warn) or RunState()
