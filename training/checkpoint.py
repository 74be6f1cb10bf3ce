"""The checkpoints of a run, the same for every trainer (PPO, search-bootstrap, RLlib).

A checkpoint is **one zip archive**, ``checkpoints/latest.zip``: the trainer's own members
(SB3's model zip, the value trainer's networks, optimiser and replay buffer, RLlib's
checkpoint folder), written by the trainer's ``write_model(path)``, plus the member
``run-state.json``, the ``RunState`` of the same moment (steps, snapshots, evaluations, the
ladder, the learning curve). Model, optimiser and run state are therefore one file, and one
rename commits them together.

``commit_checkpoint`` writes a checkpoint in these steps (numbered for the fault-injection
hook below):

1. the trainer writes its archive to a temporary name beside ``latest.zip``;
2. ``run-state.json`` is added to it and the file is flushed to disk (``fsync``);
3. the current ``latest.zip`` is copied to ``previous.zip`` (to a temporary name, renamed);
4. the new archive is renamed onto ``latest.zip``: the commit;
5. ``checkpoints/state.json`` (a readable copy of the run state, never read back) is
   rewritten, and snapshot files no kept checkpoint names are removed.

A process killed at any instant leaves ``latest.zip`` whole, the old checkpoint before step 4
and the new one after it, and ``previous.zip`` the one before. A resumed run therefore
repeats no step and loses at most the work since its last checkpoint. A Ctrl-C (SIGINT)
arriving during a commit is held until the commit is done.

``load_checkpoint`` reads a run's checkpoint for ``--resume``:

* ``latest.zip`` whole and with its run state: the run goes on from it (a damaged or
  missing ``state.json`` does not matter: it is rewritten);
* ``latest.zip`` damaged (truncated, bad member, no run state) or missing: it is kept as
  ``latest.zip.bad`` and the run goes on from ``previous.zip``, with a warning naming both;
* neither usable: ``CheckpointError``, saying what was wrong with each and what to do (start
  the run over in a new folder from its saved config). A run is never restarted silently:
  only a folder that never had a checkpoint (a run stopped during its first step) starts
  from the beginning.

Fault injection (for tests): ``MANCALA_CHECKPOINT_FAULT=C:S`` in the environment ends the
process with ``os._exit(KILLED_EXIT)`` right after step ``S`` of its ``C``-th commit, as a
SIGKILL would (nothing is cleaned up); ``after_step``, a module-level hook called with each
step number, does the same in-process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from mancala_envs.core.files import atomic_output, remove_stale_temporaries, write_text_atomic

from .config import ConfigError

STATE_MEMBER = "run-state.json"  # the run state inside a checkpoint archive
COMMIT_STEPS = 5  # the numbered steps of commit_checkpoint
FAULT_ENV = "MANCALA_CHECKPOINT_FAULT"  # "C:S": exit right after step S of the C-th commit
KILLED_EXIT = 137  # the exit status of an injected fault (that of a SIGKILL in a shell)


class CheckpointError(ConfigError):
    """A run folder whose checkpoints cannot be used."""


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


def previous_checkpoint_file(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "previous.zip"


def state_file(run_dir: Path) -> Path:
    """The readable copy of the latest checkpoint's run state (``--resume`` reads the archive)."""
    return run_dir / "checkpoints" / "state.json"


def snapshot_file(run_dir: Path, name: str) -> Path:
    return run_dir / "snapshots" / f"{name}.pt"


# -- fault injection ------------------------------------------------------------------------------
after_step: Callable[[int], None] | None = None  # called after each commit step (tests)
_commits = 0  # commits begun by this process


def _fault_from_environment() -> Callable[[int], None] | None:
    spec = os.environ.get(FAULT_ENV, "")
    if not spec:
        return None
    commit, _, step = spec.partition(":")

    def exit_there(done: int) -> None:
        if _commits == int(commit) and done == int(step):
            os._exit(KILLED_EXIT)

    return exit_there


_environment_fault = _fault_from_environment()


def _reached(step: int) -> None:
    for hook in (after_step, _environment_fault):
        if hook is not None:
            hook(step)


# -- writing --------------------------------------------------------------------------------------
def commit_checkpoint(run_dir: Path, state: RunState, write_model: Callable[[Path], None]) -> None:
    """Write the checkpoint of ``state`` and the model ``write_model(path)`` writes (a zip archive at
    ``path``), keeping the current one as ``previous.zip`` (the steps of the module docstring)."""
    global _commits
    _commits += 1
    latest = checkpoint_file(run_dir)
    latest.parent.mkdir(parents=True, exist_ok=True)
    with _interrupts_held(), atomic_output(latest, suffix=".zip") as tmp:
        write_model(tmp)
        _reached(1)
        with zipfile.ZipFile(tmp, "a", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(STATE_MEMBER, json.dumps(state.__dict__))
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        _reached(2)
        if latest.is_file():
            with atomic_output(previous_checkpoint_file(run_dir), suffix=".zip") as kept:
                shutil.copyfile(latest, kept)
        _reached(3)
    _reached(4)  # atomic_output renamed the new archive onto latest.zip
    _after_commit(run_dir, state)
    _reached(5)


def _after_commit(run_dir: Path, state: RunState) -> None:
    """The readable copy of the state, and the snapshot files no kept checkpoint names removed."""
    write_text_atomic(state_file(run_dir), json.dumps(state.__dict__, indent=1))
    previous, _ = read_checkpoint(previous_checkpoint_file(run_dir))
    _prune_snapshots(run_dir, set(state.snapshots) | set(previous.snapshots if previous else ()))


def _prune_snapshots(run_dir: Path, keep: set[str]) -> None:
    folder = run_dir / "snapshots"
    for path in folder.iterdir() if folder.is_dir() else ():
        if path.is_file() and path.stem not in keep:
            path.unlink()


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT (Ctrl-C) waits until the block is done, then raises ``KeyboardInterrupt`` as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if caught:
        raise KeyboardInterrupt


# -- reading --------------------------------------------------------------------------------------
def read_checkpoint(path: Path) -> tuple[RunState | None, str | None]:
    """``(its run state, None)`` of a whole checkpoint archive, else ``(None, what is wrong)``."""
    if not path.is_file():
        return None, "missing"
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            if damaged is not None:
                return None, f"its member {damaged} is damaged"
            if STATE_MEMBER not in archive.namelist():
                return None, f"it holds no {STATE_MEMBER} (not a checkpoint of this version of mancala-envs)"
            return RunState(**json.loads(archive.read(STATE_MEMBER))), None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, TypeError) as err:
        return None, f"not a readable checkpoint: {err}"


def load_checkpoint(run_dir: Path, warn: Callable[[str], None] = print) -> RunState | None:
    """The run state of the checkpoint a resumed run goes on from (``checkpoint_file(run_dir)`` afterwards),
    or None for a run that never wrote one; a damaged latest checkpoint falls back to the previous one, and
    ``CheckpointError`` says what to do when neither can be used (see the module docstring)."""
    remove_stale_temporaries(run_dir)  # a writer killed mid-file (the run being resumed) leaves one
    folder = checkpoint_file(run_dir).parent
    if not folder.is_dir() or not any(folder.iterdir()):
        _prune_snapshots(run_dir, set())  # taken before the first checkpoint: the run starts over
        return None
    problems = []
    for path in (checkpoint_file(run_dir), previous_checkpoint_file(run_dir)):
        state, problem = read_checkpoint(path)
        if state is not None:
            return _resume_from(run_dir, path, state, problems, warn)
        problems.append(f"{path} is unusable ({problem})")
        if path.is_file():
            path.replace(path.with_name(path.name + ".bad"))
            problems[-1] += f", kept as {path.name}.bad"
    raise CheckpointError(
        f"{str(run_dir)!r} has no usable checkpoint: {'; '.join(problems)}. Start the run over in a new run folder "
        f"from its saved config: mancala train {run_dir / 'config.yaml'}")


def _resume_from(run_dir: Path, path: Path, state: RunState, problems: list[str],
                 warn: Callable[[str], None]) -> RunState:
    latest = checkpoint_file(run_dir)
    if path != latest:  # the previous checkpoint becomes the latest
        with atomic_output(latest, suffix=".zip") as tmp:
            shutil.copyfile(path, tmp)
        warn(f"warning: {'; '.join(problems)}; resuming from {path} (step {state.steps})")
    write_text_atomic(state_file(run_dir), json.dumps(state.__dict__, indent=1))
    previous, _ = read_checkpoint(previous_checkpoint_file(run_dir))
    _prune_snapshots(run_dir, set(state.snapshots) | set(previous.snapshots if previous else ()))
    return state
