"""Checkpoints of a run folder: the previous one is kept, and --resume falls back to it when the latest is bad."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from mancala_envs.training.config import ConfigError  # noqa: E402
from mancala_envs.training.run_folder import (  # noqa: E402
    RunState,
    checkpoint_file,
    previous_checkpoint_file,
    resume_run,
    save_checkpoint,
    state_file,
)


def fake_model(path: Path, steps: int) -> None:
    """A zip with the member SB3 keeps its step count in (what resume reads before loading)."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"num_timesteps": steps}))
        archive.writestr("policy.pth", b"\0" * 4096)


def run_with_two_checkpoints(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("env_id: kalah-v0\neval: {ladder: [random]}\n")
    for steps in (256, 512):
        save_checkpoint(run, RunState(steps=steps, snapshots=[f"s{steps}"]), lambda path, n=steps: fake_model(path, n))
    return run


def test_a_checkpoint_keeps_the_one_before(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    assert json.loads(state_file(run).read_text())["steps"] == 512
    assert json.loads((run / "checkpoints" / "previous-state.json").read_text())["steps"] == 256
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    assert state.steps == 512 and warnings == []


def test_a_truncated_latest_checkpoint_falls_back_to_the_previous_one(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    latest = checkpoint_file(run)
    latest.write_bytes(latest.read_bytes()[:300])  # a disk that filled up, a copy cut short
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    assert state.steps == 256 and state.snapshots == ["s256"]
    (warning,) = warnings
    assert f"{latest} is unusable (not a readable model file" in warning
    assert "kept as latest.zip.bad; resuming from the checkpoint of step 256 (previous.zip)" in warning
    assert (latest.parent / "latest.zip.bad").is_file()
    assert latest.read_bytes() == previous_checkpoint_file(run).read_bytes()  # what the trainer loads
    assert json.loads(state_file(run).read_text())["steps"] == 256


def test_a_model_without_its_state_falls_back_too(tmp_path):
    """Killed between writing the model and its state: the previous pair is consistent."""
    run = run_with_two_checkpoints(tmp_path)

    def killed_after_the_model(path):
        fake_model(path, 768)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(run, RunState(steps=768), killed_after_the_model)
    warnings = []
    _, state = resume_run(run, warn=warnings.append)
    assert state.steps == 512 and "no state file of its step 768" in warnings[0]


def test_no_usable_checkpoint_is_a_clear_error(tmp_path):
    run = run_with_two_checkpoints(tmp_path)
    checkpoint_file(run).write_bytes(b"garbage")
    previous_checkpoint_file(run).write_bytes(b"")
    with pytest.raises(ConfigError, match=r"has no usable checkpoint: .*latest.zip is unusable .*previous.zip is "
                                          r"unusable"):
        resume_run(run, warn=lambda text: None)


def test_a_run_killed_before_its_first_checkpoint_starts_over(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("env_id: kalah-v0\n")
    _, state = resume_run(run)
    assert state == RunState()


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
    assert f"resumed from {latest} at step 256" in resumed.stdout
    assert json.loads((run / "report.json").read_text())["steps"] >= 512
