"""The single-agent Gymnasium env: the learner's side only, masks, seats, SB3 training."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mancala_envs
from mancala_envs.agents import GreedyAgent, RandomAgent
from mancala_envs import IllegalActionError, InvalidOptionError, InvalidStateError, MancalaGymEnv


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
def test_both_env_checkers_pass_on_every_id(env_id):
    # No help from masks: the checkers sample any action, and illegal ones end the episode.
    check_env(gymnasium.make(f"mancala/{env_id}").unwrapped)
    sb3_env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_env_checker.check_env(MancalaGymEnv(env_id), warn=True)


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
    env = MancalaGymEnv("kalah-v0", learner_seat=0, illegal_action="raise")
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
    with pytest.raises(InvalidOptionError, match="illegal_action"):
        MancalaGymEnv("kalah-v0", illegal_action="ignore")
    with pytest.raises(mancala_envs.MancalaError, match="unknown agent 'grandmaster'"):
        MancalaGymEnv("kalah-v0", opponent="grandmaster")
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


LOST_POSITION = {"pits": [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]], "stores": [10, 9], "to_move": 0}


def test_illegal_action_terminates_by_default():
    env = MancalaGymEnv("kalah-v0", learner_seat=0)
    obs, _ = env.reset(seed=0, options={"state": LOST_POSITION})
    obs2, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == 0 and "legal actions are [5]" in info["illegal_reason"]
    np.testing.assert_array_equal(obs2, obs)  # nothing moved
    assert not env.action_masks().any()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(5)
    with pytest.raises(IllegalActionError, match="out of range"):  # outside the action space: still an error
        env.reset(seed=0)
        env.step(6)
    # a new episode plays normally
    env.reset(seed=1)
    assert env.action_masks().any()


def test_opponent_from_a_spec_string():
    env = MancalaGymEnv("kalah-v0", opponent="alphabeta:depth=2", learner_seat=1)
    assert type(env.opponent).__name__ == "AlphaBetaAgent"
    env.reset(seed=0)
    assert env.state.plies >= 1 and env.state.current_player == 1
    made = gymnasium.make("mancala/kalah-v0", opponent="greedy")
    assert type(made.unwrapped.opponent).__name__ == "GreedyAgent"


def test_reset_from_a_state_and_refused_states():
    env = MancalaGymEnv("kalah-v0", learner_seat=0)
    obs, info = env.reset(seed=3, options={"state": LOST_POSITION})
    assert env.state.to_json()["pits"] == LOST_POSITION["pits"] and info["learner_seat"] == 0
    start = env.game.state_from_json(LOST_POSITION)
    env.reset(options={"state": start})
    env.step(5)
    assert start.plies == 0, "the given State is copied, not played on"
    # the opponent moves first when it is its turn in the given position
    seat1 = MancalaGymEnv("kalah-v0", learner_seat=1, opponent=RecordingOpponent())
    seat1.reset(options={"state": mancala_envs.make_game("kalah-v0").new_state()})
    assert seat1.state.current_player == 1 and seat1.state.plies >= 1
    with pytest.raises(InvalidStateError, match="pits=4"):
        env.reset(options={"state": mancala_envs.make_game("kalah-v0", pits=4).new_state()})
    with pytest.raises(InvalidStateError, match="Rondell|rondell"):
        env.reset(options={"state": mancala_envs.make_game("rondell-v0").new_state(seed=0)})
    with pytest.raises(InvalidOptionError, match="unknown reset option 'seat'"):
        env.reset(options={"seat": 1})
    over = {"pits": [[0] * 6, [0] * 6], "stores": [24, 24], "to_move": 0}
    with pytest.raises(InvalidStateError, match="the game is over"):
        env.reset(options={"state": over})


@pytest.mark.parametrize("algo", ["PPO", "DQN"])
def test_plain_sb3_algorithms_train(algo):
    torch = pytest.importorskip("torch")
    sb3 = pytest.importorskip("stable_baselines3")
    torch.set_num_threads(1)
    env = gymnasium.make("mancala/rondell-v0" if algo == "PPO" else "mancala/kalah-v0")
    kwargs = {"n_steps": 64, "batch_size": 32, "n_epochs": 1} if algo == "PPO" else {"learning_starts": 32}
    model = getattr(sb3, algo)("MlpPolicy", env, seed=0, verbose=0, **kwargs)
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128


SUBPROC_SCRIPT = """
import mancala_envs
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv
venv = make_vec_env({env_id!r}, n_envs=2, vec_env_cls=SubprocVecEnv, env_kwargs={{"render_mode": None}},
                    vec_env_kwargs={{"start_method": {method!r}}})
obs = venv.reset()
venv.step(venv.env_method("action_masks")[0].argmax(keepdims=True).repeat(2))
print("shape", obs.shape)
venv.close()
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "env_id, method",
    [("mancala/kalah-v0", "forkserver"), ("mancala_envs:mancala/kalah-v0", "spawn")],
)
@pytest.mark.slow
def test_subproc_vec_env_in_fresh_interpreters(env_id, method):
    """The documented ids work in SubprocVecEnv's children, which never imported the package
    themselves: the plain id through the fork server's preload, the module:id form anywhere."""
    pytest.importorskip("stable_baselines3")
    import subprocess
    import sys

    # -c: no __main__ file for the children to re-import, as under pytest or in a notebook
    script = SUBPROC_SCRIPT.format(env_id=env_id, method=method)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "shape (2, 15)" in done.stdout


def test_rgb_array_without_pygame_fails_only_on_render(monkeypatch):
    import mancala_envs.render as render

    def missing():
        raise render.RenderUnavailableError('pygame is not installed: pip install "mancala-envs[render]"')

    monkeypatch.setattr(render, "require_pygame", missing)
    env = MancalaGymEnv("kalah-v0", render_mode="rgb_array")  # as SB3's make_vec_env asks
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(render.RenderUnavailableError, match="mancala-envs\\[render\\]"):
        env.render()
    with pytest.raises(render.RenderUnavailableError):
        MancalaGymEnv("kalah-v0", render_mode="human")
