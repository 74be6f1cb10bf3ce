"""Checkpoints of a run folder (``training.checkpoint``): committed whole, the previous one kept, --resume falling
back to it when the latest is bad, and never a silent restart."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from mancala_envs.training import checkpoint  # noqa: E402
from mancala_envs.training.checkpoint import (  # noqa: E402
    COMMIT_STEPS,
    CheckpointError,
    RunState,
    checkpoint_file,
    commit_checkpoint,
    load_checkpoint,
    previous_checkpoint_file,
    state_file,
)
from mancala_envs.training.run_folder import resume_run  # noqa: E402


def fake_model(path: Path, steps: int) -> None:
    """A model archive that says which step it is of (to check a checkpoint never mixes two steps)."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model.json", json.dumps({"steps": steps}))
        archive.writestr("policy.pth", b"\0" * 4096)


def model_steps(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("model.json"))["steps"]


def commit(run: Path, steps: int) -> None:
    commit_checkpoint(run, RunState(steps=steps, snapshots=[f"s{steps}"]), lambda path: fake_model(path, steps))


def run_with_two_checkpoints(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("env_id: kalah-v0\neval: {ladder: [random]}\n")
    for steps in (256, 512):
        commit(run, steps)
    return run


def test_a_checkpoint_holds_its_state_and_keeps_the_one_before(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    assert model_steps(checkpoint_file(run)) == 512 and model_steps(previous_checkpoint_file(run)) == 256
    assert checkpoint.read_checkpoint(previous_checkpoint_file(run))[0].steps == 256
    assert json.loads(state_file(run).read_text())["steps"] == 512  # the readable copy
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    assert state.steps == 512 and state.snapshots == ["s512"] and warnings == []


def test_a_truncated_latest_checkpoint_falls_back_to_the_previous_one(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    latest = checkpoint_file(run)
    latest.write_bytes(latest.read_bytes()[:300])  # a disk that filled up, a copy cut short
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    assert state.steps == 256 and state.snapshots == ["s256"]
    (warning,) = warnings
    assert f"{latest} is unusable (not a readable checkpoint" in warning
    assert f"kept as latest.zip.bad; resuming from {previous_checkpoint_file(run)} (step 256)" in warning
    assert (latest.parent / "latest.zip.bad").is_file()
    assert model_steps(latest) == 256  # what the trainer loads
    assert json.loads(state_file(run).read_text())["steps"] == 256
    _, again = resume_run(run, warn=warnings.append)  # and the next resume goes on quietly
    assert again.steps == 256 and len(warnings) == 1


def test_a_damaged_state_file_neither_quarantines_the_model_nor_restarts_the_run(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    state_file(run).write_text('{"steps": 5')  # cut short
    for _ in range(2):
        warnings = []
        _, state = resume_run(run, warn=warnings.append)
        assert state.steps == 512 and warnings == []
    assert json.loads(state_file(run).read_text())["steps"] == 512 and model_steps(checkpoint_file(run)) == 512
    state_file(run).unlink()
    assert resume_run(run)[1].steps == 512


def test_no_usable_checkpoint_stops_with_what_to_do_every_time(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    checkpoint_file(run).write_bytes(b"garbage")
    previous_checkpoint_file(run).write_bytes(b"")
    for _ in range(2):  # the second resume does not start the run over either
        with pytest.raises(CheckpointError, match=r"has no usable checkpoint: .*latest.zip is unusable .*previous.zip "
                                                  rf"is unusable .*Start the run over in a new run folder from its saved "
                                                  rf"config: mancala train {run / 'config.yaml'}"):
            resume_run(run, warn=lambda text: None)


def test_a_state_without_its_checkpoint_stops_too(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    checkpoint_file(run).unlink()
    previous_checkpoint_file(run).unlink()
    with pytest.raises(CheckpointError, match="latest.zip is unusable \\(missing\\)"):
        resume_run(run)


def test_a_run_stopped_before_its_first_checkpoint_starts_over(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / ".latest.zip.x1.tmp.zip").write_bytes(b"half")  # killed while writing the first
    (run / "snapshots").mkdir()
    (run / "snapshots" / "snapshot-256.pt").write_bytes(b"")  # taken before it: no checkpoint names it
    (run / "config.yaml").write_text("env_id: kalah-v0\n")
    _, state = resume_run(run)
    assert state == RunState() and not list((run / "snapshots").iterdir())
    assert not list((run / "checkpoints").iterdir())


def test_snapshot_files_stay_while_a_kept_checkpoint_names_them(tmp_path):
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    for steps in (256, 512, 768):
        (run / "snapshots" / f"s{steps}.pt").write_bytes(b"")
        commit(run, steps)
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == ["s512.pt", "s768.pt"]


def _killed_at(run: Path, step: int) -> None:
    """A child process: the third checkpoint's commit ends the process (no cleanup) right after ``step``."""
    def kill(done: int) -> None:
        if done == step:
            os._exit(checkpoint.KILLED_EXIT)

    checkpoint.after_step = kill
    commit(run, 768)
    os._exit(0)


@pytest.mark.parametrize("step", range(1, COMMIT_STEPS + 1))
def test_a_kill_at_any_step_of_a_commit_leaves_the_old_or_the_new_checkpoint_whole(tmp_path, step):
    run = run_with_two_checkpoints(tmp_path)
    child = multiprocessing.get_context("fork").Process(target=_killed_at, args=(run, step))
    child.start()
    child.join(60)
    assert child.exitcode == checkpoint.KILLED_EXIT
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    expected = 768 if step >= 4 else 512  # step 4 renames the new archive onto latest.zip
    assert state.steps == expected and model_steps(checkpoint_file(run)) == expected and warnings == []
    assert state.snapshots == [f"s{expected}"]
    assert not [p for p in run.rglob("*") if ".tmp" in p.name]
    commit(run, expected + 256)  # the run goes on
    assert resume_run(run)[1].steps == expected + 256


def test_ctrl_c_during_a_commit_waits_for_it(tmp_path, monkeypatch):
    run = run_with_two_checkpoints(tmp_path)
    monkeypatch.setattr(checkpoint, "after_step", lambda done: done == 2 and os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        commit(run, 768)
    assert resume_run(run)[1].steps == 768 and model_steps(checkpoint_file(run)) == 768


@pytest.mark.slow
def test_resume_on_a_truncated_latest_zip_resumes_from_the_previous_checkpoint(tmp_path):
    """Also: training prints the TensorBoard command, progress lines, and logs rollout statistics."""
    pytest.importorskip("sb3_contrib")
    import subprocess
    import sys

    tiny = ["total_timesteps=512", "num_envs=4", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
            "checkpoint_every=256", "pool.snapshot_every=256", "eval.every=512", "eval.openings=1",
            "eval.final_openings=1", "eval.ladder_openings=0", "eval.ladder=[random]", f"runs_dir={tmp_path}"]

    def mancala(*args):
        return subprocess.run([sys.executable, "-m", "mancala_envs.cli", *args], capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)

    out = mancala("train", "kalah-v0", *tiny)  # the PPO config (the quick one is the value trainer)
    assert out.returncode == 0, out.stdout + out.stderr
    (run,) = tmp_path.glob("kalah-v0-*")
    assert f"TensorBoard: tensorboard --logdir {run / 'tb'}" in out.stdout
    assert "training: 512/512 steps (100%)" in out.stderr and "\r" not in out.stderr
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    scalars = set(EventAccumulator(str(run / "tb")).Reload().Tags()["scalars"])
    assert {"rollout/ep_rew_mean", "rollout/ep_len_mean", "rollout/win_rate_as_player_0",
            "rollout/win_rate_as_player_1"} <= scalars, scalars
    latest = checkpoint_file(run)
    latest.write_bytes(latest.read_bytes()[: latest.stat().st_size // 2])
    resumed = mancala("train", "--resume", str(run))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert f"{latest} is unusable" in resumed.stderr and "kept as latest.zip.bad" in resumed.stderr
    assert f"resuming from {previous_checkpoint_file(run)} (step 256)" in resumed.stderr
    assert f"resumed from {latest} at step 256" in resumed.stdout
    assert json.loads((run / "report.json").read_text())["steps"] >= 512
