"""The value trainer (algo: search-bootstrap): a tiny run, SIGKILL and --resume, a usable eval=."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from mancala_envs.agents.learned.learned_eval import load_evaluation  # noqa: E402
from mancala_envs.training.config import ConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "configs" / "kalah-v0-quick.yaml"


def worker_settings(game, features: str = "none", policy: dict | None = None, **value):
    """What a self-play worker gets (``SelfPlaySettings``) from a value section with ``value`` and ``policy``
    (``value.policy``) changed from the defaults, and the game's move feature set ``features``."""
    from mancala_envs.agents.learned.move_features import move_feature_set
    from mancala_envs.training.config import PolicyConfig, ValueConfig
    from mancala_envs.training.search_bootstrap import SelfPlaySettings

    config = ValueConfig(**value, policy=PolicyConfig(**(policy or {})))
    return SelfPlaySettings.of(config, move_feature_set(features, game))


def command(*args: str) -> list[str]:
    exe = shutil.which("mancala")
    return [exe, *args] if exe else [sys.executable, "-m", "mancala_envs.cli", *args]


def policy_passes(trainer, evaluation, count: int, seed: int):
    """The policy's logits on ``count`` random positions of the evaluation's game, three ways: the trainer's
    torch pass, the file's numpy pass and the jitted pass ``policy:RUN`` plays (``net_policy``)."""
    import torch

    from mancala_envs.agents.learned.learned_eval import load_features, net_policy, network_input

    game, rng, positions = evaluation.game, np.random.default_rng(seed), []
    while len(positions) < count:
        state = game.new_state(int(rng.integers(1000)))
        for _ in range(int(rng.integers(40))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            positions.append(state)
    obs = np.array([p.observation(p.current_player) for p in positions])
    rows = evaluation.feature_rows(np.array([p.array for p in positions]), obs)
    with torch.no_grad():
        reference = trainer._policy(torch.from_numpy(network_input(trainer.spec, trainer.features, obs, rows))).numpy()
    net, logits, jitted = evaluation.net(), np.zeros(game.num_actions), []
    for p, o in zip(positions, obs):
        net.obs[:] = o
        load_features(net, p)
        net_policy(net, net.obs, logits)
        jitted.append(logits.copy())
    return positions, reference, evaluation.policy_logits(obs, rows=rows), np.array(jitted)


def layers(evaluation):
    """The weights and biases of an evaluation's value and policy networks, in order."""
    return [a for w, b in evaluation.value_layers + evaluation.policy_layers for a in (w, b)]


def test_the_main_job_trains_a_value_function():
    config = load_config(QUICK)
    assert config.algo == "search-bootstrap"
    with pytest.raises(ConfigError, match="algo must be one of ppo, search-bootstrap, rllib_ppo, got 'td'"):
        load_config(QUICK, ["algo=td"])
    with pytest.raises(ConfigError, match="value.encoding must be one of counts, scaled, onehot, thermometer"):
        load_config(QUICK, ["value.encoding=bits"])
    with pytest.raises(ConfigError, match="value.epsilon must be from 0 to 1, got 2.0"):
        load_config(QUICK, ["value.epsilon=2"])


@pytest.mark.slow
def test_tiny_run_resumes_after_sigkill_and_serves_as_eval(tmp_path):
    args = ["train", str(QUICK), "value.iterations=12", "value.games=6", "value.depth=3", "value.workers=1",
            "value.eval_every=100", "value.eval_depth=2", "value.hidden=[8]", "eval.final_openings=1",
            "eval.openings=1", "eval.ladder=[random]", f"runs_dir={tmp_path}"]
    proc = subprocess.Popen(command(*args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    deadline = time.time() + 600
    state_file = run = None
    try:
        while time.time() < deadline:
            runs = list(tmp_path.glob("kalah-v0-*"))
            if runs:
                run = runs[0]
                state_file = run / "checkpoints" / "state.json"
                if state_file.is_file() and json.loads(state_file.read_text())["steps"] >= 1:
                    break
            assert proc.poll() is None, "the run ended before it could be killed: " + (proc.stdout.read() if proc.stdout else "")
            time.sleep(0.05)
        else:
            raise AssertionError("no checkpoint within the time limit")
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    killed_at = json.loads(state_file.read_text())["steps"]
    assert 1 <= killed_at < 12
    assert (run / "evaluation.npz").is_file()  # written after every iteration
    out = subprocess.run(command("train", "--resume", str(run)), cwd=ROOT, capture_output=True, text=True,
                         timeout=900, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed from {run / 'checkpoints' / 'latest.zip'} after iteration {killed_at}" in out.stdout
    assert f"iteration {killed_at + 1}/12" in out.stdout and "iteration 12/12" in out.stdout
    assert f"iteration {killed_at}/12" not in out.stdout
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] == 12 and [r["opponent"] for r in report["final_evaluation"]] == ["random"]
    assert report["bare_network_evaluation"][0]["games"] == 2
    assert "bare policy network" in (run / "report.md").read_text()
    for name in ("report.md", "evals.csv", "learning_curve.png", "scores.png", "checkpoints/latest.zip"):
        assert (run / name).is_file(), name
    assert list((run / "tb").iterdir()), "TensorBoard events"
    assert not list(run.rglob("*.tmp*"))
    evaluation = load_evaluation(run)
    assert evaluation.source == "search-bootstrap" and evaluation.has_policy
    assert evaluation.game.env_id == "kalah-v0"
    start = evaluation.game.new_state(0)
    assert np.isfinite(evaluation.value(start.observation(0)[None])).all()
    for agent in (f"alphabeta:depth=2,eval={run}", f"mcts:sims=50,eval={run}", f"policy:{run}"):
        match = subprocess.run(command("match", "kalah-v0", agent, "random", "--openings", "1"), cwd=ROOT,
                               capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert match.returncode == 0, match.stdout + match.stderr
        assert "2 games" in match.stdout, match.stdout
    # mancala eval: the run's search agent (value.eval_depth=2), then its bare network, over a fair suite
    for extra, learner in (((), "alphabeta:depth=2,eval="), (("--bare",), "policy:")):
        out = subprocess.run(command("eval", str(run), "--against", "random", "greedy", "--openings", "2",
                                     "--ladder-openings", "0", "--no-progress", *extra),
                             cwd=ROOT, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stdout + out.stderr
        assert f"evaluating {learner}" in out.stdout, out.stdout
        assert "| random | 4 (" in out.stdout and "| greedy | 4 (" in out.stdout, out.stdout  # no training pool


def test_the_blend_damps_a_network_that_predicts_nothing(tmp_path):
    # An unchecked noisy correction made alpha-beta weaker than plain alpha-beta (Afrika, Widdershins):
    # the gain fitted on held-out positions scales the network's output down to what it predicts.
    import torch

    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    config = load_config(QUICK, ["value.score_blend=true", "value.hidden=[8]", f"runs_dir={tmp_path}"])
    trainer = SearchBootstrapTrainer(config, tmp_path, RunState(), echo=lambda text: None)
    x = torch.rand(400, trainer.spec.width)
    with torch.no_grad():
        n = trainer.value_net(x)[:, 0]
    assert trainer._gain(x, 0.5 * n) == pytest.approx(0.5, abs=1e-6)
    assert trainer._gain(x, 3.0 * n) == pytest.approx(1.0)  # at most the network itself
    noise = torch.from_numpy(np.random.default_rng(0).normal(size=400).astype(np.float32)) * n.std()
    assert trainer._gain(x, noise - n.mean()) < 0.2


@pytest.mark.parametrize("env_id", ["rondell-v0", "widdershins-v0"])
def test_move_features_train_and_the_shared_move_weights_are_saved(env_id, tmp_path):
    # value.features=moves: the networks read the move features (mancala_envs.agents.learned.move_features), and the
    # policy has one weight per column of a move's block, shared by every move; the file holds both.
    from mancala_envs.agents.specs import make_agent
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    config = load_config(ROOT / "configs" / f"{env_id}-value.yaml",
                         ["value.features=moves", "value.encoding=scaled", "value.iterations=1", "value.games=2",
                          "value.depth=1", "value.workers=1", "value.hidden=[8]", "value.eval_every=100",
                          "eval.final_openings=1", "eval.ladder=[random]", f"runs_dir={tmp_path}"])
    trainer = SearchBootstrapTrainer(config, tmp_path, RunState(), echo=lambda text: None)
    trainer.run()
    evaluation = load_evaluation(tmp_path)
    assert evaluation.features.name == "moves"
    assert evaluation.policy_move is not None and np.abs(evaluation.policy_move).sum() > 0  # trained
    state = evaluation.game.new_state(5)
    assert state.is_legal(make_agent(f"policy:{tmp_path}", seed=0).act(state))
    with pytest.raises(ConfigError, match="value.features: the afrika family has no move features"):
        load_config(ROOT / "configs" / "afrika-v0-value.yaml", ["value.features=moves"])


def test_the_plain_teacher_labels_the_same_games_with_plain_alphabetas_moves(tmp_path):
    # value.policy.teacher=plain: the games and value targets stay the learned search's; only the policy's
    # target move is plain alpha-beta's at the same depth (the Widdershins config's teacher).
    from mancala_envs.agents.learned.learned_eval import save_evaluation
    from mancala_envs.agents.search import TranspositionTable, search
    from mancala_envs.core.encodings import encoding_spec
    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import PositionBatch, play_games

    game = make_game("kalah-v0")
    rng = np.random.default_rng(0)
    width = encoding_spec("onehot", game.observation_size, game.observation_bounds()).width
    save_evaluation(tmp_path, game, "onehot", "relu", [(rng.normal(size=(width, 1)), np.zeros(1))])
    evaluation = load_evaluation(tmp_path, game)
    ours = play_games(game, evaluation, [1, 2], worker_settings(game, depth=2, random_plies=2, epsilon=0.0))
    plain = play_games(game, evaluation, [1, 2],
                       worker_settings(game, depth=2, random_plies=2, epsilon=0.0, policy={"teacher": "plain"}))
    assert isinstance(plain, PositionBatch) and plain.size == len(plain.moves) > 0
    assert np.array_equal(ours.observations, plain.observations)  # the same games,
    assert np.array_equal(ours.values, plain.values)  # the same value targets
    assert np.all(plain.masks[np.arange(plain.size), plain.moves])  # legal moves
    assert not np.array_equal(ours.moves, plain.moves)  # a random network's search disagrees with plain alpha-beta
    # the first labelled position of seed 1, rebuilt as play_games opens it: plain alpha-beta's move
    game_rng = np.random.default_rng(1)
    state = game.new_state(int(game_rng.integers(2**31)))
    for _ in range(int(game_rng.integers(2 + 1))):
        state.apply(int(game_rng.choice(state.legal_actions())))
    expected = search(state, 2, tt=TranspositionTable(16), rng=np.random.default_rng([1, 1])).best_action
    assert plain.moves[0] == expected
    with pytest.raises(ConfigError, match="value.policy.teacher must be search or plain"):
        load_config(QUICK, ["value.policy.teacher=ab"])


def test_workers_get_typed_settings_and_return_named_batches():
    # a forked worker gets a frozen SelfPlaySettings and returns a PositionBatch (both pickled by the
    # pool); the trainer concatenates batches by field name
    import pickle

    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import PositionBatch, play_games
    from mancala_envs.training.selfplay_backends import _FORKED, _play_chunk

    game = make_game("kalah-v0")
    settings = worker_settings(game, depth=1, random_plies=2, policy={"teacher": "plain", "teacher_depth": 2})
    assert (settings.teacher, settings.teacher_depth, settings.soft_temperature) == ("plain", 2, 0.0)
    copy = pickle.loads(pickle.dumps(settings))
    assert (copy.depth, copy.teacher_depth, copy.features.name) == (1, 2, "none")
    _FORKED.update(game=game, settings=settings)
    batches = [pickle.loads(pickle.dumps(_play_chunk((play_games, None, [seed])))) for seed in (1, 2)]
    assert all(isinstance(b, PositionBatch) and b.size > 0 and b.held_out is None for b in batches)
    both = PositionBatch.concatenate(batches)
    assert both.size == batches[0].size + batches[1].size and both.soft.shape == (both.size, 0)
    assert np.array_equal(both.moves, np.concatenate([batches[0].moves, batches[1].moves]))
    assert both.observations.dtype == np.float32 and both.masks.shape == (both.size, game.num_actions)
    assert set(np.unique(both.results)) <= {-1.0, 0.0, 1.0}


def test_widdershins_self_play_keeps_the_feature_rows_of_its_states(tmp_path):
    # The trainer's replay holds each position's move features, computed from its state at collection time
    # (Widdershins' come from the kernel's afterstates, which an observation cannot give back).
    from mancala_envs.agents.learned.learned_eval import input_width, save_evaluation
    from mancala_envs.agents.learned.move_features import move_feature_set, move_features
    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import play_games

    game = make_game("widdershins-v0", max_plies=40)
    features = move_feature_set("moves", game)
    save_evaluation(tmp_path, game, "scaled", "relu", [(np.zeros((input_width(game, "scaled", "moves"), 1)), np.zeros(1))],
                    features="moves", score_scale=1 / 6)
    settings = worker_settings(game, "moves", depth=1, random_plies=3, epsilon=0.0, policy={"teacher": "plain"})
    batch = play_games(game, load_evaluation(tmp_path, game), [4], settings)
    assert batch.feature_rows.shape == (batch.size, features.width)
    # replay the game to its first labelled position: its row is the features of that state
    rng = np.random.default_rng(4)
    state = game.new_state(int(rng.integers(2**31)))
    for _ in range(int(rng.integers(settings.random_plies + 1))):
        state.apply(int(rng.choice(state.legal_actions())))
    assert np.array_equal(batch.observations[0], state.observation(state.current_player))
    expected = move_features(features, game.params, state.array, batch.observations[0])[0]
    assert np.array_equal(batch.feature_rows[0], expected) and expected.any()


def test_soft_policy_targets_are_plain_alphabetas_values_of_every_move():
    # value.policy.temperature > 0: the policy's target is the softmax of every legal move's plain value
    from mancala_envs.agents.search import TranspositionTable, search
    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import root_move_values, soft_target

    game = make_game("kalah-v0")
    state = game.new_state(0)
    for action in (2, 5, 1):
        state.apply(action)
    values = root_move_values(state, 3, TranspositionTable(16), np.random.default_rng(0))
    legal = state.legal_actions()
    assert np.isfinite(values[legal]).all() and np.isinf(np.delete(values, legal)).all()
    for action in legal:
        child = state.clone()
        child.apply(int(action))
        found = search(child, 2, tt=TranspositionTable(16))
        assert values[action] == (found.value if child.current_player == state.current_player else -found.value)
    target = soft_target(values, 1.0)
    assert target.sum() == pytest.approx(1.0) and np.all(target[np.isinf(values)] == 0)
    assert np.argmax(target) == np.argmax(values)
    assert soft_target(np.array([2.0, 2.0, -np.inf]), 0.5).tolist() == [0.5, 0.5, 0.0]  # ties share the target
    # self-play writes them from the first iteration on (no evaluation yet: the search is plain alpha-beta)
    from mancala_envs.training.search_bootstrap import play_games
    settings = worker_settings(game, depth=2, random_plies=2, epsilon=0.0, policy={"teacher": "plain", "temperature": 1.0})
    batch = play_games(game, None, [3], settings)
    assert batch.soft.shape == (batch.size, game.num_actions) and np.allclose(batch.soft.sum(axis=1), 1)
    assert np.all(batch.soft[~batch.masks] == 0)  # no target on an illegal move
    # with the search teacher: the softmax of the self-play search's own value of every move (AlphaZero-style)
    assert load_config(QUICK, ["value.policy.temperature=0.1"]).value.policy.temperature == 0.1
    searched = play_games(game, None, [3], worker_settings(game, depth=2, random_plies=2, epsilon=0.0,
                                                            policy={"temperature": 0.1}))
    assert searched.soft.shape == (searched.size, game.num_actions) and np.allclose(searched.soft.sum(axis=1), 1)
    assert np.all(searched.soft[~searched.masks] == 0)
    best = searched.soft[np.arange(searched.size), searched.moves]
    assert np.all(best >= searched.soft.max(axis=1) - 1e-6)  # the search's move has the highest target


def test_a_deeper_plain_teacher_labels_the_same_games_with_its_own_moves(tmp_path):
    # value.policy.teacher_depth: the policy learns plain alpha-beta's move at that depth while self-play
    # (games, value targets) keeps value.depth; from the first iteration on (no evaluation yet).
    from mancala_envs.agents.search import TranspositionTable, search
    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import play_games

    game = make_game("kalah-v0")
    same = play_games(game, None, [1, 2],
                      worker_settings(game, depth=1, random_plies=2, epsilon=0.0, policy={"teacher": "plain"}))
    deeper = play_games(game, None, [1, 2], worker_settings(game, depth=1, random_plies=2, epsilon=0.0,
                                                            policy={"teacher": "plain", "teacher_depth": 4}))
    assert np.array_equal(same.observations, deeper.observations)  # the same games,
    assert np.array_equal(same.values, deeper.values)  # the same value targets
    assert not np.array_equal(same.moves, deeper.moves)  # depth 4 disagrees with depth 1 somewhere
    assert np.all(deeper.masks[np.arange(deeper.size), deeper.moves])  # legal moves
    game_rng = np.random.default_rng(1)
    state = game.new_state(int(game_rng.integers(2**31)))
    for _ in range(int(game_rng.integers(2 + 1))):
        state.apply(int(game_rng.choice(state.legal_actions())))
    expected = search(state, 4, tt=TranspositionTable(16), rng=np.random.default_rng([1, 1])).best_action
    assert deeper.moves[0] == expected
    # a tiny Widdershins run completes with it and leaves a playable policy
    from mancala_envs.agents.specs import make_agent
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    config = load_config(ROOT / "configs" / "widdershins-v0-value.yaml",
                         ["value.policy.teacher_depth=2", "value.iterations=1", "value.games=2", "value.depth=1",
                          "value.workers=1", "value.hidden=[8]", "value.eval_every=100", "eval.final_openings=1",
                          "eval.ladder=[random]", f"runs_dir={tmp_path}"])
    SearchBootstrapTrainer(config, tmp_path, RunState(), echo=lambda text: None).run()
    state = load_evaluation(tmp_path).game.new_state(5)
    assert state.is_legal(make_agent(f"policy:{tmp_path}", seed=0).act(state))
    with pytest.raises(ConfigError, match="value.policy.teacher_depth > 0 needs value.policy.teacher: plain"):
        load_config(QUICK, ["value.policy.teacher_depth=4"])
    with pytest.raises(ConfigError, match="value.policy.teacher_depth must be at least 0, got -1"):
        load_config(QUICK, ["value.policy.teacher_depth=-1", "value.policy.teacher=plain"])
    with pytest.raises(ConfigError, match="value.policy.teacher_depth must be an integer"):
        load_config(QUICK, ["value.policy.teacher_depth=deep", "value.policy.teacher=plain"])


def test_the_policy_heads_own_epochs_and_layers_leave_the_value_head_alone(tmp_path):
    # value.policy.epochs / value.policy.hidden change only the policy network: the same seed gives the
    # same games and the same value head, so a policy-only change is measured on the config's own search.
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    def trained(name: str, *overrides: str):
        config = load_config(QUICK, ["value.iterations=2", "value.games=2", "value.depth=1", "value.workers=1",
                                     "value.hidden=[8]", "value.epochs=1", "value.eval_every=100",
                                     "eval.final_openings=1", "eval.ladder=[random]", f"runs_dir={tmp_path}",
                                     *overrides])
        SearchBootstrapTrainer(config, tmp_path / name, RunState(), echo=lambda text: None).run()
        return load_evaluation(tmp_path / name)

    base = trained("base")
    more = trained("more", "value.policy.epochs=3", "value.policy.hidden=[16,4]")
    for (w, b), (w2, b2) in zip(base.value_layers, more.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert [w.shape[1] for w, _ in base.policy_layers] == [8, base.game.num_actions]
    assert [w.shape[1] for w, _ in more.policy_layers] == [16, 4, base.game.num_actions]
    state = base.game.new_state(3)
    assert np.isfinite(more.policy_logits(state.observation(0)[None], states=state.array[None])).all()  # move features
    for bad, message in (("value.policy.epochs=-1", "value.policy.epochs must be at least 0, got -1"),
                         ("value.policy.hidden=[0]", r"value.policy.hidden\[0\] must be at least 1, got 0"),
                         ("value.policy.hidden=64", "value.policy.hidden must be a list")):
        with pytest.raises(ConfigError, match=message):
            load_config(QUICK, [bad])


def test_the_policys_longer_replay_moving_average_and_weight_decay_change_the_policy_only(tmp_path):
    # value.policy.replay / value.policy.average / value.policy.weight_decay change only the exported policy: the same seed gives the same
    # games and value head (so each is measured on the config's own search), and 0 keeps the trainer as it was.
    from mancala_envs.training.checkpoint import RunState, checkpoint_file
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer, read_networks

    def trained(name: str, *overrides: str):
        config = load_config(QUICK, ["value.iterations=3", "value.games=2", "value.depth=1", "value.workers=1",
                                     "value.hidden=[8]", "value.epochs=1", "value.replay=40", "value.eval_every=100",
                                     "eval.final_openings=1", "eval.ladder=[random]", f"runs_dir={tmp_path}",
                                     *overrides])
        trainer = SearchBootstrapTrainer(config, tmp_path / name, RunState(), echo=lambda text: None)
        trainer.run()
        return trainer, load_evaluation(tmp_path / name)

    base_trainer, base = trained("base")
    _, same = trained("same", "value.policy.replay=40")  # the value head's memory: the trainer as before
    assert all(np.array_equal(a, b) for a, b in zip(layers(base), layers(same), strict=True))
    longer_trainer, longer = trained("longer", "value.policy.replay=100000")
    kept = sum(b.size for b in longer_trainer.buffer)
    assert kept > sum(b.size for b in base_trainer.buffer) and kept > 40  # the policy keeps every position
    for (w, b), (w2, b2) in zip(base.value_layers, longer.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert not np.array_equal(base.policy_layers[0][0], longer.policy_layers[0][0])
    # the moving average: after two fits, d * the first fit's weights + (1 - d) * the second's
    _, first = trained("first", "value.iterations=1", "value.policy.average=0.25")
    _, averaged = trained("averaged", "value.iterations=2", "value.policy.average=0.25")
    second = read_networks(checkpoint_file(tmp_path / "averaged"))["policy"]
    for i, (w, b) in enumerate(averaged.policy_layers):
        (w1, b1), key = first.policy_layers[i], f"{2 * i}."
        assert np.allclose(w, 0.25 * w1 + 0.75 * second[key + "weight"].numpy().T, atol=1e-6)
        assert np.allclose(b, 0.25 * b1 + 0.75 * second[key + "bias"].numpy(), atol=1e-6)
        assert not np.allclose(w, w1)
    for (w, b), (w2, b2) in zip(first.value_layers, trained("plain1", "value.iterations=1")[1].value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    # the policy's weight decay shrinks its MLP and leaves the value head alone
    _, decayed = trained("decayed", "value.policy.weight_decay=20")
    for (w, b), (w2, b2) in zip(base.value_layers, decayed.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert np.abs(decayed.policy_layers[0][0]).sum() < np.abs(base.policy_layers[0][0]).sum()
    for bad, message in (("value.policy.replay=-1", "value.policy.replay must be at least 0, got -1"),
                         ("value.policy.weight_decay=-1", "value.policy.weight_decay must be at least 0, got -1"),
                         ("value.policy.average=1", "value.policy.average must be from 0 to 0.99, got 1.0")):
        with pytest.raises(ConfigError, match=message):
            load_config(QUICK, [bad])


def test_the_move_scorer_trains_and_policy_run_plays_what_torch_computes(tmp_path):
    # value.policy.move_hidden: each move's logit adds an MLP of that move's block of move features and the
    # summary, shared by every move. It changes the policy only (same games, same value head), the file holds it,
    # policy:RUN's jitted pass equals the trainer's torch pass, --resume restores it, and it is off by default.
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    def trained(name: str, *overrides: str):
        config = load_config(ROOT / "configs" / "widdershins-v0-value.yaml",
                             ["value.iterations=2", "value.games=2", "value.depth=1", "value.policy.teacher_depth=2",
                              "value.workers=1", "value.hidden=[8]", "value.policy.hidden=[8]", "value.epochs=1",
                              "value.eval_every=100", "eval.final_openings=1", "eval.ladder=[random]",
                              f"runs_dir={tmp_path}", *overrides])
        trainer = SearchBootstrapTrainer(config, tmp_path / name, RunState(), echo=lambda text: None)
        trainer.run()
        return trainer, load_evaluation(tmp_path / name)

    _, base = trained("base", "value.policy.move_hidden=[]")  # off (the config has one)
    trainer, scored = trained("scored", "value.policy.move_hidden=[6]")
    for (w, b), (w2, b2) in zip(base.value_layers, scored.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert base.move_scorer is None and [w.shape for w, _ in scored.move_scorer] == [(21, 6), (6, 1)]
    with np.load(tmp_path / "base" / "evaluation.npz") as data:  # off: the file as before
        assert str(data["format"]) == "mancala-eval-1" and not any(k.startswith("move_scorer") for k in data.files)
    # the play-time pass (net_policy, what policy:RUN and MCTS's priors run) equals torch's on random positions
    _, reference, _, jitted = policy_passes(trainer, scored, 15, 7)
    assert np.allclose(jitted, reference, rtol=1e-4, atol=1e-4)
    assert np.std(reference[:, :24]) > 0
    # --resume: the checkpoint restores the scorer (the exported file is the same)
    resumed = SearchBootstrapTrainer(trainer.config, tmp_path / "scored", RunState(), echo=lambda text: None)
    resumed._load_checkpoint()
    again = resumed._save_evaluation()
    for (w, b), (w2, b2) in zip(scored.move_scorer, again.move_scorer, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    with pytest.raises(ConfigError, match="value.policy.move_hidden needs move features"):
        load_config(QUICK, ["value.policy.features=none", "value.policy.move_hidden=[8]"])
    with pytest.raises(ConfigError, match=r"value.policy.move_hidden\[0\] must be at least 1, got 0"):
        load_config(ROOT / "configs" / "widdershins-v0-value.yaml", ["value.policy.move_hidden=[0]"])


def test_the_bare_policys_own_games_train_the_policy_only_and_resume(tmp_path):
    # value.policy.dagger_games: from the second iteration on, games of the bare policy against random, every
    # position where it moves labelled by plain alpha-beta, fitted by the policy alone: the same games and value
    # head, a different policy, whose jitted pass (policy:RUN) still equals numpy's and torch's; --resume runs on.
    from mancala_envs.agents.search import TranspositionTable, search
    from mancala_envs.training.checkpoint import RunState, load_checkpoint
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer, SelfPlaySettings, play_dagger

    def trainer_for(name: str, *overrides: str, iterations: int = 3):
        config = load_config(ROOT / "configs" / "widdershins-v0-value.yaml",
                             [f"value.iterations={iterations}", "value.games=2", "value.depth=1",
                              "value.policy.teacher_depth=2", "value.workers=1", "value.hidden=[8]",
                              "value.policy.hidden=[8]", "value.policy.move_hidden=[6]", "value.epochs=1",
                              "value.eval_every=100", "eval.final_openings=1", "eval.ladder=[random]",
                              f"runs_dir={tmp_path}", *overrides])
        return SearchBootstrapTrainer(config, tmp_path / name, RunState(), echo=lambda text: None)

    def trained(name: str, *overrides: str, iterations: int = 3):
        trainer = trainer_for(name, *overrides, iterations=iterations)
        trainer.run()
        return trainer, load_evaluation(tmp_path / name)

    base_trainer, base = trained("base")
    trainer, dagger = trained("dagger", "value.policy.dagger_games=3")
    assert not base_trainer.dagger_buffer and len(trainer.dagger_buffer) == 2  # iterations 2 and 3
    for (w, b), (w2, b2) in zip(base.value_layers, dagger.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert not np.array_equal(base.policy_layers[0][0], dagger.policy_layers[0][0])
    # the batch: positions where the policy chose among two or more moves, each labelled by plain alpha-beta
    settings = SelfPlaySettings.of(trainer.cfg, trainer.features)  # as the trainer's workers get it
    assert (settings.depth, settings.teacher_depth, settings.random_plies, settings.temperature) == (1, 2, 8, 0.0)
    batch = play_dagger(dagger.game, dagger, [5, 6], settings)
    obs, moves, masks = batch.observations, batch.moves, batch.masks
    assert batch.size > 4 and masks[np.arange(batch.size), moves].all() and (masks.sum(1) > 1).all()
    assert not batch.values.any() and not batch.results.any() and not batch.own.any()
    assert batch.soft.shape == (batch.size, 0) and batch.feature_rows.shape == (batch.size, trainer.features.width)
    rng = np.random.default_rng([5, 2])  # replayed to its first labelled position: plain alpha-beta's move there
    state = dagger.game.new_state(int(rng.integers(2**31)))
    opening = int(rng.integers(9))
    while True:
        legal = state.legal_actions()
        if state.plies < opening or state.current_player != 5 % 2:
            state.apply(int(rng.choice(legal)))
        elif len(legal) == 1:
            state.apply(int(legal[0]))
        else:
            break
    assert np.array_equal(obs[0], state.observation(1))
    assert moves[0] == search(state, 2, tt=TranspositionTable(16), rng=rng).best_action
    # the policy's move in play: the jitted pass equals numpy's and the trainer's torch pass
    _, reference, numpy_logits, jitted = policy_passes(trainer, dagger, 10, 3)
    assert np.allclose(jitted, reference, rtol=1e-4, atol=1e-4) and np.allclose(jitted, numpy_logits, atol=1e-6)
    # plain alpha-beta's labels: a soft target's argmax where temperature > 0
    hot = play_dagger(dagger.game, dagger, [5], replace(settings, temperature=1.0))
    assert hot.soft.shape == (hot.size, dagger.game.num_actions) and np.allclose(hot.soft.sum(1), 1.0, atol=1e-5)
    assert np.allclose(hot.soft[np.arange(hot.size), hot.moves], hot.soft.max(1))  # a best move (ties share)
    # --resume: a third iteration after two, its bare-policy games from the resumed evaluation, the buffers from
    # the checkpoint: the networks of the run never stopped
    trained("resumed", "value.policy.dagger_games=3", iterations=2)
    resumed = trainer_for("resumed", "value.policy.dagger_games=3")
    resumed.state = load_checkpoint(tmp_path / "resumed")
    resumed.run()
    assert resumed.state.steps == 3 and len(resumed.dagger_buffer) == 2
    again = load_evaluation(tmp_path / "resumed")
    assert all(np.array_equal(a, b) for a, b in zip(layers(again), layers(dagger), strict=True))
    for bad, message in (("value.policy.dagger_games=-1", "value.policy.dagger_games must be at least 0, got -1"),
                         ("value.policy.teacher=search", "value.policy.dagger_games > 0 needs value.policy.teacher: plain")):
        with pytest.raises(ConfigError, match=message):
            load_config(ROOT / "configs" / "widdershins-v0-value.yaml",
                        ["value.policy.dagger_games=2", "value.policy.teacher_depth=0", bad])
