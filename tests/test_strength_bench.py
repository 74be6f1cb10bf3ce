"""benchmarks/strength.py over several training seeds: each seed's rows, then mean, min and max over them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from mancala_envs.agents.learned.learned_eval import input_width, load_evaluation, save_evaluation
from mancala_envs.registry import make_game

ROOT = Path(__file__).resolve().parents[1]
ENV = "progressive-v0"


@pytest.fixture
def strength(monkeypatch):
    """The benchmark module, its families setting cut to Progressive's config with one-ply rows (cheap)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import strength
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    monkeypatch.setitem(strength.SETTINGS, "families", [(f"configs/{ENV}-value.yaml", ENV, [
        ("alphabeta:depth=1,eval=RUN", "alphabeta:depth=1", 0.60), ("policy:RUN", "random", 0.95)])])
    return strength


def fake_run(folder: Path, seed: int) -> Path:
    """A run folder as the value trainer leaves it: config.yaml with the seed, a (random) evaluation."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({"env_id": ENV, "seed": seed}))
    fake_evaluation(folder, seed)
    return folder


def fake_evaluation(folder: Path, seed: int) -> None:
    """A random value and policy network for the game, blended with its score difference."""
    game = make_game(ENV)
    rng = np.random.default_rng(seed)
    width = input_width(game, "onehot")
    value = [(rng.normal(size=(width, 8)).astype(np.float32) * 0.1, np.zeros(8, np.float32)),
             (rng.normal(size=(8, 1)).astype(np.float32), np.zeros(1, np.float32))]
    policy = [(rng.normal(size=(width, game.num_actions)).astype(np.float32), np.zeros(game.num_actions, np.float32))]
    save_evaluation(folder, game, "onehot", "relu", value, policy, source="test", score_scale=0.25)


def test_several_runs_give_each_seeds_rows_and_the_summary_over_seeds(strength, tmp_path, capsys):
    runs = [fake_run(tmp_path / f"r{seed}", seed) for seed in (3, 7)]
    out = tmp_path / "strength.json"
    assert strength.main(["--setting", "families", "--env", ENV, "--run", str(runs[0]), "--run", str(runs[1]),
                          "--openings", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())
    rows = results["rows"]
    assert [r["train_seed"] for r in rows] == [3, 3, 7, 7]  # read from each run's config.yaml
    assert all(r["games"] == 4 and 1 <= r["distinct_games"] <= 4 and len(r["score_ci"]) == 2 for r in rows)
    assert rows[0]["suite"] == rows[2]["suite"]  # every seed plays the same openings
    summary = results["over_seeds"]
    assert [(s["agent_a"], s["runs"], s["train_seeds"]) for s in summary] == [
        ("alphabeta:depth=1,eval=RUN", 2, [3, 7]), ("policy:RUN", 2, [3, 7])]
    for s, (first, second) in zip(summary, [(rows[0], rows[2]), (rows[1], rows[3])]):
        assert s["scores"] == [first["score"], second["score"]]
        assert s["mean"] == pytest.approx((first["score"] + second["score"]) / 2)
        assert s["min"] == min(first["score"], second["score"]) and s["max"] == max(first["score"], second["score"])
        assert s["every_run_met"] == (s["min"] >= s["target"])
    assert "Over the training seeds" in printed and "| 3 |" in printed and "| 7 |" in printed
    assert [t["train_seed"] for t in results["training"]] == [3, 7]


def test_seeds_train_one_run_per_seed_with_the_seed_override(strength, tmp_path, monkeypatch):
    # --seeds trains the setting's config once per seed; the trainer itself is replaced by one
    # that writes an evaluation, so this checks the plumbing, not the training.
    import mancala_envs.training.train as train_module

    trained = []

    class FakeTrainer:
        def __init__(self, cfg, run_dir, state, echo):
            self.cfg, self.run_dir = cfg, run_dir

        def run(self):
            trained.append(self.cfg.seed)
            fake_evaluation(self.run_dir, self.cfg.seed)

    monkeypatch.setattr(train_module, "make_trainer", lambda cfg, run_dir, state, echo: FakeTrainer(cfg, run_dir, state, echo))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "strength.json"
    assert strength.main(["--setting", "families", "--env", ENV, "--seeds", "0", "2", "--openings", "1",
                          "--out", str(out)]) == 0
    results = json.loads(out.read_text())
    assert trained == [0, 2]
    assert [t["train_seed"] for t in results["training"]] == [0, 2]
    assert all(t["seconds"] is not None and Path(t["run_dir"]).parent.name == "runs" for t in results["training"])
    for t, seed in zip(results["training"], (0, 2)):
        assert load_evaluation(t["run_dir"]).game.env_id == ENV
        assert (Path(t["run_dir"]) / "command.txt").read_text().strip().endswith(f"progressive-v0-value.yaml seed={seed}")
    assert [s["train_seeds"] for s in results["over_seeds"]] == [[0, 2], [0, 2]]


def test_runs_and_seeds_are_checked(strength):
    with pytest.raises(ValueError, match="either --seeds"):
        strength.runs_per_config(["a"], [0], 1)
    with pytest.raises(ValueError, match="3 --run folder\\(s\\) for 2 config\\(s\\)"):
        strength.runs_per_config(["a", "b", "c"], [], 2)
    with pytest.raises(ValueError, match="a seed is repeated"):
        strength.runs_per_config([], [1, 1], 1)
    assert strength.runs_per_config(["a", "b", "c", "d"], [], 2) == [[("a", None), ("b", None)], [("c", None), ("d", None)]]
    assert strength.runs_per_config([], [], 2) == [[(None, None)], [(None, None)]]
    assert strength.runs_per_config([], [0, 5], 1) == [[(None, 0), (None, 5)]]
