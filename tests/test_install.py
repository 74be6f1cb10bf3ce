"""A regular (non-editable) install runs the README's commands that need no clone.

The wheel is built from the repository and installed into a fresh venv, outside the clone;
the dependencies come from this environment (a path file), so nothing is downloaded. Every
command then runs in an empty folder: configs, agents and training come from the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the full suite only: builds wheels and virtual environments

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin folder of a venv with the wheel of this repository installed (not editable)."""
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("mancala_envs-*.whl")
    venv.create(tmp / "venv", with_pip=False)
    python = tmp / "venv" / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # this environment's packages as dependencies; its editable mancala_envs is not among them
    # (a path file adds the folder, but not the editable finder that folder's own .pth files install)
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                              str(wheel)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    return tmp / "venv" / "bin"


def mancala(bin_dir: Path, cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / "mancala"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_the_wheel_is_what_runs(installed, tmp_path):
    code = ("import mancala_envs, mancala_envs.agents, mancala_envs.training.config as c, importlib.resources as r;"
            "print(mancala_envs.__file__); print(sorted(c.packaged_configs()));"
            "print(r.files('mancala_envs').joinpath('py.typed').is_file())")
    out = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    location, configs, typed = out.stdout.splitlines()
    assert "site-packages" in location and str(ROOT) not in location
    assert "kalah-v0" in configs and "kalah-v0-quick" in configs and typed == "True"


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["--version"],
    ["list"],
    ["show", "kalah-bidirectional-v0", "pits=5"],
    ["match", "kalah-v0", "greedy", "random", "pits=4", "--openings", "5", "--seed", "1", "--json"],
    ["tournament", "kalah-v0", "--agents", "random", "greedy", "alphabeta:depth=2", "--openings", "2", "--no-plot"],
    ["solve", "kalah-irving2000-v0", "pits=3", "seeds=3", "--json"],
    ["train", "kalah-v0", "ppo.learning_rate=1e-4", "--dry-run"],
])
def test_readme_commands_from_a_regular_install(installed, tmp_path, args):
    out = mancala(installed, tmp_path, *args)
    assert out.returncode == 0, out.stdout + out.stderr
    if args[0] == "train":
        assert "learning_rate: 0.0001" in out.stdout


@pytest.mark.slow
def test_training_from_a_regular_install(installed, tmp_path):
    tiny = ["total_timesteps=256", "num_envs=4", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
            "checkpoint_every=256", "pool.snapshot_every=256", "eval.every=256", "eval.openings=1",
            "eval.final_openings=1", "eval.ladder_openings=0", "eval.ladder=[random]"]
    out = mancala(installed, tmp_path, "train", "kalah-v0", *tiny, timeout=900)  # the PPO config: eval reads its SB3 model
    assert out.returncode == 0, out.stdout + out.stderr
    (run,) = (tmp_path / "runs").iterdir()
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] >= 256
    evaluated = mancala(installed, tmp_path, "eval", str(run), "--against", "greedy", "--openings", "1",
                        "--ladder-openings", "0")
    assert evaluated.returncode == 0, evaluated.stdout + evaluated.stderr
