"""The oracle row: agents against perfect play on solved positions (``analysis.solved_positions``,
``analysis.oracle_accuracy``, ``benchmarks/strength.py``'s ``--solved``), and the value trainer's exact
endgame and margin targets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.agents import RandomAgent
from mancala_envs.agents.learned.learned_eval import input_width, save_evaluation
from mancala_envs.agents.learned.move_features import move_feature_set
from mancala_envs.evaluation.analysis import oracle_accuracy, solved_positions, value
from mancala_envs.evaluation.openings import position_key
from mancala_envs.registry import make_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small():
    return mancala_envs.make_game("kalah-v0", pits=3, seeds=2)


def test_solved_positions_are_distinct_and_valued_exactly(small):
    solved = solved_positions(small, 15, seed=3)
    assert len(solved) == 15
    assert len({position_key(p.state) for p in solved}) == 15
    for p in solved[:5]:
        oracle = value(p.state)
        assert p.move_values == oracle.move_values and p.best == oracle.mover_value


def test_oracle_accuracy_of_perfect_and_random_play(small):
    solved = solved_positions(small, 30, seed=1)
    perfect = oracle_accuracy(make_agent("solver:memory=4M"), solved, seed=0)
    assert (perfect.optimal, perfect.kept, perfect.mean_loss) == (1.0, 1.0, 0.0)
    assert perfect.optimal_ci == [1.0, 1.0] and perfect.mean_loss_ci == [0.0, 0.0]
    rnd = oracle_accuracy(RandomAgent(seed=0), solved, seed=0)
    assert rnd.optimal < 1.0 and rnd.mean_loss > 0
    assert rnd.kept >= rnd.optimal  # a best move always keeps the result
    for rate, (low, high) in ((rnd.optimal, rnd.optimal_ci), (rnd.kept, rnd.kept_ci), (rnd.mean_loss, rnd.mean_loss_ci)):
        assert low <= rate <= high and high > low
    # by hand: the share of positions where the random agent's move keeps the sign of the best value
    kept = []
    for p in solved:
        agent = RandomAgent(seed=0)
        agent.reset(seed=0)
        move = agent.act(p.state.clone())
        kept.append(np.sign(p.move_values[move]) == np.sign(p.best))
    assert rnd.kept == pytest.approx(np.mean(kept))


def test_oracle_accuracy_refuses_an_empty_sample():
    with pytest.raises(ValueError, match="no solved positions"):
        oracle_accuracy(RandomAgent(seed=0), [])


def test_strength_prints_and_writes_the_oracle_row(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import strength
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    monkeypatch.setitem(strength.SETTINGS, "main", [("configs/kalah-v0-quick.yaml", "kalah-v0", [
        ("alphabeta:depth=1,eval=RUN", "alphabeta:depth=1", 0.60), ("policy:RUN", "random", 0.97)])])
    monkeypatch.setitem(strength.ORACLE_EXTRA, "main", ["alphabeta:depth=2,eval=RUN"])
    game = make_game("kalah-v0")
    rng = np.random.default_rng(0)
    width = input_width(game, "onehot")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("env_id: kalah-v0\nseed: 4\n")
    save_evaluation(run, game, "onehot", "relu", [(rng.normal(size=(width, 1)).astype(np.float32) * 0.1,
                                                   np.zeros(1, np.float32))],
                    [(rng.normal(size=(width, 6)).astype(np.float32), np.zeros(6, np.float32))], source="test")
    out = tmp_path / "strength.json"
    assert strength.main(["--setting", "main", "--run", str(run), "--rates-only", "--solved", "6",
                          "--max-board", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rates = json.loads(out.read_text())["optimal_move_rate"]
    assert sorted(r["agent"] for r in rates.values()) == sorted(
        ["alphabeta:depth=1,eval=RUN", "alphabeta:depth=1", "policy:RUN", "random", "alphabeta:depth=2,eval=RUN"])
    for r in rates.values():
        assert r["positions"] == 6 and r["max_board"] == 10 and r["train_seed"] == 4
        for key in ("rate", "kept", "mean_loss"):
            assert r[key + "_ci"][0] <= r[key] <= r[key + "_ci"][1]
    assert rates["kalah-v0 policy:RUN"]["target"] == 0.75 and rates["kalah-v0 random"]["target"] is None
    assert "result kept" in printed and "alphabeta:depth=3 self-play" in printed


def test_endgame_and_margin_targets_are_the_exact_values():
    from mancala_envs.training.config import ValueConfig
    from mancala_envs.training.search_bootstrap import SelfPlaySettings, play_games

    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=3)  # its endgame database holds every position
    cfg = ValueConfig(depth=2, random_plies=4, result_target="margin", endgame_targets=True)
    settings = SelfPlaySettings.of(cfg, move_feature_set("none", game))
    batch = play_games(game, None, [5, 6], settings)
    assert batch.size > 10
    np.testing.assert_array_equal(batch.values, batch.results)  # the exact value is the whole target
    assert np.all(np.abs(batch.values) < 1) and len(np.unique(batch.values)) > 2  # tanh(margin / 6), not +-1
    plain = play_games(game, None, [5, 6], SelfPlaySettings.of(ValueConfig(depth=2, random_plies=4),
                                                               move_feature_set("none", game)))
    assert set(np.unique(plain.results)) <= {-1.0, 0.0, 1.0}  # the default: the game's result
    assert not np.array_equal(plain.values, plain.results)


def test_the_new_value_keys_refuse_bad_values():
    from mancala_envs.training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="value.result_target must be result or margin, got 'points'"):
        load_config(ROOT / "configs/kalah-v0-quick.yaml", ["value.result_target=points"])
    with pytest.raises(ConfigError, match="value.endgame_targets needs a game with an endgame database"):
        load_config(ROOT / "configs/rondell-v0-value.yaml", ["value.endgame_targets=true"])
    assert load_config(ROOT / "configs/kalah-v0-value.yaml", []).value.result_target == "result"  # as before
