"""The single-agent Gymnasium env: the learner's side only, masks, seats, SB3 training."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mancala_envs
from mancala_envs.agents import GreedyAgent, RandomAgent
from mancala_envs import IllegalActionError, InvalidOptionError, MancalaGymEnv


class RecordingOpponent:
    """Plays the first legal action and records the positions it was shown."""

    def __init__(self):
        self.seen = []
        self.reset_seeds = []

    def reset(self, seed=None):
        self.reset_seeds.append(seed)

    def act(self, state):
        self.seen.append(state)
        return state.legal_actions()[0]


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_gymnasium_env_checker(env_id):
    env = MancalaGymEnv(env_id)
    # The checker steps with action_space.sample(); a masked game refuses illegal actions,
    # so let its samples follow the learner's mask, as a masked agent's would.
    space = env.action_space
    space.sample = lambda mask=None, probability=None: type(space).sample(space, mask=env.action_masks().astype(np.int8))
    check_env(env, skip_render_check=True)


def test_learner_only_sees_its_own_turns():
    opponent = RecordingOpponent()
    env = MancalaGymEnv("kalah-v0", opponent=opponent, learner_seat=1)
    obs, info = env.reset(seed=0)
    assert info["learner_seat"] == 1
    assert env.state.current_player == 1
    assert opponent.seen, "player_0 (the opponent) moves first"
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        np.testing.assert_array_equal(obs, env.state.observation(1))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if not (terminated or truncated):
            assert env.state.current_player == 1
            assert reward == 0.0
    assert terminated
    mine, theirs = info["scores"]
    assert reward == (1.0 if mine > theirs else -1.0 if mine < theirs else 0.0)
    assert not env.action_masks().any()
    # the opponent was handed copies: changing them never touched the live game
    assert all(seen is not env.state for seen in opponent.seen)


def test_alternating_seats_and_opponent_seeding():
    opponent = RecordingOpponent()
    env = MancalaGymEnv("kalah-v0", opponent=opponent)
    seats = []
    for episode in range(4):
        _, info = env.reset(seed=episode if episode == 0 else None)
        seats.append(info["learner_seat"])
    assert seats == [0, 1, 0, 1]
    assert len(opponent.reset_seeds) == 4 and all(isinstance(s, int) for s in opponent.reset_seeds)


def test_same_seed_same_episode():
    def episode(seed):
        env = MancalaGymEnv("kalah-v0", opponent=RandomAgent(), learner_seat="random")
        obs, info = env.reset(seed=seed)
        trace = [info["learner_seat"], obs.tolist()]
        done = False
        while not done:
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, reward, terminated, truncated, info = env.step(action)
            trace.append(obs.tolist())
            done = terminated or truncated
        return trace

    assert episode(12) == episode(12)


def test_illegal_learner_action_and_step_after_end():
    env = MancalaGymEnv("kalah-v0", learner_seat=0)
    env.reset(seed=0)
    env.state = env.game.state_from_json(
        {"pits": [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]], "stores": [10, 9], "to_move": 0}
    )
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(6)
    _, reward, terminated, _, _ = env.step(5)
    # the seed enters the store (11), player_0 has no seed left: over, player_1 keeps 9 + 1
    assert terminated and reward == 1.0 and env.state.scores() == [11, 10]
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)


def test_bad_constructor_arguments():
    with pytest.raises(InvalidOptionError, match="learner_seat"):
        MancalaGymEnv("kalah-v0", learner_seat=2)
    with pytest.raises(InvalidOptionError, match="act"):
        MancalaGymEnv("kalah-v0", opponent=object())
    with pytest.raises(InvalidOptionError, match="pits"):
        MancalaGymEnv("kalah-v0", pits=0)


def test_gymnasium_make_with_options_and_opponent():
    env = gymnasium.make("mancala/kalah-v0", pits=4, seeds=3, opponent=GreedyAgent(seed=1))
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2 * 4 + 3,)
    assert env.unwrapped.game.options["seeds"] == 3


def test_maskable_ppo_trains_without_wrappers():
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    env = MancalaGymEnv("kalah-v0", pits=4, seeds=3)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, verbose=0)
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
    assert model.num_timesteps >= 128
