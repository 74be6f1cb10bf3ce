"""The scripts in examples/ run end to end with tiny budgets (each in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the full suite only: each example trains for a while

ROOT = Path(__file__).resolve().parent.parent


def run_example(name: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, f"examples/{name}", *args], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_cleanrl_masked_ppo_on_the_vector_env():
    pytest.importorskip("torch")
    out = run_example(
        "cleanrl_masked_ppo.py", "--env", "kalah-v0", "--num-envs", "16", "--num-steps", "16",
        "--total-timesteps", "512", "--num-minibatches", "2", "--update-epochs", "1",
    )
    assert "iteration 2/2" in out and "nan" not in out


def test_tianshou_multi_agent_on_the_aec_env():
    pytest.importorskip("tianshou")
    out = run_example(
        "tianshou_aec.py", "--env", "kalah-v0", "--epochs", "1", "--epoch-steps", "100", "--num-envs", "2",
        "--test-episodes", "2", "--batch-size", "16", "--step-per-collect", "20",
    )
    assert "best mean test return of the learner (seat 0)" in out
