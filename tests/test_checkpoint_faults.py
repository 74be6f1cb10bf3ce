"""Fault injection: trainers killed at every step of a checkpoint's commit and at random moments, damaged checkpoint
files, Ctrl-C; every run resumes and finishes, repeats no iteration, and (search-bootstrap, deterministic with one
worker) ends with the networks of a run never stopped."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from mancala_envs.training import checkpoint  # noqa: E402
from mancala_envs.training.checkpoint import (COMMIT_STEPS, FAULT_ENV, KILLED_EXIT, checkpoint_file,  # noqa: E402
                                              load_checkpoint, state_file)
from mancala_envs.training.config import load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "kalah-v0-quick.yaml"
ITERATIONS = 4
TINY_VALUE = [f"value.iterations={ITERATIONS}", "value.games=2", "value.depth=1", "value.eval_depth=1",
              "value.workers=1", "value.hidden=[8]", "value.eval_every=100", "eval.openings=1", "eval.final_openings=1",
              "eval.ladder_openings=0", "eval.ladder=[random]"]
TINY_PPO = ["total_timesteps=768", "num_envs=4", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
            "checkpoint_every=256", "pool.snapshot_every=256", "pool.keep_last=1", "eval.every=100000",
            "eval.openings=1", "eval.final_openings=1", "eval.ladder_openings=0", "eval.ladder=[random]"]


def networks(run: Path) -> dict[str, np.ndarray]:
    """The arrays of the run's exported networks (``evaluation.npz``)."""
    with np.load(run / "evaluation.npz") as arrays:
        return {name: arrays[name] for name in arrays.files}


def same_networks(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def mancala(*args: str, fault: str = "", **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(FAULT_ENV, None)
    if fault:
        env[FAULT_ENV] = fault
    exe = shutil.which("mancala")
    command = [exe, *args] if exe else [sys.executable, "-m", "mancala_envs.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=ROOT, stdin=subprocess.DEVNULL,
                          env=env, **kwargs)


def start(tmp_path: Path, config: Path, overrides: list[str], fault: str = "") -> tuple[subprocess.CompletedProcess, Path]:
    out = mancala("train", str(config), *overrides, f"runs_dir={tmp_path}", fault=fault)
    (run,) = tmp_path.glob("kalah-v0-*")
    return out, run


def resumed(run: Path, fault: str = "") -> subprocess.CompletedProcess:
    out = mancala("train", "--resume", str(run), fault=fault)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def iterations_trained(output: str) -> list[int]:
    return [int(n) for n in re.findall(rf"^iteration (\d+)/{ITERATIONS}:", output, re.M)]


# -- search-bootstrap in this process (fast): a forked child killed at each step of its second commit ----------
def _value_trainer(run: Path):
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    config = load_config(QUICK, TINY_VALUE + [f"runs_dir={run.parent}"])
    return SearchBootstrapTrainer(config, run, load_checkpoint(run) or checkpoint.RunState(), echo=lambda text: None)


def _killed_in_second_commit(run: Path, step: int) -> None:
    commits = []

    def kill(done: int) -> None:
        commits.extend([done] if done == 1 else [])
        if len(commits) == 2 and done == step:
            os._exit(KILLED_EXIT)

    checkpoint.after_step = kill
    _value_trainer(run).run()
    os._exit(0)


@pytest.fixture(scope="module")
def value_reference(tmp_path_factory) -> dict[str, np.ndarray]:
    run = tmp_path_factory.mktemp("reference") / "run"
    _value_trainer(run).run()
    return networks(run)


@pytest.mark.parametrize("step", [pytest.param(s, marks=() if s == 4 else pytest.mark.slow)
                                  for s in range(1, COMMIT_STEPS + 1)])
def test_search_bootstrap_killed_at_each_commit_step_resumes_to_the_same_networks(tmp_path, value_reference, step):
    run = tmp_path / "run"
    child = multiprocessing.get_context("fork").Process(target=_killed_in_second_commit, args=(run, step))
    child.start()
    child.join(600)
    assert child.exitcode == KILLED_EXIT
    trainer = _value_trainer(run)
    assert trainer.state.steps == (2 if step >= 4 else 1)  # the commit is the rename of step 4
    trainer.run()
    assert trainer.state.steps == ITERATIONS
    assert same_networks(networks(run), value_reference)


# -- search-bootstrap through `mancala train` ------------------------------------------------------------------
@pytest.fixture(scope="module")
def cli_reference(tmp_path_factory) -> dict[str, np.ndarray]:
    out, run = start(tmp_path_factory.mktemp("cli-reference"), QUICK, TINY_VALUE)
    assert out.returncode == 0, out.stdout + out.stderr
    assert iterations_trained(out.stdout) == [1, 2, 3, 4]
    return networks(run)


@pytest.mark.slow
def test_a_kill_between_the_model_and_the_state_repeats_no_iteration(tmp_path, cli_reference):
    """Case 3 of the audit: killed after the new checkpoint's rename, before ``state.json`` is rewritten."""
    out, run = start(tmp_path, QUICK, TINY_VALUE, fault=f"2:{COMMIT_STEPS - 1}")
    assert out.returncode == KILLED_EXIT and iterations_trained(out.stdout) == [1]  # killed before its echo
    assert json.loads(state_file(run).read_text())["steps"] == 1  # the readable copy lags; the archive says 2
    out = resumed(run)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed from {checkpoint_file(run)} after iteration 2" in out.stdout
    assert iterations_trained(out.stdout) == [3, 4]
    assert same_networks(networks(run), cli_reference)


@pytest.mark.slow
def test_a_truncated_latest_checkpoint_resumes_from_the_previous_one(tmp_path, cli_reference):
    """Case 1 of the audit: the main job's run survives a damaged ``latest.zip``, twice over."""
    out, run = start(tmp_path, QUICK, TINY_VALUE, fault=f"3:{COMMIT_STEPS}")
    assert out.returncode == KILLED_EXIT
    latest = checkpoint_file(run)
    latest.write_bytes(latest.read_bytes()[: latest.stat().st_size // 2])
    out = resumed(run, fault=f"1:{COMMIT_STEPS}")  # from iteration 2, killed again after committing iteration 3
    assert out.returncode == KILLED_EXIT
    assert f"{latest} is unusable" in out.stderr and "kept as latest.zip.bad" in out.stderr
    assert f"resuming from {latest.with_name('previous.zip')} (step 2)" in out.stderr
    assert f"resumed from {latest} after iteration 2" in out.stdout
    out = resumed(run)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed from {latest} after iteration 3" in out.stdout
    assert iterations_trained(out.stdout) == [4] and "unusable" not in out.stderr
    assert same_networks(networks(run), cli_reference)


@pytest.mark.slow
def test_a_damaged_state_file_loses_nothing(tmp_path, cli_reference):
    """Case 2 of the audit: a damaged ``state.json`` neither quarantines the model nor restarts the run."""
    out, run = start(tmp_path, QUICK, TINY_VALUE, fault=f"2:{COMMIT_STEPS}")
    assert out.returncode == KILLED_EXIT
    for fault, after in ((f"1:{COMMIT_STEPS}", 2), ("", 3)):  # the first resume killed after committing iteration 3
        state_file(run).write_text('{"steps": ')
        out = resumed(run, fault=fault)
        assert f"resumed from {checkpoint_file(run)} after iteration {after}" in out.stdout, out.stdout + out.stderr
        assert "unusable" not in out.stderr and not list(run.glob("checkpoints/*.bad"))
    assert iterations_trained(out.stdout) == [4]
    assert out.returncode == 0 and same_networks(networks(run), cli_reference)


@pytest.mark.slow
def test_search_bootstrap_killed_at_random_moments_resumes_to_the_same_networks(tmp_path, cli_reference):
    rng = np.random.default_rng(38)
    exe = shutil.which("mancala")
    args = [exe] if exe else [sys.executable, "-m", "mancala_envs.cli"]
    command = [*args, "train", str(QUICK), *TINY_VALUE, f"runs_dir={tmp_path}"]
    for delay in rng.uniform(2.0, 12.0, size=3):
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL)
        time.sleep(delay)
        proc.kill()
        proc.wait(60)
        runs = list(tmp_path.glob("kalah-v0-*"))
        if runs:
            command = [*args, "train", "--resume", str(runs[0])]
    (run,) = tmp_path.glob("kalah-v0-*")
    out = resumed(run)
    assert out.returncode == 0, out.stdout + out.stderr
    assert same_networks(networks(run), cli_reference)


def _ctrl_c_as_in_a_terminal() -> None:
    """The child starts with Ctrl-C's default action, as a command typed in a terminal does: an ignored
    SIGINT is inherited through exec (a test process may have come to ignore it), and Python installs its
    KeyboardInterrupt handler only where SIGINT is not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_keeps_the_checkpoint_and_prints_the_resume_command(tmp_path):
    exe = shutil.which("mancala")
    args = [exe] if exe else [sys.executable, "-m", "mancala_envs.cli"]
    # a session of its own: Ctrl-C in a terminal reaches the whole process group, the workers too
    proc = subprocess.Popen([*args, "train", str(QUICK), *TINY_VALUE, "value.workers=2", f"runs_dir={tmp_path}"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_ctrl_c_as_in_a_terminal)
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None:
        if any(p.is_file() for p in tmp_path.glob("kalah-v0-*/checkpoints/state.json")):
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    (run,) = tmp_path.glob("kalah-v0-*")
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    steps = load_checkpoint(run).steps
    assert f"interrupted: the run keeps its checkpoint after iteration {steps}; continue it with:\n" \
           f"  mancala train --resume {run}" in stderr
    out = resumed(run)
    assert out.returncode == 0, out.stdout + out.stderr
    assert iterations_trained(out.stdout) == list(range(steps + 1, ITERATIONS + 1))


# -- PPO: killed at each commit step, through `mancala train` --------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("step", range(1, COMMIT_STEPS + 1))
def test_ppo_killed_at_each_commit_step_resumes_from_the_old_or_the_new_checkpoint(tmp_path, step):
    pytest.importorskip("sb3_contrib")
    out, run = start(tmp_path, ROOT / "configs" / "kalah-v0.yaml", TINY_PPO, fault=f"2:{step}")
    assert out.returncode == KILLED_EXIT, out.stdout + out.stderr
    out = resumed(run)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = 512 if step >= 4 else 256  # the second checkpoint is committed at step 4
    assert f"resumed from {checkpoint_file(run)} at step {kept}" in out.stdout
    assert json.loads((run / "report.json").read_text())["steps"] == 768
    state = load_checkpoint(run)
    assert state.steps == 768 and {p.stem for p in (run / "snapshots").iterdir()} >= set(state.snapshots)
