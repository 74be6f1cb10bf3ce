"""One test per Progressive Mancala rule, each from an explicit position, asserting the exact result.

Board drawings show the one row from the players' side (both sit on the same side), holes
numbered 1..n from West's left, and the Goal, which closes the ring between hole n and
hole 1::

    hole   1  2  3  4  5  6  7  8  9 10 11
          [5][5][5][5][5][5][5][5][5][5][5]     Goal [0]     captured E 0  W 0

East (player_0) sows right to left: 11, 10, ..., 1, Goal, 11, ...
West (player_1) sows left to right: 1, 2, ..., 11, Goal, 1, ...
Action ``i`` is the ``i``-th hole of the mover's sowing order: West's action ``i`` is hole
``i+1``, East's action ``i`` is hole ``11-i``. The JSON ``holes`` list reads the row left to
right. Every position holds the board's 55 stones (row, Goal and captured).
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError, InvalidStateError, NotationError
from mancala_envs.games import progressive
from mancala_envs.games.progressive import SowingBoundError

EAST, WEST = 0, 1


def position(holes, goal, captured, to_move, *, moves_left=1, bonus=0, plies=0, last_action=None,
             last_player=None, last_end=None, terminal=None) -> dict:
    """A complete to_json payload (terminal: derived from the board unless given)."""
    if terminal is None:
        terminal = sum(holes) + goal == 0
    return {
        "holes": list(holes),
        "goal": goal,
        "captured": list(captured),
        "to_move": to_move,
        "moves_left": moves_left,
        "bonus": bonus,
        "terminal": terminal,
        "plies": plies,
        "last_action": last_action,
        "last_player": last_player,
        "last_end": last_end,
    }


def load(game, payload):
    state = game.state_from_json(payload)
    assert state.to_json() == payload, "loading the position must not change it"
    return state


def prog(**options):
    return mancala_envs.make_game("progressive-v0", **options)


def play(game, state, hole: int) -> int:
    """Play the hole numbered ``hole`` (1..n from West's left) through the notation."""
    action = game.string_to_action(state, str(hole))
    state.apply(action)
    return action


# --------------------------------------------------------------------------------------
# The start and the ring
# --------------------------------------------------------------------------------------


def test_start_position_east_moves_first_with_one_move():
    game = prog()
    state = game.new_state(seed=0)
    assert state.to_json() == position([5] * 11, 0, [0, 0], EAST)
    assert state.current_player == EAST
    assert state.legal_actions() == list(range(11))
    assert mancala_envs.make_game("progressive-expert-v0").new_state(0).to_json() == position([5] * 17, 0, [0, 0], 0)


def test_first_move_east_hole_11_relays_into_the_goal():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [5][5][5][5][5][5][5][5][5][5][5]   Goal [0]
    # East empties 11 (action 0): 10, 9, 8, 7, 6; hole 6 held 5, so its 6 stones go on:
    # 5, 4, 3, 2, 1, Goal. The last stone ends in the Goal: East captures it.
    game = prog()
    state = game.new_state(seed=0)
    assert play(game, state, 11) == 0
    #       [6][6][6][6][6][0][6][6][6][6][0]   Goal [0]   captured E 1
    assert state.to_json() == position(
        [6, 6, 6, 6, 6, 0, 6, 6, 6, 6, 0], 0, [1, 0], WEST, plies=1, last_action=0, last_player=EAST, last_end="goal"
    )


def test_east_wraps_through_the_goal_right_to_left():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [1][3][0][0][0][0][0][0][0][0][0]   Goal [2]   captured E 20  W 29
    # East empties 2 (3 stones): hole 1, the Goal, hole 11. Hole 11 was empty: the move ends.
    game = prog()
    state = load(game, position([1, 3] + [0] * 9, 2, [20, 29], EAST))
    assert play(game, state, 2) == 9
    #       [2][0][0][0][0][0][0][0][0][0][1]   Goal [3]   (the passing stone stays)
    # The move ended in an empty hole: West's next turn has 1 + 1 moves.
    assert state.to_json() == position(
        [2, 0] + [0] * 8 + [1], 3, [20, 29], WEST, moves_left=2, plies=1, last_action=9, last_player=EAST, last_end=11
    )


def test_west_wraps_through_the_goal_left_to_right():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][0][0][0][0][0][0][0][3][1]   Goal [2]   captured E 20  W 29
    # West empties 10 (3 stones): hole 11, the Goal, hole 1. Hole 1 was empty: the move ends.
    game = prog()
    state = load(game, position([0] * 9 + [3, 1], 2, [20, 29], WEST))
    assert play(game, state, 10) == 9
    #       [1][0][0][0][0][0][0][0][0][0][2]   Goal [3]
    assert state.to_json() == position(
        [1] + [0] * 9 + [2], 3, [20, 29], EAST, moves_left=2, plies=1, last_action=9, last_player=WEST, last_end=1
    )


# --------------------------------------------------------------------------------------
# Relay sowing
# --------------------------------------------------------------------------------------


def test_relay_lap_from_a_non_empty_landing_hole():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][2][0][3][0][0][0][0][0][0]   Goal [0]   captured E 25  W 25
    # West empties 3 (2 stones): 4, 5. Hole 5 held 3: its 4 stones are picked up (the last
    # one included) and sown on: 6, 7, 8, 9. Hole 9 was empty: the move ends there.
    game = prog()
    state = load(game, position([0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0], 0, [25, 25], WEST))
    play(game, state, 3)
    #       [0][0][0][1][0][1][1][1][1][0][0]
    assert state.to_json() == position(
        [0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0], 0, [25, 25], EAST, moves_left=2, plies=1, last_action=2,
        last_player=WEST, last_end=9,
    )


def test_east_drops_into_the_goal_in_passing_and_a_single_stone_captures():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [2][0][0][0][0][0][0][0][0][0][0]   Goal [0]   captured E 26  W 27
    # East empties 1 (2 stones): the Goal, hole 11. Hole 11 was empty: the move ends.
    game = prog()
    state = load(game, position([2] + [0] * 10, 0, [26, 27], EAST))
    play(game, state, 1)
    assert state.to_json() == position(
        [0] * 10 + [1], 1, [26, 27], WEST, moves_left=2, plies=1, last_action=10, last_player=EAST, last_end=11
    )
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][0][0][0][0][0][0][0][0][1]   Goal [1]
    # West empties 11 (1 stone): into the Goal. West captures 2 with one move of the turn left.
    play(game, state, 11)
    assert state.to_json() == position(
        [0] * 11, 0, [26, 29], WEST, moves_left=1, plies=2, last_action=10, last_player=WEST, last_end="goal"
    )
    assert state.is_terminal()  # every stone is captured: the game ends mid-turn


def test_a_hole_sown_earlier_in_the_same_move_is_not_empty():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [14][0][0][0][0][0][0][0][0][0][0]  Goal [0]   captured E 20  W 21
    # West empties 1 (14 stones): 2..11, the Goal, 1 (its own emptied hole), 2 and 3. Holes 2
    # and 3 were empty when the move began but got a stone on the first pass, so the last
    # stone in hole 3 relays: 3 -> 4, 5; 5 -> 6, 7; 7 -> 8, 9; 9 -> 10, 11; 11 -> Goal, 1;
    # hole 1 held the stone of the first pass: 1 -> 2, 3; hole 3 was emptied by its relay: end.
    game = prog()
    state = load(game, position([14] + [0] * 10, 0, [20, 21], WEST))
    play(game, state, 1)
    #       [0][3][1][2][0][2][0][2][0][2][0]   Goal [2]
    assert state.to_json() == position(
        [0, 3, 1, 2, 0, 2, 0, 2, 0, 2, 0], 2, [20, 21], EAST, moves_left=2, plies=1, last_action=0,
        last_player=WEST, last_end=3,
    )


# --------------------------------------------------------------------------------------
# skip_origin
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "skip_origin, holes_after, goal_after, last_end",
    [
        # 5..1, Goal, 11..7 and the 12th stone back in the emptied hole 6: the move ends there.
        (False, [1] * 11, 1, 6),
        # 5..1, Goal, 11..7, hole 6 skipped, the 12th stone in 5 (held 1): relay laps, each
        # skipping its own pick-up hole: 5 -> 4, 3; 3 -> 2, 1; 1 -> Goal, 11; 11 -> 10, 9;
        # 9 -> 8, 7; 7 -> 6, 5, and hole 5 (emptied by the relay) ends the move.
        (True, [0, 2, 0, 2, 1, 1, 0, 2, 0, 2, 0], 2, 5),
    ],
)
def test_skip_origin_on_and_off(skip_origin, holes_after, goal_after, last_end):
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][0][0][0][12][0][0][0][0][0]  Goal [0]   captured E 20  W 23
    game = prog(skip_origin=skip_origin)
    state = load(game, position([0] * 5 + [12] + [0] * 5, 0, [20, 23], EAST))
    play(game, state, 6)
    assert state.to_json() == position(
        holes_after, goal_after, [20, 23], WEST, moves_left=2, plies=1, last_action=5, last_player=EAST,
        last_end=last_end,
    )


def test_skip_origin_never_skips_the_goal():
    # hole   1  2  3
    #       [0][0][4]   Goal [0]   (holes=3, stones=2: 6 stones; captured E 1  W 1)
    # West empties 3 with skip_origin: Goal, 1, 2, (3 skipped), Goal. Ends in the Goal: 2 captured.
    game = prog(holes=3, stones=2, skip_origin=True)
    state = load(game, position([0, 0, 4], 0, [1, 1], WEST))
    play(game, state, 3)
    assert state.to_json() == position(
        [1, 1, 0], 0, [1, 3], EAST, plies=1, last_action=2, last_player=WEST, last_end="goal"
    )


# --------------------------------------------------------------------------------------
# Goal captures
# --------------------------------------------------------------------------------------


def test_goal_capture_includes_the_stones_dropped_in_passing():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [10][0][0][0][0][0][0][0][0][3][0]  Goal [4]   captured E 18  W 20
    # West empties 10 (3 stones): 11, the Goal (in passing), 1. Hole 1 held 10: its 11 stones
    # go 2..11 and the Goal. The last stone ends in the Goal: West captures 4 + 1 + 1 = 6.
    game = prog()
    state = load(game, position([10] + [0] * 8 + [3, 0], 4, [18, 20], WEST))
    play(game, state, 10)
    #       [0][1][1][1][1][1][1][1][1][1][2]   Goal [0]   captured W 26
    assert state.to_json() == position(
        [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2], 0, [18, 26], EAST, plies=1, last_action=9, last_player=WEST,
        last_end="goal",
    )


def test_a_goal_ending_move_grants_no_bonus():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [1][0][0][0][0][0][0][0][0][0][4]   Goal [5]   captured E 20  W 25
    # East empties 1 (1 stone) into the Goal and captures 6. West's turn: 1 move, no bonus.
    game = prog()
    state = load(game, position([1] + [0] * 9 + [4], 5, [20, 25], EAST))
    play(game, state, 1)
    assert state.to_json() == position(
        [0] * 10 + [4], 0, [26, 25], WEST, moves_left=1, bonus=0, plies=1, last_action=10, last_player=EAST,
        last_end="goal",
    )


def test_a_goal_ending_move_does_not_end_the_turn_early():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [1][0][0][0][2][0][0][0][0][0][1]   Goal [3]   captured E 20  W 28
    # East has 2 moves (moves_left=2). First 1 -> Goal: captures 4, East moves again.
    # Then 5 (2 stones): 4, 3; hole 3 was empty: West's turn gets 1 + 1 moves.
    game = prog()
    state = load(game, position([1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1], 3, [20, 28], EAST, moves_left=2))
    play(game, state, 1)
    assert state.to_json() == position(
        [0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1], 0, [24, 28], EAST, moves_left=1, plies=1, last_action=10,
        last_player=EAST, last_end="goal",
    )
    assert state.current_player == EAST
    play(game, state, 5)
    assert state.to_json() == position(
        [0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1], 0, [24, 28], WEST, moves_left=2, plies=2, last_action=6,
        last_player=EAST, last_end=3,
    )


# --------------------------------------------------------------------------------------
# Bonus moves
# --------------------------------------------------------------------------------------


def test_a_move_ending_in_an_empty_hole_gives_the_opponent_a_bonus_move():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][0][0][0][3][0][0][0][0][0]   Goal [0]   captured E 26  W 26
    # East empties 6: 5, 4, 3; hole 3 was empty. West then plays two moves in a row.
    game = prog()
    env = mancala_envs.make("progressive-v0")
    env.reset(options={"state": position([0] * 5 + [3] + [0] * 5, 0, [26, 26], EAST)})
    assert env.agent_selection == "player_0"
    env.step(game.action_of(EAST, 6))
    assert env.unwrapped.game_state.to_json()["holes"] == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["moves_left"] == 2 and env.infos["player_1"]["bonus"] == 0
    env.step(game.action_of(WEST, 3))  # 3 -> 4 (held 1): relay 2: 5, 6; hole 6 was empty: ends
    assert env.unwrapped.game_state.to_json()["holes"] == [0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0]
    assert env.agent_selection == "player_1", "the bonus move selects the same agent again"
    assert env.infos["player_0"]["moves_left"] == 1 and env.infos["player_0"]["bonus"] == 1
    obs = env.observe("player_1")["observation"]
    assert obs[11 + 4] == 1 and obs[11 + 5] == 1  # one move left, bonus 1 for East so far
    env.step(game.action_of(WEST, 6))  # 6 -> 7, empty: East gets 1 + 2 moves
    assert env.unwrapped.game_state.to_json()["holes"] == [0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0]
    assert env.agent_selection == "player_0"
    assert env.infos["player_0"]["moves_left"] == 3 and env.infos["player_0"]["bonus"] == 0


def test_bonus_moves_accumulate_across_turns_1_2_3_4():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [1][0][1][0][1][0][1][0][1][0][1]   Goal [0]   captured E 24  W 25
    # Every move below moves a single stone into an empty neighbour, so every move ends in an
    # empty hole and each turn is one move longer than the last: 1, 2, 3, then 4.
    game = prog()
    env = mancala_envs.make("progressive-v0")
    env.reset(options={"state": position([1, 0] * 5 + [1], 0, [24, 25], EAST)})
    turns = [(EAST, [3]), (WEST, [5, 7]), (EAST, [11, 6, 8])]
    for player, holes in turns:
        for k, hole in enumerate(holes):
            assert env.agent_selection == f"player_{player}"
            assert env.infos[f"player_{player}"]["moves_left"] == len(holes) - k
            assert env.infos[f"player_{player}"]["bonus"] == k
            env.step(game.action_of(player, hole))
    #       [1][1][0][0][1][0][1][0][1][1][0]
    state = env.unwrapped.game_state
    assert state.to_json() == position(
        [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0], 0, [24, 25], WEST, moves_left=4, plies=6,
        last_action=game.action_of(EAST, 8), last_player=EAST, last_end=7,
    )
    assert env.agent_selection == "player_1"
    # the observation shows it to both players: West's turn has 4 moves, no bonus for East yet
    for agent in ("player_0", "player_1"):
        obs = env.observe(agent)["observation"]
        assert obs[11 + 3] == (agent == "player_1") and obs[11 + 4] == 4 and obs[11 + 5] == 0


def test_all_moves_of_a_turn_are_compulsory():
    # East has 3 moves; the mask offers only sowing moves (there is no pass), and the turn
    # passes to West only after the third.
    game = prog()
    state = load(game, position([0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 2], 0, [24, 25], EAST, moves_left=3))
    movers = []
    for _ in range(3):
        movers.append(state.current_player)
        assert len(state.legal_actions()) >= 1
        state.apply(state.legal_actions()[0])
    assert movers == [EAST, EAST, EAST]
    assert state.current_player == WEST


# --------------------------------------------------------------------------------------
# The end
# --------------------------------------------------------------------------------------


def test_the_game_ends_mid_turn_when_the_last_stone_is_captured():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [0][0][0][0][0][0][0][0][0][0][1]   Goal [2]   captured E 27  W 25
    # West has 3 moves. The first, 11 -> Goal, captures the last 3 stones: the game is over
    # with 2 moves of the turn unplayed. West wins 28 to 27.
    env = mancala_envs.make("progressive-v0")
    env.reset(options={"state": position([0] * 10 + [1], 2, [27, 25], WEST, moves_left=3)})
    env.step(10)
    state = env.unwrapped.game_state
    assert state.to_json() == position(
        [0] * 11, 0, [27, 28], WEST, moves_left=2, plies=1, last_action=10, last_player=WEST, last_end="goal"
    )
    assert state.is_terminal() and state.current_player == -1 and state.legal_actions() == []
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert env.infos["player_0"]["scores"] == {"player_0": 27, "player_1": 28}
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(0)


@pytest.mark.parametrize("env_id, total", [("progressive-v0", 55), ("progressive-expert-v0", 85)])
def test_the_odd_total_makes_draws_impossible(env_id, total):
    # The nearest a game can come to a draw: one stone left, the captured totals level.
    # hole   1 ... n
    #       [0]...[1]   Goal [0]   captured E (total-1)/2  W (total-1)/2
    game = mancala_envs.make_game(env_id)
    n = game.holes
    half = (total - 1) // 2
    assert total % 2 == 1 and game.total_stones == total
    for mover in (EAST, WEST):
        state = load(game, position([0] * (n - 1) + [1], 0, [half, half], mover))
        action = game.action_of(mover, n)
        state.apply(action)
        if mover == WEST:  # n -> Goal: the last stone decides
            assert state.is_terminal() and state.scores()[WEST] == half + 1
            assert state.returns() == [-1.0, 1.0]
        else:  # East sows n -> n-1, an empty hole; the game goes on
            assert not state.is_terminal()
    # and every finished game of random play is decisive
    rng = np.random.default_rng(31)
    for g in range(40):
        state = game.new_state(seed=g)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        a, b = state.scores()
        assert a + b == total and a != b and sorted(state.returns()) == [-1.0, 1.0]


def test_an_even_total_can_draw():
    # holes=10 (50 stones): level at 24-25 with 1 stone left; East takes it: 25-25, a draw.
    game = prog(holes=10)
    state = load(game, position([1] + [0] * 9, 0, [24, 25], EAST))
    play(game, state, 1)
    assert state.is_terminal() and state.scores() == [25, 25] and state.returns() == [0.0, 0.0]
    assert "draw" in str(state)


# --------------------------------------------------------------------------------------
# Actions, observation, notation, text
# --------------------------------------------------------------------------------------


def test_actions_are_mover_relative():
    # action 0 is the first hole the mover's sowing passes after the Goal
    game = prog()
    assert [game.hole_of(EAST, a) for a in range(11)] == list(range(11, 0, -1))
    assert [game.hole_of(WEST, a) for a in range(11)] == list(range(1, 12))
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [2][0][0][0][0][0][0][0][0][0][3]   Goal [0]
    payload = position([2] + [0] * 9 + [3], 0, [25, 25], EAST)
    east = load(game, payload)
    west = load(game, {**payload, "to_move": WEST})
    assert east.legal_actions() == [0, 10]  # holes 11 and 1
    assert west.legal_actions() == [0, 10]  # holes 1 and 11
    assert game.action_to_string(east, 0) == "11" and game.action_to_string(west, 0) == "1"
    assert game.action_names(east) == {0: "11", 10: "1"}


def test_observation_layout_for_both_seats():
    # hole   1  2  3  4  5  6  7  8  9 10 11
    #       [1][2][3][0][0][0][0][0][0][0][4]   Goal [6]   captured E 17  W 22; East, 2 moves, bonus 1
    game = prog()
    state = load(game, position([1, 2, 3] + [0] * 7 + [4], 6, [17, 22], EAST, moves_left=2, bonus=1))
    east, west = state.observation(EAST), state.observation(WEST)
    assert east.dtype == np.float32 and east.shape == (17,)
    assert east.tolist() == [4, 0, 0, 0, 0, 0, 0, 0, 3, 2, 1, 6, 17, 22, 1, 2, 1]
    assert west.tolist() == [1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4, 6, 22, 17, 0, 2, 1]
    assert game.observation_bounds() == (0.0, 1001.0)
    assert mancala_envs.make_game("progressive-v0", max_plies=None).observation_bounds() == (0.0, 10**6 + 1.0)


def test_observation_after_the_end_has_no_turn_entries():
    game = prog()
    state = load(game, position([0] * 11, 0, [30, 25], WEST, moves_left=2, bonus=1))
    assert state.is_terminal()
    assert state.observation(EAST).tolist()[11:] == [0, 30, 25, 0, 0, 0]


def test_notation_numbers_holes_from_wests_left():
    game = prog()
    state = game.new_state(0)
    assert game.string_to_action(state, "11") == 0  # East's first hole
    assert game.string_to_action(state, " 1 ") == 10
    state.apply(0)  # West to move now
    assert game.string_to_action(state, "1") == 0
    assert game.action_to_string(state, 4) == "5"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("x", r"move 'x' not understood; write the number of the hole to empty, 1 to 11"),
        ("3R", "not understood"),
        ("0", "hole 0 does not exist; holes are numbered 1 to 11"),
        ("12", "hole 12 does not exist"),
        ("6", "hole 6 cannot be played: it is empty"),
    ],
)
def test_bad_notation(text, pattern):
    game = prog()
    state = load(game, position([1] * 5 + [0] + [1] * 5, 0, [20, 25], EAST))
    with pytest.raises(NotationError, match=pattern):
        game.string_to_action(state, text)


def test_notation_refuses_non_strings_and_finished_games():
    game = prog()
    with pytest.raises(NotationError, match="must be a string"):
        game.string_to_action(game.new_state(0), 3)
    over = load(game, position([0] * 11, 0, [30, 25], EAST))
    with pytest.raises(NotationError, match="the game is over"):
        game.string_to_action(over, "1")


def test_text_board_shows_the_row_the_goal_the_totals_and_the_turn():
    game = prog()
    state = load(game, position([1, 2, 3] + [0] * 7 + [4], 6, [17, 22], WEST, moves_left=3, bonus=1, plies=9,
                                last_action=2, last_player=EAST, last_end=3))
    text = str(state)
    lines = text.splitlines()
    assert lines[0].split() == ["hole"] + [str(k) for k in range(1, 12)]
    assert lines[1].split() == ["[", "1][", "2][", "3][", "0][", "0][", "0][", "0][", "0][", "0][", "0][", "4]"]
    assert lines[2].startswith("Goal [  6]")
    assert lines[3] == "captured: East (player_0) 17, West (player_1) 22"
    assert lines[4] == (
        "progressive-v0 ply 9: West (player_1) to move, 3 moves left in this turn; bonus for East so far 1; "
        "last move: East played 9, ended in empty hole 3"
    )


def test_illegal_action_names_the_legal_ones():
    game = prog()
    state = load(game, position([0] * 10 + [1], 2, [27, 25], EAST))
    with pytest.raises(IllegalActionError, match=r"action 3 \(8\) is not legal for player 0 here; legal actions are \[0\]"):
        state.apply(3)
    with pytest.raises(IllegalActionError, match="out of range; actions are 0 to 10"):
        state.apply(11)


# --------------------------------------------------------------------------------------
# Bad options and positions
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value, allowed",
    [
        ("holes", 0, "an integer from 1 to 25"),
        ("holes", 26, "an integer from 1 to 25"),
        ("stones", 13, "an integer from 1 to 12"),
        ("skip_origin", "yes", "true or false"),
        ("max_plies", 0, "an integer from 1 to 1000000, or None"),
    ],
)
def test_option_out_of_range(option, value, allowed):
    with pytest.raises(InvalidOptionError, match=f"option {option}={value!r} is not allowed; {option} must be {allowed}"):
        mancala_envs.make_game("progressive-v0", **{option: value})


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(InvalidOptionError, match="unknown option 'pits'; valid options are: holes, stones, skip_origin, max_plies"):
        mancala_envs.make_game("progressive-v0", pits=6)


GOOD = position([5] * 11, 0, [0, 0], EAST)


@pytest.mark.parametrize(
    "changes, pattern",
    [
        ({"holes": [5] * 10}, "'holes' must have 11 entries, got 10"),
        ({"holes": [5] * 10 + [-1]}, r"holes\[10\] must be an integer >= 0"),
        ({"goal": 2}, "holds 57 stones .* this board has 55 .* never created or lost"),
        ({"captured": [1]}, "'captured' must have 2 entries"),
        ({"to_move": 2}, "'to_move' must be an integer from 0 to 1"),
        ({"moves_left": 0}, "'moves_left' must be an integer from 1 to"),
        ({"bonus": -1}, "'bonus' must be an integer from 0 to"),
        ({"terminal": True}, "terminal=True, but the game is not over"),
        ({"last_end": "hole"}, "'last_end' must be null, \"goal\" or a hole number from 1 to 11"),
        ({"last_end": 12}, "'last_end' must be null"),
        ({"last_action": 3}, "'last_action' and 'last_player' must both be null or both be set"),
        ({"last_action": 11, "last_player": 0}, "'last_action' must be an integer from 0 to 10"),
        ({"pits": [1]}, r"unknown state keys \['pits'\]"),
    ],
)
def test_bad_position_payloads(changes, pattern):
    game = prog()
    with pytest.raises(InvalidStateError, match=pattern):
        game.state_from_json({**GOOD, **changes})


def test_bad_position_empty_row_with_stones_in_the_goal():
    game = prog()
    with pytest.raises(InvalidStateError, match="the row is empty but the Goal holds 5 stones: no move is possible"):
        game.state_from_json(position([0] * 11, 5, [25, 25], EAST))
    with pytest.raises(InvalidStateError, match="expects a dict"):
        game.state_from_json([1, 2])
    with pytest.raises(InvalidStateError, match="has no 'goal'"):
        game.state_from_json({k: v for k, v in GOOD.items() if k != "goal"})


def test_optional_keys_take_their_defaults():
    game = prog()
    state = game.state_from_json({"holes": [5] * 11, "goal": 0, "captured": [0, 0], "to_move": 1})
    assert state.to_json() == position([5] * 11, 0, [0, 0], WEST)


# --------------------------------------------------------------------------------------
# The guard
# --------------------------------------------------------------------------------------


def test_step_limit_is_the_proven_bound():
    for holes, stones in ((11, 5), (17, 5), (1, 1), (25, 12)):
        game = prog(holes=holes, stones=stones)
        total = holes * stones
        assert game.params[progressive.P_STEP_LIMIT] == (holes + 1) * total + holes


def test_the_guard_raises_a_clear_error_and_flags_the_position():
    # Lower the bound on a copy of the params: the relay move below takes 2 steps before its
    # first relay (4, 5), so a bound of 1 is exceeded there.
    game = prog()
    game.params = game.params.copy()
    game.params[progressive.P_STEP_LIMIT] = 1
    state = load(game, position([0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0], 0, [25, 25], WEST))
    with pytest.raises(SowingBoundError, match=r"one move took 2 sowing steps, more than the proven bound of 1 .*bug in the kernel"):
        state.apply(2)
    assert state.array[11 + 1 + progressive.H_ERROR] == 2
    for export in (state.to_json, lambda: str(state), lambda: game.info(state)):
        with pytest.raises(SowingBoundError, match="took 2 sowing steps"):
            export()
    # with the real bound the same move is fine
    fine = prog()
    state = load(fine, position([0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0], 0, [25, 25], WEST))
    state.apply(2)
    assert state.to_json()["last_end"] == 9


def test_the_guard_propagates_through_the_playout_loop():
    from mancala_envs.core.playout import random_playouts

    game = prog()
    game.params = game.params.copy()
    game.params[progressive.P_STEP_LIMIT] = 3
    with pytest.raises(SowingBoundError):
        random_playouts(game, 5, seed=1)
