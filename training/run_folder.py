"""The run folder of ``mancala train``: creating it, resuming from it, and its file layout.

    mancala train configs/kalah-v0-quick.yaml [key=value ...]
    mancala train --resume runs/kalah-v0-20261122-050000

A run folder holds everything about one run:

===========================  ===================================================================
``config.yaml``              the resolved config (file + overrides), used by ``--resume``
``command.txt``, ``meta.json``  the command line, package/torch versions, start time
``checkpoints/latest.zip``   the model at the last checkpoint (written to a temporary name and
                             renamed: a SIGKILL loses at most the work since that checkpoint)
``checkpoints/state.json``   steps, snapshot list, evaluation history at that checkpoint
``checkpoints/previous*``    the checkpoint before (``previous.zip``, ``previous-state.json``):
                             ``--resume`` falls back to it when the latest one is unreadable,
                             says which file was bad and keeps it as ``*.bad``
``snapshots/*.pt``           the frozen snapshots of the learner in the opponent pool
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
import shutil
import sys
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import mancala_envs
from mancala_envs.core.files import atomic_output, remove_stale_temporaries, write_text_atomic

from .config import ConfigError, TrainConfig, config_from_dict, load_yaml


@dataclass
class RunState:
    """What a checkpoint remembers besides the model."""

    steps: int = 0
    snapshots: list[str] = field(default_factory=list)  # names, oldest first (files in snapshots/)
    evals: list[dict[str, Any]] = field(default_factory=list)  # rows of evals.csv
    curve: list[list[float]] = field(default_factory=list)  # [step, mean learner return, episodes]
    ladder: list[dict[str, Any]] = field(default_factory=list)  # the ladder's outcomes (evaluation.ladder_to_json)
    seconds: float = 0.0  # training wall time so far


def checkpoint_file(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "latest.zip"


def state_file(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "state.json"


def snapshot_file(run_dir: Path, name: str) -> Path:
    return run_dir / "snapshots" / f"{name}.pt"


def previous_checkpoint_file(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "previous.zip"


def previous_state_file(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "previous-state.json"


def write_state(run_dir: Path, state: RunState) -> None:
    write_text_atomic(state_file(run_dir), json.dumps(state.__dict__, indent=1))


def save_checkpoint(run_dir: Path, state: RunState, save_model: Callable[[Path], None]) -> None:
    """Keep the current checkpoint as ``previous``, then write the model (``save_model(path)``) and state.

    Every file is replaced atomically, so at any instant the folder holds a model and a state
    file of the same step (the latest pair or the previous one), whatever kills the writer.
    """
    checkpoint_file(run_dir).parent.mkdir(parents=True, exist_ok=True)
    for current, kept in ((checkpoint_file(run_dir), previous_checkpoint_file(run_dir)),
                          (state_file(run_dir), previous_state_file(run_dir))):
        if current.is_file():
            with atomic_output(kept, suffix=current.suffix) as tmp:
                shutil.copyfile(current, tmp)
    save_model(checkpoint_file(run_dir))
    write_state(run_dir, state)


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
    """The saved config and the state of the last good checkpoint (a fresh state if none was written).

    A checkpoint that cannot be read (a truncated zip, a state file of another step) is renamed
    to ``*.bad`` with a warning naming it, and the previous checkpoint takes its place.
    """
    config = config_from_dict(read_saved_config(run_dir))
    remove_stale_temporaries(run_dir)  # a writer killed mid-file (the run being resumed) leaves one
    candidates = [(checkpoint_file(run_dir), state_file(run_dir)),
                  (previous_checkpoint_file(run_dir), previous_state_file(run_dir))]
    states = [_read_state(path) for _, path in candidates]
    if not any(model.is_file() for model, _ in candidates):
        if any(state and state.steps for state in states):
            raise ConfigError(f"{str(run_dir)!r} has a checkpoint state but no checkpoints/latest.zip")
        return config, RunState()
    problems = []
    for (model, _), own_state in zip(candidates, states):
        steps, problem = _model_steps(model)
        if problem is None and steps is None:  # an intact archive that does not record its step: its own state
            steps = own_state.steps if own_state is not None else -1
        state = next((s for s in states if s is not None and s.steps == steps), None)
        if problem is None and state is None:
            problem = f"no state file of its step {steps}"
        if problem is None:
            if model != checkpoint_file(run_dir):  # the previous checkpoint becomes the latest
                shutil.copyfile(model, checkpoint_file(run_dir))
                write_state(run_dir, state)
            if problems:
                warn(f"warning: {'; '.join(problems)}; resuming from the checkpoint of step {steps} ({model.name})")
            return config, state
        problems.append(f"{model} is unusable ({problem})")
        if model.is_file():
            model.replace(model.with_name(model.name + ".bad"))
            problems[-1] += f", kept as {model.name}.bad"
    raise ConfigError(f"{str(run_dir)!r} has no usable checkpoint: {'; '.join(problems)}")


def _read_state(path: Path) -> RunState | None:
    """The state saved in ``path``, or None if it is missing or unreadable."""
    try:
        return RunState(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _model_steps(path: Path) -> tuple[int | None, str | None]:
    """``(num_timesteps, None)`` of an SB3 model zip that reads back whole, ``(None, None)`` of an intact
    ``torch.save`` archive (which does not record the step), else ``(-1, what is wrong)``."""
    if not path.is_file():
        return -1, "missing"
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            if damaged is not None:
                return -1, f"its member {damaged} is damaged"
            if "data" not in archive.namelist() and any(n.endswith("/data.pkl") for n in archive.namelist()):
                return None, None  # a torch.save archive (the value trainer's): intact, its step is in the state file
            return int(json.loads(archive.read("data"))["num_timesteps"]), None
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, EOFError) as err:
        return -1, f"not a readable model file: {err}"
