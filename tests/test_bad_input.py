"""Bad input gets an error that names what was wrong and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    MancalaError,
    UnknownEnvError,
    make,
    make_game,
)
from mancala_envs.cli import main as cli_main
from mancala_envs.gym import MancalaGymEnv
from mancala_envs.vector import BatchEnv
from mancala_envs.vector_gym import MancalaVectorEnv


def test_unknown_id_lists_the_registered_ones():
    with pytest.raises(UnknownEnvError, match=r"unknown env id 'kalah-v9'.*Did you mean kalah-v0.*Registered ids: "):
        make("kalah-v9")
    with pytest.raises(UnknownEnvError, match="kalah-basic-v0"):
        make_game("nope")


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(InvalidOptionError, match=r"unknown option 'holes'; valid options are: pits, seeds"):
        make_game("kalah-v0", holes=4)
    with pytest.raises(InvalidOptionError, match="valid options are"):
        make("kalah-v0", holes=4)


@pytest.mark.parametrize(
    "option, value, allowed",
    [
        ("pits", 0, "an integer from 1 to 16"),
        ("pits", 17, "an integer from 1 to 16"),
        ("pits", 2.5, "an integer from 1 to 16"),
        ("pits", "6", "an integer from 1 to 16"),
        ("seeds", -1, "an integer from 1 to 12"),
        ("seeds", 13, "an integer from 1 to 12"),
        ("end", "board_empty", "one of 'mover_empty', 'side_empty'"),
        ("leftover", "keep", "one of 'owner', 'discard'"),
        ("directions", 3, "an integer from 1 to 2"),
        ("min_sow", 0, "an integer from 1 to 12"),
        ("extra_turn", "yes", "true or false"),
        ("max_setup_seeds", 0, "an integer from 1 to 24"),
        ("max_plies", 0, "an integer from 1 to 1000000, or None"),
        ("capture", None, "true or false"),
    ],
)
def test_option_out_of_range(option, value, allowed):
    with pytest.raises(InvalidOptionError) as err:
        make_game("kalah-v0", **{option: value})
    message = str(err.value)
    assert f"option {option}={value!r} is not allowed" in message
    assert allowed in message


def test_inconsistent_options():
    with pytest.raises(InvalidOptionError, match="min_sow=4 is more than seeds=3"):
        make_game("kalah-v0", seeds=3, min_sow=4)


def test_env_option_validated_and_kept_apart_from_game_options():
    with pytest.raises(InvalidOptionError, match="illegal_action"):
        make("kalah-v0", illegal_action="ignore")
    with pytest.raises(InvalidOptionError, match="option of the env"):
        make_game("kalah-v0", illegal_action="raise")


def test_bad_render_mode():
    with pytest.raises(MancalaError, match="render_mode='rgb' is not supported"):
        make("kalah-v0", render_mode="rgb")


@pytest.mark.parametrize("action, pattern", [(6, "out of range; actions are 0 to 5"), (-1, "out of range"),
                                             ("2", "must be an integer"), (1.0, "must be an integer"),
                                             (True, "must be an integer"), (None, "must be an integer")])
def test_out_of_range_action_to_state(action, pattern):
    state = make_game("kalah-v0").new_state()
    with pytest.raises(IllegalActionError, match=pattern):
        state.apply(action)


def test_illegal_action_names_the_legal_ones():
    game = make_game("kalah-v0")
    state = game.state_from_json({"pits": [[0, 3, 0, 0, 0, 0], [4, 4, 4, 4, 4, 4]], "stores": [0, 0], "to_move": 0})
    with pytest.raises(IllegalActionError, match=r"action 0 \(6\) is not legal for player 0 here; legal actions are \[1\]"):
        state.apply(0)


def test_action_after_the_end():
    game = make_game("kalah-v0")
    state = game.state_from_json({"pits": [[0] * 6, [0] * 6], "stores": [24, 24], "to_move": 0})
    assert state.is_terminal()
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(0)


def test_illegal_action_to_the_env_raises_by_default():
    env = make("kalah-v0")
    env.reset(seed=0)
    env.step(2)  # 4 seeds from Pratt's hole 4: extra turn, hole now empty
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(2)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(99)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        env.step(np.array([1, 2]))


def test_illegal_action_terminate_mode_follows_pettingzoo(caplog):
    env = make("kalah-v0", illegal_action="terminate")
    env.reset(seed=0)
    env.step(2)
    env.step(2)
    assert "Illegal move made" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


@pytest.mark.parametrize(
    "payload, pattern",
    [
        ("not a dict", "expects a dict"),
        ({}, "'pits' must be two lists of 6"),
        ({"pits": [[4] * 6], "stores": [0, 0], "to_move": 0}, "'pits' must be two lists"),
        ({"pits": [[4] * 5, [4] * 6], "stores": [0, 0], "to_move": 0}, r"'pits\[0\]' must have 6 entries, got 5"),
        ({"pits": [[4] * 6, [4, 4, -1, 4, 4, 4]], "stores": [0, 0], "to_move": 0}, r"pits\[1\]\[2\] must be an integer >= 0"),
        ({"pits": [[4] * 6, [4] * 6], "stores": [0], "to_move": 0}, "'stores' must have 2 entries"),
        ({"pits": [[4] * 6, [4] * 6], "to_move": 0}, "no 'stores'"),
        ({"pits": [[4] * 6, [4] * 6], "stores": [0, 0], "to_move": 2}, "'to_move' must be an integer from 0 to 1"),
        ({"pits": [[4] * 6, [4] * 6], "stores": [0, 0], "to_move": 0, "phase": "setup"}, "only with chosen_start"),
        ({"pits": [[4] * 6, [4] * 6], "stores": [0, 0], "to_move": 0, "phase": "middle"}, "'phase' must be one of"),
        ({"pits": [[4] * 6, [4] * 6], "stores": [0, 0], "to_move": 0, "terminal": True}, "says terminal=True"),
        ({"pits": [[4.5] + [4] * 5, [4] * 6], "stores": [0, 0], "to_move": 0}, r"pits\[0\]\[0\] must be an integer"),
    ],
)
def test_malformed_state_payload(payload, pattern):
    with pytest.raises(InvalidStateError, match=pattern):
        make_game("kalah-v0").state_from_json(payload)


@pytest.mark.parametrize(
    "rows, to_move, phase, setup_index, pattern",
    [
        ([[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 3]], 0, "setup", 1, "holes not yet set must be empty"),
        ([[1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], 1, "setup", 1, "the chooser, player 0, is to move"),
        ([[9, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], 0, "setup", 1, "at most max_setup_seeds=8 seeds, got 9"),
        ([[0] * 6, [0] * 6], 1, "choose_side", 12, "at least one seed"),
        ([[1] * 6, [1] * 6], 0, "choose_side", 12, "player 1 is to move"),
    ],
)
def test_malformed_setup_payload(rows, to_move, phase, setup_index, pattern):
    game = make_game("kalah-chosen-start-v0")
    with pytest.raises(InvalidStateError, match=pattern):
        game.state_from_json(
            {"pits": rows, "stores": [0, 0], "to_move": to_move, "phase": phase, "setup_index": setup_index}
        )


def test_errors_are_value_errors_for_generic_handlers():
    assert issubclass(MancalaError, ValueError)
    with pytest.raises(ValueError):
        mancala_envs.make_game("kalah-v0", pits=-3)


KALAH_START = {"pits": [[4] * 6, [4] * 6], "stores": [0, 0], "to_move": 0}


@pytest.mark.parametrize(
    "changes, pattern",
    [
        ({"pits": [[100] + [4] * 5, [4] * 6]}, r"pits\[0\]\[0\] must be an integer >= 0 and at most 48, got 100"),
        ({"pits": [[40] + [4] * 5, [4] * 6]}, "holds 84 seeds in the holes and stores; this game has at most 48"),
        ({"pits": [[10**6] + [4] * 5, [4] * 6]}, r"pits\[0\]\[0\] must be an integer >= 0 and at most 48, got 1000000"),
        ({"stores": [2**31 - 1, 0]}, r"stores\[0\] must be an integer >= 0 and at most 48, got 2147483647"),
        ({"stores": [2**31, 0]}, r"stores\[0\] must be an integer >= 0 and at most 48"),
        ({"stores": [1, 0]}, "holds 49 seeds"),
        ({"komi": 1}, r"unknown state keys \['komi'\]; a position has last_action, last_player, phases?"),
        ({"plies": 2**31 - 1}, "'plies' must be an integer from 0 to 1073741824"),
        ({"terminal": "no"}, "'terminal' must be true or false, got 'no'"),
        ({"last_player": 0}, "'last_action' and 'last_player' must both be null or both be set"),
    ],
)
def test_kalah_refuses_impossible_positions(changes, pattern):
    """Counts past the game's seeds (the observation's high) or the kernel's integers, unknown keys."""
    with pytest.raises(InvalidStateError, match=pattern):
        make_game("kalah-v0").state_from_json({**KALAH_START, **changes})


def test_kalah_accepts_fewer_seeds_than_the_start():
    """An endgame study: fewer seeds than the start is a position the rules can continue from."""
    state = make_game("kalah-v0").state_from_json({"pits": [[0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]],
                                                    "stores": [10, 9], "to_move": 0})
    assert state.legal_actions() == [5]


@pytest.mark.parametrize("env_id", ["progressive-v0", "afrika-v0", "rondell-v0", "widdershins-v0"])
def test_every_family_refuses_unknown_keys_and_huge_plies(env_id):
    game = make_game(env_id)
    payload = game.new_state(0).to_json()
    with pytest.raises(InvalidStateError, match=r"unknown state keys \['forged'\]"):
        game.state_from_json({**payload, "forged": 1})
    with pytest.raises(InvalidStateError, match="'plies' must be an integer from 0 to"):
        game.state_from_json({**payload, "plies": 2**31 - 1})


# -- actions and seeds: the same check and words in every API (mancala_envs.core.checks) -------

NOT_AN_INTEGER = r"kalah-v0: (game 0: )?an action must be an integer from 0 to 5, got "
OUT_OF_RANGE = r"kalah-v0: (game 0: )?action -?\d+ is out of range; actions are 0 to 5"


def step_aec(action):
    env = make("kalah-v0")
    env.reset(seed=0)
    env.step(action)


def step_aec_terminate(action):
    env = make("kalah-v0", illegal_action="terminate")
    env.reset(seed=0)
    env.step(action)


def step_gym(action):
    env = MancalaGymEnv("kalah-v0", learner_seat=0)
    env.reset(seed=0)
    env.step(action)


def step_batch(action):
    BatchEnv("kalah-v0", 2, seed=0).step([action, 0])


def step_batch_array(action):
    BatchEnv("kalah-v0", 2, seed=0).step(np.array([action, 0]))


def step_vector(action):
    env = MancalaVectorEnv("kalah-v0", num_envs=2, learner_seat=0)
    env.reset(seed=0)
    env.step([action, 0])


STEPPERS = [step_aec, step_aec_terminate, step_gym, step_batch, step_vector]


@pytest.mark.parametrize("step", STEPPERS)
@pytest.mark.parametrize("action", [2.7, 2.0, "2", None, True, np.float64(2.0), np.bool_(True), [2]])
def test_every_api_refuses_a_non_integer_action_in_the_same_words(step, action):
    with pytest.raises(IllegalActionError, match=NOT_AN_INTEGER):
        step(action)


@pytest.mark.parametrize("step", STEPPERS)
@pytest.mark.parametrize("action", [2**64, 2**63, 6, -1])
def test_every_api_refuses_an_out_of_range_action_in_the_same_words(step, action):
    with pytest.raises(IllegalActionError, match=OUT_OF_RANGE):
        step(action)


@pytest.mark.parametrize("actions", [np.array([2.0, 0.0]), np.array([True, False]), np.array(["2", "0"])])
def test_batch_refuses_arrays_of_another_dtype(actions):
    with pytest.raises(IllegalActionError, match=r"kalah-v0: an action must be an integer from 0 to 5, got an array "
                                                 r"of dtype"):
        BatchEnv("kalah-v0", 2, seed=0).step(actions)


@pytest.mark.parametrize("actions", [np.array([2**64 - 1, 0], dtype=np.uint64), np.array([6, 0], dtype=np.int8)])
def test_batch_names_an_out_of_range_entry_of_an_integer_array(actions):
    with pytest.raises(IllegalActionError, match=OUT_OF_RANGE):
        BatchEnv("kalah-v0", 2, seed=0).step(actions)


@pytest.mark.parametrize("actions", [np.array([2, 2], dtype=np.int32), np.array([2, 2], dtype=np.uint8), [2, 2],
                                     (np.int64(2), 2)])
def test_batch_plays_integer_actions_of_any_integer_dtype(actions):
    batch = BatchEnv("kalah-v0", 2, seed=0)
    batch.step(actions)
    assert batch.state(0).to_json()["last_action"] == 2


def test_every_api_plays_numpy_integer_actions():
    for action in (np.int64(2), np.int8(2), np.array(2)):
        env = make("kalah-v0")
        env.reset(seed=0)
        env.step(action)
        gym_env = MancalaGymEnv("kalah-v0", learner_seat=0)
        gym_env.reset(seed=0)
        gym_env.step(action)
        assert env.unwrapped.game_state.to_json()["last_action"] == 2


SEED_MESSAGE = r"a seed must be None or an integer from 0 to 2\*\*64 - 1, got "


def seed_users():
    """Every place that takes a seed, as ``seed -> None``."""
    def vector_reset(seed):
        MancalaVectorEnv("kalah-v0", num_envs=2).reset(seed=seed)

    return {
        "new_state": lambda seed: make_game("kalah-v0").new_state(seed),
        "aec": lambda seed: make("kalah-v0").reset(seed=seed),
        "gym": lambda seed: MancalaGymEnv("kalah-v0").reset(seed=seed),
        "batch": lambda seed: BatchEnv("kalah-v0", 2, seed=seed),
        "batch_reset": lambda seed: BatchEnv("kalah-v0", 2).reset(seed),
        "vector": vector_reset,
    }


@pytest.mark.parametrize("where", sorted(seed_users()))
@pytest.mark.parametrize("seed", [-1, 2.5, 2.0, "1", True, 2**64, [1, 2]])
def test_every_api_refuses_a_bad_seed_in_the_same_words(where, seed):
    with pytest.raises(InvalidOptionError, match=SEED_MESSAGE):
        seed_users()[where](seed)


@pytest.mark.parametrize("where", sorted(seed_users()))
def test_every_api_takes_the_whole_seed_range(where):
    for seed in (0, 2**64 - 1, np.uint64(2**64 - 1), np.int64(7)):
        seed_users()[where](seed)


def test_is_legal_answers_false_for_what_is_not_a_legal_action():
    """Ruling: ``is_legal`` never raises; a caller names a bad action in its own error."""
    state = make_game("kalah-v0").new_state(0)
    assert state.is_legal(2) and state.is_legal(np.int64(2)) and state.is_legal(np.array(2))
    for action in (2.5, 2.0, "2", None, True, 6, -1, 2**64, [2]):
        assert state.is_legal(action) is False, action


# -- the command line: one `mancala: error:` line and exit status 2 ------------------------------

@pytest.mark.parametrize(
    "argv, message",
    [
        (["match", "kalah-v0", "random", "random", "--workers", "-2"], "match: argument --workers: must be an integer >= 0, got -2"),
        (["match", "kalah-v0", "random", "random", "--workers", "two"], "argument --workers: must be an integer >= 0, got 'two'"),
        (["match", "kalah-v0", "random", "random", "--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["match", "kalah-v0", "random", "random", "--balanced", "0"], "argument --balanced: must be an integer >= 1, got 0"),
        (["tournament", "kalah-v0", "--agents", "random", "greedy", "--workers", "0"],
         "tournament: argument --workers: must be an integer >= 1, got 0"),
        (["tournament", "kalah-v0", "--agents", "random", "greedy", "--bootstrap", "-3"],
         "argument --bootstrap: must be an integer >= 1, got -3"),
        (["eval", "run", "--ladder-openings", "-1"], "argument --ladder-openings: must be an integer >= 0, got -1"),
        (["play", "kalah-v0", "--delay", "-1"], "argument --delay: must be a number >= 0, got '-1'"),
        (["play", "kalah-v0", "--seed", "1.5"], "argument --seed: must be an integer >= 0, got '1.5'"),
        (["match", "kalah-v0", "random", "random", "--games", "0"], "--games must be at least 1, got 0"),
        (["match", "kalah-v0", "random", "random", "--openings", "-1"], "--openings must be 0 (the initial position) or more"),
        (["solve", "kalah-v0", "--threads", "0"], "--threads must be at least 1, got 0"),
        (["list", "stray"], "unrecognized arguments: stray"),
    ],
)
def test_bad_command_line_values_give_one_error_line_and_status_2(argv, message, capsys):
    try:
        code = cli_main(argv)
    except SystemExit as exit:
        code = exit.code
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("mancala: error: ") and err.count("\n") == 1, err
    assert message in err


def test_play_match_takes_an_env_made_by_the_package():
    """Its game and options come from ``env.unwrapped``; other objects are refused saying what to pass."""
    from mancala_envs.evaluation import play_match

    env = make("kalah-v0", pits=3, seeds=2)
    result = play_match(env, "random", "greedy", openings=1)
    assert result.suite.game == make_game("kalah-v0", pits=3, seeds=2)
    with pytest.raises(InvalidOptionError, match=r"expected an env id such as 'kalah-v0', a Game .* got object"):
        play_match(object(), "random", "greedy", openings=1)
    with pytest.raises(InvalidOptionError, match="not with an env object"):
        play_match(env, "random", "greedy", openings=1, pits=4)
    with pytest.raises(InvalidOptionError, match=r"workers must be an integer >= 1 or None \(every core\), got -2"):
        play_match("kalah-v0", "random", "greedy", openings=1, workers=-2)
