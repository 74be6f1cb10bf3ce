"""The batched engine as a Gymnasium VectorEnv (``mancala_envs.vector_gym``)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError
from mancala_envs.vector_gym import MancalaVectorEnv


def make_vec(env_id="kalah-v0", num_envs=8, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns about missing or malformed autoreset metadata
        return gymnasium.make_vec(f"mancala/{env_id}", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def random_actions(masks, rng):
    return np.argmax(masks * rng.random(masks.shape), axis=1)


def check_learner_positions(env, obs):
    """Every game waits for the learner, and obs/masks are the learner's."""
    for i in range(env.num_envs):
        state = env.batch.state(i)
        seat = int(env.seats[i])
        assert state.current_player == seat
        np.testing.assert_array_equal(obs[i], state.observation(seat))
        np.testing.assert_array_equal(env.action_masks()[i], state.action_mask().astype(bool))


def test_make_vec_gives_the_numba_vector_env_with_256_games():
    env = make_vec(num_envs=256)
    assert isinstance(env, MancalaVectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(6)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs.dtype == np.float32
    assert set(info["learner_seat"].tolist()) == {0, 1}, "alternating seats: both seats in every batch"
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        obs, rewards, terminated, truncated, info = env.step(random_actions(env.action_masks(), rng))
        assert env.observation_space.contains(obs)
        assert rewards.dtype == np.float64 and terminated.dtype == bool and truncated.dtype == bool
        ended += int((terminated | truncated).sum())
    assert ended > 0
    # without vectorization_mode the vector entry point is chosen too
    assert isinstance(gymnasium.make_vec("mancala/kalah-v0", num_envs=2), MancalaVectorEnv)


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_every_id_plays_learner_turns_only(env_id):
    env = make_vec(env_id, num_envs=6)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        check_learner_positions(env, obs)
        obs, rewards, terminated, truncated, info = env.step(random_actions(env.action_masks(), rng))
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        assert not (rewards[~terminated] != 0).any()


def test_final_observation_and_rewards_follow_same_step_autoreset():
    env = make_vec("kalah-v0", num_envs=16, pits=3, seeds=2)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    seen_end = False
    for _ in range(80):
        obs, rewards, terminated, truncated, info = env.step(random_actions(env.action_masks(), rng))
        done = terminated | truncated
        if not done.any():
            assert "final_obs" not in info
            continue
        seen_end = True
        np.testing.assert_array_equal(info["_final_obs"], done)
        for i in np.flatnonzero(done):
            final = info["final_obs"][i]
            assert final.shape == obs[i].shape
            mine, theirs = info["final_info"]["scores"][i]
            if terminated[i]:  # in Kalah the result follows the stores
                assert rewards[i] == np.sign(mine - theirs)
            # the final observation is the learner's view: "mine" first (store at index pits)
            assert final[3] == mine or not terminated[i]
        assert all(info["final_obs"][i] is None for i in np.flatnonzero(~done))
        check_learner_positions(env, obs)
    assert seen_end


def test_same_seed_same_games_and_returned_arrays_are_fresh():
    def trace(seed):
        env = make_vec("afrika-v0", num_envs=4)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs.copy()]
        for _ in range(20):
            obs, rewards, *_ = env.step(random_actions(env.action_masks(), rng))
            out.append(obs.copy())
            obs[:] = -1  # changing what step returned must not change the env
        return np.array(out)

    np.testing.assert_array_equal(trace(5), trace(5))
    assert not np.array_equal(trace(5), trace(6))


def test_fixed_seat_and_an_agent_opponent():
    env = make_vec("kalah-v0", num_envs=3, opponent="greedy", learner_seat=1)
    obs, info = env.reset(seed=0)
    assert (info["learner_seat"] == 1).all()
    assert all(env.batch.state(i).plies >= 1 for i in range(3)), "the opponent moved first"
    rng = np.random.default_rng(0)
    for _ in range(10):
        check_learner_positions(env, obs)
        obs, *_ = env.step(random_actions(env.action_masks(), rng))


def test_bad_input_is_refused_clearly():
    env = make_vec(num_envs=2)
    env.reset(seed=0)
    illegal = np.where(env.action_masks()[0], -1, np.arange(6)).max()
    if illegal >= 0:
        with pytest.raises(IllegalActionError, match="not legal"):
            env.step(np.array([illegal, int(np.flatnonzero(env.action_masks()[1])[0])]))
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(InvalidOptionError, match="learner_seat"):
        make_vec(learner_seat="random")
    with pytest.raises(InvalidOptionError, match="no options"):
        env.reset(options={"state": None})
    with pytest.raises(InvalidOptionError, match="one integer seed"):
        env.reset(seed=[1, 2])


def test_gymnasium_vector_wrappers_work():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(make_vec(num_envs=8, pits=3, seeds=2))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    lengths = []
    for _ in range(60):
        *_, info = env.step(random_actions(env.unwrapped.action_masks(), rng))
        if "episode" in info:
            lengths += info["episode"]["l"][info["_episode"]].tolist()
    assert lengths and min(lengths) >= 1


def test_benchmark_script_runs_and_writes_its_file(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "vector_env.json"
    cmd = [sys.executable, "benchmarks/vector_env.py", "--num-envs", "4", "--steps", "20", "--samples", "1", "--out", str(out)]
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["num_envs"] == 4 and figures["speedup"] > 0  # no timing is asserted
    assert "speedup" in done.stdout
