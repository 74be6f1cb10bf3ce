"""SelfPlayVecEnv: only learner-side transitions, seats, batched opponents, SB3 training."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.learned.frozen_policy import PolicyOpponent
from mancala_envs.training.selfplay import OpponentPool, SelfPlayVecEnv


class FirstLegal:
    """Deterministic agent: the lowest legal action. Counts its calls."""

    name = "first-legal"

    def __init__(self):
        self.calls = 0

    def act(self, state):
        self.calls += 1
        return state.legal_actions()[0]


def test_transitions_match_a_hand_played_game():
    opponent = FirstLegal()
    env = SelfPlayVecEnv("kalah-v0", 1, opponents=[opponent], seed=0, pits=4, seeds=3)
    game = mancala_envs.make_game("kalah-v0", pits=4, seeds=3)
    obs = env.reset()
    state = game.new_state()  # learner is player_0 in game 0, and Kalah deals nothing
    np.testing.assert_array_equal(obs[0], state.observation(0))
    rng = np.random.default_rng(1)
    while True:
        mask = env.action_masks()[0]
        np.testing.assert_array_equal(mask, state.action_mask().astype(bool))
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, rewards, dones, infos = env.step(np.array([action]))
        state.apply(action)
        while state.current_player == 1:  # the opponent's replies, extra turns included
            state.apply(state.legal_actions()[0])
        if state.is_terminal():
            assert dones[0]
            assert rewards[0] == state.returns()[0]
            np.testing.assert_array_equal(infos[0]["terminal_observation"], state.observation(0))
            result = infos[0]["episode_result"]
            assert result["learner_seat"] == 0 and result["scores"] == state.scores()
            assert infos[0]["TimeLimit.truncated"] is False
            break
        assert not dones[0] and rewards[0] == 0.0
        np.testing.assert_array_equal(obs[0], state.observation(0))
    # the next episode has the learner in the other seat: the opponent has already opened
    second = game.new_state()
    while second.current_player == 0:
        second.apply(second.legal_actions()[0])
    assert env.seats[0] == 1
    np.testing.assert_array_equal(obs[0], second.observation(1))


def test_extra_turn_stays_with_the_learner_without_asking_the_opponent():
    opponent = FirstLegal()
    env = SelfPlayVecEnv("kalah-v0", 2, opponents=[opponent], seed=0)
    env.reset()
    calls_after_reset = opponent.calls  # game 1 has the learner second: the opponent opened
    assert calls_after_reset >= 1
    obs, rewards, dones, _ = env.step(np.array([2, int(np.flatnonzero(env.action_masks()[1])[0])]))
    # game 0: Pratt's hole 4 ends in the learner's store, so it is the learner's turn again
    assert env.batch.players[0] == env.seats[0] == 0
    assert not dones.any()


def test_rewards_and_results_per_seat_add_up():
    env = SelfPlayVecEnv("kalah-v0", 16, opponents=["random"], seed=4)
    env.reset()
    total = 0.0
    finished = []
    for _ in range(600):
        actions = np.array([np.flatnonzero(m)[-1] for m in env.action_masks()])
        _, rewards, dones, infos = env.step(actions)
        total += rewards.sum()
        for i in np.flatnonzero(dones):
            finished.append(infos[i]["episode_result"])
            assert rewards[i] == infos[i]["episode_result"]["return"]
    assert len(finished) > 50
    seats = {r["learner_seat"] for r in finished}
    assert seats == {0, 1}
    wins = sum(r["return"] > 0 for r in finished)
    losses = sum(r["return"] < 0 for r in finished)
    assert total == wins - losses
    by_seat = env.results_by_seat
    assert sum(by_seat[0]) + sum(by_seat[1]) == len(finished)
    assert by_seat[0][0] + by_seat[1][0] == wins


class CountingPolicy:
    """A stub snapshot: checks that each call covers every game then waiting on it."""

    def __init__(self):
        self.batch_sizes = []
        self.env = None

    def __call__(self, obs, masks, rng):
        waiting = int((self.env.batch.players != self.env.seats).sum())
        assert len(obs) == waiting, f"a call covered {len(obs)} games while {waiting} were waiting"
        self.batch_sizes.append(len(obs))
        return np.array([np.flatnonzero(m)[0] for m in masks])


def test_snapshot_opponents_are_batched():
    stub = CountingPolicy()
    env = SelfPlayVecEnv("kalah-v0", 32, opponents=[PolicyOpponent(stub, "stub")], seed=0)
    stub.env = env
    env.reset()
    for _ in range(30):
        env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
    moves = sum(stub.batch_sizes)
    assert max(stub.batch_sizes) >= 16, "the first round covers every game"
    assert len(stub.batch_sizes) < moves / 4, "calls are per round, not per game"


def test_same_seed_same_games_and_opponent_draws():
    def run(seed):
        pool = OpponentPool([("random", 1.0), (FirstLegal(), 2.0)])
        env = SelfPlayVecEnv("kalah-bidirectional-v0", 8, opponents=pool, seed=seed)
        obs = [env.reset().copy()]
        draws = [env.assignment.copy()]
        for _ in range(80):
            env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
            obs.append(env.batch.obs.copy())
            draws.append(env.assignment.copy())
        return np.stack(obs), np.stack(draws)

    a, b, c = run(7), run(7), run(8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_pool_rejects_bad_opponents():
    with pytest.raises(mancala_envs.InvalidOptionError, match="act\\(state\\)"):
        OpponentPool([object()])
    with pytest.raises(mancala_envs.InvalidOptionError, match="weight must be positive"):
        OpponentPool([("random", 0.0)])


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_every_id_plays_learner_side_only(env_id):
    env = SelfPlayVecEnv(env_id, 4, opponents=["random"], seed=1)
    env.reset()
    for _ in range(100):
        assert np.array_equal(env.batch.players, env.seats), "every game must wait on the learner"
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        env.step(np.array([np.flatnonzero(m)[0] for m in masks]))


def test_maskable_ppo_trains_with_a_snapshot_opponent():
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    torch.set_num_threads(1)
    env = SelfPlayVecEnv("kalah-v0", 8, opponents=["random"], seed=0, pits=4, seeds=3)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", VecCheckNan(VecMonitor(env), raise_exception=True), n_steps=32, batch_size=64,
        n_epochs=1, seed=0, verbose=0,
    )
    model.learn(total_timesteps=256)
    env.pool.add(PolicyOpponent.snapshot(model, "snapshot-1"), weight=1.0)
    model.learn(total_timesteps=256, reset_num_timesteps=False)
    assert model.num_timesteps >= 512
    names = {entry.name for entry in env.pool.entries}
    assert names == {"random", "snapshot-1"}


NETWORKS = [  # (policy_kwargs entries from features_extractor(encoding, transform), activation, net_arch)
    ("counts", "none", "tanh", [32, 16]),
    ("counts", "log1p", "relu", [32, 16]),
    ("counts", "none", "relu", []),
    ("counts", "none", "relu", dict(pi=[24], vf=[16, 8])),
    ("onehot", "none", "relu", [32, 16]),
    ("thermometer", "none", "tanh", [16]),
    ("scaled", "none", "relu", dict(pi=[8], vf=[])),
]


def _model(env, encoding, transform, activation, net_arch):
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from mancala_envs.agents.learned.features import features_extractor

    policy_kwargs = dict(net_arch=net_arch, activation_fn={"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[activation],
                         **features_extractor(encoding, transform))
    return sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, policy_kwargs=policy_kwargs)


@pytest.mark.parametrize("encoding,transform,activation,net_arch", NETWORKS)
def test_snapshot_numpy_networks_match_the_torch_policy(encoding, transform, activation, net_arch, tmp_path):
    torch = pytest.importorskip("torch")
    from mancala_envs.agents.learned.frozen_policy import numpy_networks, save_policy_evaluation
    from mancala_envs.agents.learned.learned_eval import load_evaluation, net_value

    env = SelfPlayVecEnv("kalah-v0", 4, seed=0)
    model = _model(env, encoding, transform, activation, net_arch)
    networks = numpy_networks(model.policy)
    assert networks is not None and networks.encoding == (encoding if transform == "none" else None)
    obs = np.stack([env.batch.state(0).observation(0)] +
                   [np.random.default_rng(k).integers(0, 9, env.observation_space.shape[0]) for k in range(9)])
    obs = obs.astype(np.float32)
    with torch.no_grad():
        policy = model.policy
        features = policy.extract_features(torch.as_tensor(obs))
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
        expected_values = policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
    np.testing.assert_allclose(networks.logits(obs), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(networks.values(obs), expected_values, rtol=1e-5, atol=1e-5)
    # the run's evaluation.npz: the search reads the same value and policy
    saved = save_policy_evaluation(model.policy, env.game, tmp_path)
    if transform != "none":
        assert saved is None and not (tmp_path / "evaluation.npz").exists()
    else:
        evaluation = load_evaluation(tmp_path, env.game)
        assert saved == tmp_path / "evaluation.npz" and evaluation.source == "ppo"
        np.testing.assert_allclose(evaluation.value(obs), expected_values, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(evaluation.policy_logits(obs), expected, rtol=1e-4, atol=1e-5)
        net = evaluation.net()
        assert net_value(net, obs[0]) == pytest.approx(float(expected_values[0]), rel=1e-4, abs=1e-5)
    snapshot = PolicyOpponent.snapshot(model, deterministic=True)
    masks = np.ones((10, env.action_space.n), dtype=bool)
    masks[:, expected.argmax(axis=1)[0]] = False
    chosen = snapshot(obs, masks, np.random.default_rng(0))
    assert all(masks[i, a] for i, a in enumerate(chosen))
    np.testing.assert_array_equal(chosen, np.where(masks, expected, -np.inf).argmax(axis=1))


def test_an_empty_pool_stays_empty_and_cannot_play():
    assert [e.name for e in OpponentPool().entries] == ["random"]
    pool = OpponentPool([])
    assert pool.entries == []
    with pytest.raises(mancala_envs.MancalaError, match="pool is empty"):
        SelfPlayVecEnv("kalah-v0", 2, opponents=pool, seed=0)
    pool.add(FirstLegal(), 1.0)
    assert [e.name for e in pool.entries] == ["first-legal"]


def test_opening_plies_diversify_games_against_a_deterministic_opponent():
    game = mancala_envs.make_game("kalah-v0")
    start = game.new_state()
    pool = OpponentPool([])
    pool.add(FirstLegal(), 1.0, opening_plies=(2, 4))
    env = SelfPlayVecEnv("kalah-v0", 16, opponents=pool, seed=3)
    first = env.reset()
    assert (env.opening_left == 0).all() and np.array_equal(env.batch.players, env.seats)
    assert len({row.tobytes() for row in first}) > 8, "games start from different openings"
    assert not any(np.array_equal(row, start.observation(0)) for row in first[::2])
    with pytest.raises(mancala_envs.MancalaError, match="opening_plies"):
        pool.add(FirstLegal(), 1.0, opening_plies=(3, 1))


def test_margin_reward_shapes_the_terminal_reward():
    results = {}
    for w in (0.0, 0.5):
        env = SelfPlayVecEnv("kalah-v0", 8, opponents=["random"], seed=4, margin_reward=w)
        env.reset()
        got = []
        while len(got) < 8:
            actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
            _, rewards, dones, infos = env.step(actions)
            got += [(rewards[i], infos[i]["episode_result"]) for i in np.flatnonzero(dones)]
        results[w] = got
    for (plain, result), (shaped, same) in zip(results[0.0], results[0.5]):
        assert result == same  # the same games: shaping changes rewards only
        mine, theirs = result["scores"]
        assert plain == np.sign(mine - theirs)
        assert shaped == pytest.approx(0.5 * plain + 0.5 * (mine - theirs) / 48)
        assert np.sign(shaped) == np.sign(plain)
    with pytest.raises(mancala_envs.MancalaError, match="margin_reward"):
        SelfPlayVecEnv("kalah-v0", 2, margin_reward=1.5)
