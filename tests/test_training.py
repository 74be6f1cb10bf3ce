"""The training pipeline: configs, tiny runs of every config file, resume after SIGKILL, eval."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from mancala_envs.training.config import ConfigError, TrainConfig, load_config  # noqa: E402
from mancala_envs.training.evaluation import EVAL_FIELDS, evals_csv, game_of_model  # noqa: E402
from mancala_envs.training.run_folder import run_folder_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# the RLlib config (algo: rllib_ppo) runs in tests/test_ray.py, on that module's Ray
CONFIGS = sorted(p for p in (ROOT / "configs").glob("*.yaml") if "rllib" not in p.stem)
EVAL_TINY = ["eval.openings=1", "eval.final_openings=1", "eval.ladder_openings=1"]
TINY = {  # by algo: a config refuses the keys its algorithm does not read
    "ppo": ["total_timesteps=512", "num_envs=4", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
            "checkpoint_every=256", "pool.snapshot_every=256", "eval.every=512", *EVAL_TINY],
    "search-bootstrap": ["value.iterations=1", "value.games=2", "value.depth=1", "value.eval_depth=1",
                         "value.workers=1", *EVAL_TINY],
}
# A PPO config for the tests of PPO runs (the main job, kalah-v0-quick.yaml, trains a value function)
PPO_CONFIG = ROOT / "configs" / "kalah-v0.yaml"


def mancala(*args: str, timeout: float = 900, **kwargs) -> subprocess.CompletedProcess:
    exe = shutil.which("mancala")
    command = [exe, *args] if exe else [sys.executable, "-m", "mancala_envs.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          stdin=subprocess.DEVNULL, **kwargs)


def run_dir_from(output: str) -> Path:
    for line in output.splitlines():
        if line.startswith("run folder: "):
            return Path(line.split(": ", 1)[1].strip())
    raise AssertionError(f"no run folder in the output:\n{output}")


# -- config -----------------------------------------------------------------------------------------
def test_every_config_file_loads():
    assert any(p.name == "kalah-v0.yaml" for p in CONFIGS) and any(p.name == "kalah-v0-quick.yaml" for p in CONFIGS)
    for path in CONFIGS:
        config = load_config(path)
        assert isinstance(config, TrainConfig)


@pytest.mark.parametrize(
    "overrides, pattern",
    [
        (["learning_rate=0.1"], r"unknown config key learning_rate \(did you mean ppo.learning_rate\?\); "
                                r"valid keys: env_id, options, total_timesteps"),
        (["ppo.lr=0.1"], r"unknown config key ppo.lr; valid keys in ppo: learning_rate, n_steps"),
        (["total_timesteps=lots"], r"total_timesteps must be an integer, got 'lots'"),
        (["ppo.net_arch=64"], r"ppo.net_arch must be a list, got 64"),
        (["ppo.learning_rate=fast"], r"ppo.learning_rate must be a number"),
        (["num_envs=0"], r"num_envs must be at least 1, got 0"),
        (["eval.ladder=[greedy]"], r"eval.ladder must include 'random'"),
        (["ppo.observation_transform=sqrt"], r"ppo.observation_transform must be one of none, log1p, got 'sqrt'"),
        (["ppo.activation=sigmoid"], r"ppo.activation must be relu or tanh, got 'sigmoid'"),
        (["ppo.margin_reward=2"], r"ppo.margin_reward must be from 0 to 1, got 2.0"),
        (["pool.baselines={}"], r"pool.baselines must name at least one agent"),
        (["pool.opening_plies=[3, 1]"], r"pool.opening_plies must be \[lo, hi\]"),
        (["pool.baselines={random: 1.0, greedy: 1.0}", "pool.opening_plies=[0, 0]"], r"pool.baselines greedy play .* give pool.opening_plies"),
        (["total_timesteps"], r"an override must look like key=value"),
    ],
)
def test_config_errors_are_clear(overrides, pattern):
    with pytest.raises(ConfigError, match=pattern):
        load_config(PPO_CONFIG, overrides)


def test_config_errors_from_the_game_and_agents():
    import mancala_envs
    from mancala_envs.agents import AgentSpecError

    with pytest.raises(mancala_envs.UnknownEnvError, match="unknown env id 'kalah-v9'"):
        load_config(None, ["env_id=kalah-v9"])
    with pytest.raises(mancala_envs.InvalidOptionError, match="pits"):
        load_config(None, ["options.pits=0"])
    with pytest.raises(AgentSpecError, match="unknown agent 'wizard'"):
        load_config(None, ["eval.ladder=[random, wizard]"])


def test_config_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: [unclosed\n")
    with pytest.raises(ConfigError, match="is not valid YAML"):
        load_config(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(listed)


def test_the_command_line_loads_without_the_training_stack():
    """`mancala list` and friends must work without the train extra: no torch, SB3 or matplotlib at import."""
    code = ("import sys, mancala_envs.cli; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib', 'rich'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_game_of_a_saved_model(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.yaml").write_text("env_id: kalah-v0\noptions: {pits: 4}\n")
    model = run / "checkpoints" / "latest.zip"
    assert run_folder_of(model) == run and run_folder_of(tmp_path / "elsewhere.zip") is None
    assert game_of_model(model, run, None, []) == ("kalah-v0", {"pits": 4})
    assert game_of_model(model, run, "kalah-v0", ["seeds=3"]) == ("kalah-v0", {"seeds": 3})
    with pytest.raises(ConfigError, match="give --env ID to evaluate on another one"):
        game_of_model(model, run, None, ["pits=5"])
    with pytest.raises(ConfigError, match="is not inside a run folder; give the game with --env ID"):
        game_of_model(tmp_path / "elsewhere.zip", None, None, [])


def test_evals_csv_leaves_missing_columns_empty():
    lines = evals_csv([{"step": 5, "opponent": "random", "games": 2}]).splitlines()
    assert lines[0] == ",".join(EVAL_FIELDS)
    assert lines[1] == "5,random,,2" + "," * (len(EVAL_FIELDS) - 4)


# -- runs -------------------------------------------------------------------------------------------
# the fast lane runs the main job's config and the PPO one; the other families' configs run in the full suite
FAST_CONFIGS = ("kalah-v0-quick", "kalah-v0")


@pytest.mark.parametrize("config", [pytest.param(c, id=c.stem, marks=() if c.stem in FAST_CONFIGS else pytest.mark.slow)
                                    for c in CONFIGS])
def test_tiny_run_of_every_config(config, tmp_path):
    algo = load_config(config).algo
    out = mancala("train", str(config), *TINY[algo], f"runs_dir={tmp_path}")
    assert out.returncode == 0, out.stdout + out.stderr
    run = run_dir_from(out.stdout)
    ppo = algo == "ppo"
    for name in ("config.yaml", "command.txt", "meta.json", "final_model.zip" if ppo else "evaluation.npz",
                 "report.md", "report.json", "evals.csv", "learning_curve.png", "scores.png", "checkpoints/latest.zip"):
        assert (run / name).is_file(), name
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] >= (512 if ppo else 1)
    ladder = load_config(config).eval.ladder
    assert [row["opponent"] for row in report["final_evaluation"]] == ladder
    pool = load_config(config).pool.baselines if ppo else {}  # the value trainer plays itself only
    for row in report["final_evaluation"]:
        assert row["games"] == 2 and row["wins"] + row["draws"] + row["losses"] + row["truncated"] == 2
        assert row["in_training_pool"] == (row["opponent"] in pool)
        name = row["opponent"] + (" (trained against)" if row["in_training_pool"] else "")
        assert f"| {name} | 2 ({row['distinct_games']}) | {row['wins']} | {row['draws']} | {row['losses']} |" in out.stdout
    assert report["final_openings"]["n"] == 1 and len(report["final_openings"]["openings"]) == 1
    assert "learner" in report["ratings"] and report["ratings"]["random"]["elo"] == 0.0
    with open(run / "evals.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(report["history"]) and {r["opponent"] for r in rows} == set(ladder)
    assert not list(run.rglob("*.tmp*")), "no temporary file may be left behind"


@pytest.mark.slow
def test_resume_after_sigkill(tmp_path):
    config = PPO_CONFIG
    args = ["total_timesteps=4096", "num_envs=4", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
            "checkpoint_every=256", "pool.snapshot_every=512", "eval.every=100000", "eval.openings=1",
            "eval.final_openings=1", "eval.ladder_openings=0", "eval.ladder=[random]", f"runs_dir={tmp_path}"]
    exe = shutil.which("mancala")
    command = [exe, "train", str(config), *args] if exe else [sys.executable, "-m", "mancala_envs.cli", "train", str(config), *args]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    deadline = time.time() + 600
    run = None
    state_file = None
    try:
        while time.time() < deadline:
            runs = list(tmp_path.glob("kalah-v0-*"))
            if runs:
                run = runs[0]
                state_file = run / "checkpoints" / "state.json"
                if state_file.is_file() and json.loads(state_file.read_text())["steps"] >= 512:
                    break
            assert proc.poll() is None, "the run ended before it could be killed: " + (proc.stdout.read() if proc.stdout else "")
            time.sleep(0.2)
        else:
            raise AssertionError("no checkpoint within the time limit")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    killed_at = json.loads(state_file.read_text())["steps"]
    assert 512 <= killed_at < 4096
    out = mancala("train", "--resume", str(run))
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed from {run / 'checkpoints' / 'latest.zip'} at step {killed_at}" in out.stdout
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] >= 4096
    assert not list(run.rglob("*.tmp*"))


def test_resume_errors(tmp_path):
    out = mancala("train", "--resume", str(tmp_path))
    assert out.returncode == 2 and "is not a run folder" in out.stderr
    out = mancala("train")
    assert out.returncode == 2 and "give a config file" in out.stderr


@pytest.mark.slow
def test_eval_on_a_saved_model(tmp_path):
    out = mancala("train", str(PPO_CONFIG), *TINY["ppo"], "eval.ladder=[random]", "pool.baselines={random: 0.5, greedy: 1.0}",
                  f"runs_dir={tmp_path}")
    assert out.returncode == 0, out.stdout + out.stderr
    run = run_dir_from(out.stdout)
    result = mancala("eval", str(run), "--against", "random", "greedy", "--openings", "2", "--ladder-openings", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    files = sorted(run.glob("eval-*.json"))
    assert len(files) == 1 and files[0].with_suffix(".csv").is_file()
    payload = json.loads(files[0].read_text())
    assert [r["opponent"] for r in payload["rows"]] == ["random", "greedy"]
    for r in payload["rows"]:
        assert r["games"] == 4 and r["in_training_pool"] is True  # the run trained against both
        assert f"| {r['opponent']} (trained against) | 4 ({r['distinct_games']}) | {r['wins']} | {r['draws']} | {r['losses']} |" \
            in result.stdout
    assert payload["reports"]["greedy"]["openings"]["n"] == 2
    as_json = mancala("eval", str(run), "--against", "greedy", "--openings", "2", "--ladder-openings", "0", "--json")
    assert as_json.returncode == 0, as_json.stderr
    (report,) = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert set(report) == {"games", "distinct_games", "score", "score_ci", "wins", "draws", "losses", "by_seat",
                           "openings"} and report["games"] == 4
    # the model also plays as an agent spec
    match = mancala("match", "kalah-v0", f"policy:{run}", "random", "--openings", "1")
    assert match.returncode == 0, match.stdout + match.stderr
    wrong = mancala("eval", str(run / "final_model.zip"), "--env", "kalah-v0", "pits=4", "--openings", "1")
    assert wrong.returncode == 2 and "trained on observations of size 15" in wrong.stderr


@pytest.mark.slow
def test_tiny_run_with_encoded_inputs_writes_a_loadable_evaluation(tmp_path):
    """obs_encoding, activation, margin reward, opening plies: the run trains, exports its nets as
    evaluation.npz (equal to the saved model's) and plays as policy:RUN_DIR."""
    import numpy as np

    from mancala_envs.agents.learned.frozen_policy import numpy_networks
    from mancala_envs.agents.learned.learned_eval import load_evaluation
    from mancala_envs.agents.learned.policy import load_model
    from mancala_envs.registry import make_game

    out = mancala("train", str(ROOT / "configs" / "kalah-v0.yaml"), *TINY["ppo"], "eval.ladder=[random]",
                  "ppo.net_arch=[16]", "ppo.obs_encoding=thermometer", "ppo.activation=tanh", "ppo.margin_reward=0.3",
                  "pool.opening_plies=[1, 3]", f"runs_dir={tmp_path}")
    assert out.returncode == 0, out.stdout + out.stderr
    run = run_dir_from(out.stdout)
    game = make_game("kalah-v0")
    evaluation = load_evaluation(run, game)
    assert evaluation.spec.name == "thermometer" and evaluation.activation == "tanh" and evaluation.has_policy
    networks = numpy_networks(load_model(run).policy)
    obs = np.stack([game.new_state().observation(0), game.new_state().observation(1) + 3])
    np.testing.assert_allclose(evaluation.value(obs), networks.values(obs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(evaluation.policy_logits(obs), networks.logits(obs), rtol=1e-5, atol=1e-6)
    match = mancala("match", "kalah-v0", f"policy:{run}", "random", "--openings", "1")
    assert match.returncode == 0, match.stdout + match.stderr
