"""Conformance of every registered id: a new game gets all of this by registering.

PettingZoo's own api_test and seed_test, random full games through the AEC loop, spaces,
dtypes and shapes, terminal and truncation behaviour, cloning, and the framework registries.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.wrappers import CaptureStdoutWrapper

import mancala_envs
from mancala_envs import InvalidStateError, make

ENV_IDS = mancala_envs.list_envs()


def random_aec_game(env, rng: np.random.Generator, seed: int | None = None):
    """Play one game through the standard PettingZoo loop; returns (plies, final rewards)."""
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    plies = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            plies += 1
        env.step(action)
    return plies, totals


def test_registry_lists_the_kalah_family():
    for env_id in (
        "kalah-v0",
        "kalah-basic-v0",
        "kalah-bidirectional-v0",
        "kalah-chosen-start-v0",
        "kalah-irving2000-v0",
    ):
        assert env_id in ENV_IDS


def test_each_family_has_one_main_id_named_after_it():
    from mancala_envs.registry import FAMILY_MODULES, get_entry, main_ids

    ids = main_ids()
    assert ids == [f"{get_entry(i).game_class.family}-v0" for i in ids]
    assert len(set(ids)) == len(FAMILY_MODULES) and set(ids) <= set(ENV_IDS)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_api_test(env_id):
    api_test(make(env_id), num_cycles=300)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_seed_test(env_id):
    seed_test(lambda: make(env_id), num_cycles=300)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_random_games_spaces_and_dtypes(env_id):
    env = make(env_id)
    rng = np.random.default_rng(7)
    game = env.unwrapped.game
    for g in range(20):
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            assert set(obs) == {"observation", "action_mask"}
            assert obs["observation"].dtype == np.float32
            assert obs["observation"].shape == (game.observation_size,)
            assert obs["action_mask"].dtype == np.int8
            assert obs["action_mask"].shape == (game.num_actions,)
            assert env.observation_space(agent).contains(obs)
            assert set(info["scores"]) == {"player_0", "player_1"}
            if terminated or truncated:
                env.step(None)
                continue
            state = env.unwrapped.game_state
            assert agent == f"player_{state.current_player}"
            assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()
            other = "player_1" if agent == "player_0" else "player_0"
            assert not env.observe(other)["action_mask"].any(), "off-turn mask must be all zeros"
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_terminal_rewards_match_the_kernel_returns(env_id):
    env = make(env_id)
    rng = np.random.default_rng(3)
    outcomes = set()
    for g in range(30):
        env.reset(seed=g)
        final = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                final[agent] = (reward, terminated, truncated, info["scores"])
                env.step(None)
            else:
                assert reward == 0.0
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        r0, term0, trunc0, scores = final["player_0"]
        r1, _, _, _ = final["player_1"]
        state = env.unwrapped.game_state
        assert [scores["player_0"], scores["player_1"]] == state.scores()
        if term0:
            # the rules decide (stores, komi, give-away ...): the rewards are the kernel's returns
            assert [r0, r1] == state.returns()
            assert r0 in (-1.0, 0.0, 1.0) and r0 + r1 == 0.0
            outcomes.add(r0)
        else:
            assert trunc0 and (r0, r1) == (0.0, 0.0)
    assert outcomes & {1.0, -1.0}, "random play should produce decisive games"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_truncation_at_max_plies_is_not_a_result(env_id):
    env = make(env_id, max_plies=5)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert truncated and not terminated
            assert reward == 0.0
            assert info["plies"] == 5
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    assert steps == 5


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_deepcopy_and_pickle_keep_the_game(env_id):
    env = make(env_id)
    rng = np.random.default_rng(11)
    env.reset(seed=5)
    for _ in range(6):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    position = env.unwrapped.game_state.to_json()
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.unwrapped.game_state.to_json() == position
        assert twin.agent_selection == env.agent_selection
        # the twins continue identically and independently
        obs_a = env.last()[0]
        obs_b = twin.last()[0]
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        action = int(np.flatnonzero(obs_b["action_mask"])[0])
        twin.step(action)
        assert env.unwrapped.game_state.to_json() == position


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_framework_registries(env_id):
    aec = pettingzoo.make("aec", f"mancala/{env_id}")
    aec.reset(seed=0)
    assert aec.unwrapped.game.env_id == env_id
    single = gymnasium.make(f"mancala/{env_id}")
    obs, info = single.reset(seed=0)
    assert single.observation_space.contains(obs)
    single.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ansi_render_is_the_text_board(env_id):
    env = make(env_id, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text == str(env.unwrapped.game_state)
    assert env_id in text


def test_reset_from_a_given_position():
    env = make("kalah-v0")
    game = env.unwrapped.game
    start = {"pits": [[0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0]], "stores": [20, 25], "to_move": 0}
    env.reset(options={"state": start})
    assert env.unwrapped.game_state.to_json()["pits"] == start["pits"]
    env.step(5)  # the last seed enters player_0's store: extra turn, but no seeds left
    assert all(env.terminations.values())
    assert env.unwrapped.game_state.scores() == [21, 27]
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    # a State object works too and is copied, not shared
    state = game.new_state()
    env.reset(options={"state": state})
    env.step(0)
    assert state.plies == 0


def test_same_seed_same_game_through_the_env():
    def record(seed):
        env = make("kalah-chosen-start-v0")
        env.reset(seed=seed)
        env.action_space("player_0").seed(seed)
        env.action_space("player_1").seed(seed)
        moves = []
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = env.action_space(agent).sample(obs["action_mask"])
            moves.append(int(action))
            env.step(action)
        return moves

    assert record(4) == record(4)
    assert record(4) != record(5)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_parallel_api_and_global_state(env_id):
    par = pettingzoo.make("parallel", f"mancala/{env_id}")
    parallel_api_test(par, num_cycles=300)
    par.reset(seed=0)
    state = par.state()
    assert par.state_space.contains(state)
    np.testing.assert_array_equal(state, par.unwrapped.game_state.observation(0))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_state_is_the_global_state_method(env_id):
    env = make(env_id)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(5):
        obs, *_ = env.last()
        if not obs["action_mask"].any():
            break
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state)
        # player_0's observation is the whole position, in a fixed seat's frame
        if env.agent_selection == "player_0":
            np.testing.assert_array_equal(state, obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_metadata_is_per_instance():
    class_modes = list(mancala_envs.MancalaAEC.metadata["render_modes"])
    wrapped = CaptureStdoutWrapper(mancala_envs.raw_env("kalah-v0", render_mode="human"))
    assert wrapped.metadata["render_modes"].count("ansi") == 2
    assert mancala_envs.MancalaAEC.metadata["render_modes"] == class_modes
    assert make("kalah-v0").metadata["render_modes"] == class_modes


def test_reset_refuses_states_of_another_game():
    env = make("kalah-v0")
    with pytest.raises(InvalidStateError, match="pits=4"):
        env.reset(options={"state": mancala_envs.make_game("kalah-v0", pits=4).new_state()})
    with pytest.raises(InvalidStateError, match="KalahGame\\('kalah-basic-v0'"):
        env.reset(options={"state": mancala_envs.make_game("kalah-basic-v0").new_state()})
    with pytest.raises(InvalidStateError):
        env.reset(options={"state": {"holes": [1, 2, 3]}})  # a JSON position of another game
    # unknown keys are ignored with a warning naming them (PettingZoo's api_test resets with one)
    with pytest.warns(UserWarning, match="unknown reset option 'seat'"):
        env.reset(options={"seat": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(options={})
