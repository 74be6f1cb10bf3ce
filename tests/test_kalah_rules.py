"""One test per Kalah rule, each from an explicit position, asserting the exact result.

Board drawings (as in OpenSpiel's oware_test.cc) show the table from player_0's seat::

         p1 [a5][a4][a3][a2][a1][a0]          <- player_1's holes by action index
    [S1]                             [S0]     <- left: player_1's store, right: player_0's
         p0 [a0][a1][a2][a3][a4][a5]          <- player_0's holes by action index

So the JSON row ``pits[0]`` reads the bottom row left to right, and ``pits[1]`` (player_1's
holes in player_1's sowing order) reads the top row RIGHT TO LEFT. Player_0's hole ``i`` sits
below player_1's hole ``pits-1-i``. Counterclockwise sowing runs right along the bottom row,
into S0, left along the top row, (past S1 for player_0) and on. Pratt's hole numbers count
from the store backwards: action ``i`` is Pratt's hole ``pits - i``.
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError, NotationError


def position(p0, p1, stores, to_move, *, phase="play", setup_index=0, terminal=False, plies=0,
             last_action=None, last_player=None) -> dict:
    """A complete to_json payload."""
    return {
        "pits": [list(p0), list(p1)],
        "stores": list(stores),
        "to_move": to_move,
        "terminal": terminal,
        "plies": plies,
        "phase": phase,
        "setup_index": setup_index,
        "last_action": last_action,
        "last_player": last_player,
    }


def load(game, payload):
    state = game.state_from_json(payload)
    assert state.to_json() == payload, "loading the position must not change it"
    return state


def kalah(**options):
    return mancala_envs.make_game("kalah-v0", **options)


# --------------------------------------------------------------------------------------
# Sowing
# --------------------------------------------------------------------------------------


def test_sowing_enters_own_store_and_skips_opponents_store_player0():
    # player_0 plays a5 (8 seeds): S0, all six of p1's holes, past S1, then a0.
    #      p1 [ 2][ 2][ 2][ 2][ 2][ 2]
    # [ 5]                             [ 3]
    #      p0 [ 1][ 0][ 0][ 0][ 0][ 8]
    game = kalah()
    state = load(game, position([1, 0, 0, 0, 0, 8], [2] * 6, [3, 5], 0))
    state.apply(5)
    #      p1 [ 3][ 3][ 3][ 3][ 3][ 3]
    # [ 5]                             [ 4]      <- S1 untouched
    #      p0 [ 2][ 0][ 0][ 0][ 0][ 0]          <- a0 had a seed: no capture
    assert state.to_json() == position([2, 0, 0, 0, 0, 0], [3] * 6, [4, 5], 1, plies=1, last_action=5, last_player=0)


def test_sowing_enters_own_store_and_skips_opponents_store_player1():
    # The same move for player_1: a5 (8 seeds, top left) into S1, along p0's row, past S0.
    #      p1 [ 8][ 0][ 0][ 0][ 0][ 1]
    # [ 3]                             [ 5]
    #      p0 [ 2][ 2][ 2][ 2][ 2][ 2]
    game = kalah()
    state = load(game, position([2] * 6, [1, 0, 0, 0, 0, 8], [5, 3], 1))
    state.apply(5)
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 2]
    # [ 4]                             [ 5]      <- S0 untouched
    #      p0 [ 3][ 3][ 3][ 3][ 3][ 3]
    assert state.to_json() == position([3] * 6, [2, 0, 0, 0, 0, 0], [5, 4], 0, plies=1, last_action=5, last_player=1)


# --------------------------------------------------------------------------------------
# Extra turn
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra_turn, next_mover", [(True, 0), (False, 1)])
def test_extra_turn_when_the_last_seed_ends_in_own_store(extra_turn, next_mover):
    # player_0 plays a2 (4 seeds): a3, a4, a5, S0.
    #      p1 [ 3][ 3][ 3][ 3][ 3][ 3]
    # [ 0]                             [ 0]
    #      p0 [ 2][ 2][ 4][ 2][ 2][ 2]
    game = kalah(extra_turn=extra_turn)
    state = load(game, position([2, 2, 4, 2, 2, 2], [3] * 6, [0, 0], 0))
    state.apply(2)
    #      p1 [ 3][ 3][ 3][ 3][ 3][ 3]
    # [ 0]                             [ 1]
    #      p0 [ 2][ 2][ 0][ 3][ 3][ 3]
    assert state.to_json() == position(
        [2, 2, 0, 3, 3, 3], [3] * 6, [1, 0], next_mover, plies=1, last_action=2, last_player=0
    )
    assert state.current_player == next_mover


def test_pratt_figure_3_pit_4_on_the_first_move_gives_an_extra_turn():
    # Pratt, Egyptian rule 2: "Figure 3 shows the board after the Lower Player moves from his
    # Pit 4 on the first move of the game" (4 seeds: pits 3, 2, 1 and the capture pit).
    #      p1 [ 4][ 4][ 4][ 4][ 4][ 4]
    # [ 0]                             [ 0]
    #      p0 [ 4][ 4][ 4][ 4][ 4][ 4]
    game = mancala_envs.make_game("kalah-v0")
    state = game.new_state(seed=0)
    action = game.string_to_action(state, "4")
    assert action == 2
    state.apply(action)
    #      p1 [ 4][ 4][ 4][ 4][ 4][ 4]
    # [ 0]                             [ 1]
    #      p0 [ 4][ 4][ 0][ 5][ 5][ 5]
    assert state.to_json() == position([4, 4, 0, 5, 5, 5], [4] * 6, [1, 0], 0, plies=1, last_action=2, last_player=0)
    assert state.current_player == 0
    assert state.legal_actions() == [0, 1, 3, 4, 5]


# --------------------------------------------------------------------------------------
# Captures
# --------------------------------------------------------------------------------------


def test_capture_with_non_empty_opposite_hole():
    # player_0 plays a1 (2 seeds): a2, a3. a3 was empty; opposite it is p1's a2 with 5.
    #      p1 [ 1][ 1][ 1][ 5][ 1][ 1]
    # [ 3]                             [ 2]
    #      p0 [ 0][ 2][ 0][ 0][ 1][ 1]
    game = kalah()
    state = load(game, position([0, 2, 0, 0, 1, 1], [1, 1, 5, 1, 1, 1], [2, 3], 0))
    state.apply(1)
    #      p1 [ 1][ 1][ 1][ 0][ 1][ 1]
    # [ 3]                             [ 8]      <- 2 + 5 captured + the last seed
    #      p0 [ 0][ 0][ 1][ 0][ 1][ 1]
    assert state.to_json() == position(
        [0, 0, 1, 0, 1, 1], [1, 1, 0, 1, 1, 1], [8, 3], 1, plies=1, last_action=1, last_player=0
    )


def test_no_capture_when_capture_is_off():
    # The same move as above with capture=False (Basic Mancala): nothing is taken.
    game = kalah(capture=False)
    state = load(game, position([0, 2, 0, 0, 1, 1], [1, 1, 5, 1, 1, 1], [2, 3], 0))
    state.apply(1)
    #      p1 [ 1][ 1][ 1][ 5][ 1][ 1]
    # [ 3]                             [ 2]
    #      p0 [ 0][ 0][ 1][ 1][ 1][ 1]
    assert state.to_json() == position(
        [0, 0, 1, 1, 1, 1], [1, 1, 5, 1, 1, 1], [2, 3], 1, plies=1, last_action=1, last_player=0
    )


@pytest.mark.parametrize(
    "needs_opposite, p0_after, stores_after",
    [
        # Pratt rule 3: the opposite hole must hold seeds; the last seed stays where it fell.
        (True, [0, 0, 1, 1, 1, 1], [2, 3]),
        # "Empty capture" (Irving et al.): the lone last seed is banked.
        (False, [0, 0, 1, 0, 1, 1], [3, 3]),
    ],
)
def test_last_seed_in_own_empty_hole_with_empty_opposite(needs_opposite, p0_after, stores_after):
    # player_0 plays a1 (2 seeds): a2, a3. a3 was empty, and so is p1's a2 opposite it.
    #      p1 [ 1][ 1][ 1][ 0][ 1][ 1]
    # [ 3]                             [ 2]
    #      p0 [ 0][ 2][ 0][ 0][ 1][ 1]
    game = kalah(capture_needs_opposite=needs_opposite)
    state = load(game, position([0, 2, 0, 0, 1, 1], [1, 1, 0, 1, 1, 1], [2, 3], 0))
    state.apply(1)
    # needs_opposite=True:                      needs_opposite=False:
    #      p1 [ 1][ 1][ 1][ 0][ 1][ 1]               p1 [ 1][ 1][ 1][ 0][ 1][ 1]
    # [ 3]                             [ 2]     [ 3]                             [ 3]
    #      p0 [ 0][ 0][ 1][ 1][ 1][ 1]               p0 [ 0][ 0][ 1][ 0][ 1][ 1]
    assert state.to_json() == position(
        p0_after, [1, 1, 0, 1, 1, 1], stores_after, 1, plies=1, last_action=1, last_player=0
    )


def test_no_capture_in_the_opponents_row():
    # player_0 plays a4 (3 seeds): a5, S0, then p1's a0, which was empty. The hole opposite
    # p1's a0 (p0's a5) holds seeds, but a seed ending on the opponent's side captures nothing.
    #      p1 [ 2][ 2][ 2][ 2][ 2][ 0]
    # [ 6]                             [ 4]
    #      p0 [ 0][ 0][ 0][ 0][ 3][ 1]
    for needs_opposite in (True, False):
        game = kalah(capture_needs_opposite=needs_opposite)
        state = load(game, position([0, 0, 0, 0, 3, 1], [0, 2, 2, 2, 2, 2], [4, 6], 0))
        state.apply(4)
        #      p1 [ 2][ 2][ 2][ 2][ 2][ 1]
        # [ 6]                             [ 5]
        #      p0 [ 0][ 0][ 0][ 0][ 0][ 2]
        assert state.to_json() == position(
            [0, 0, 0, 0, 0, 2], [1, 2, 2, 2, 2, 2], [5, 6], 1, plies=1, last_action=4, last_player=0
        ), needs_opposite


def test_no_capture_when_the_landing_hole_was_sown_earlier_in_the_same_move():
    # player_0 plays a0 (13 seeds): a1..a5, S0, p1's six holes, (past S1, past the emptied a0)
    # and a1 again. a1 was empty when the move began but got a seed on the first pass, so the
    # last seed does not capture p1's a4 (10 seeds by then).
    #      p1 [ 0][ 9][ 0][ 0][ 0][ 0]
    # [ 0]                             [ 0]
    #      p0 [13][ 0][ 3][ 3][ 3][ 3]
    game = kalah()
    state = load(game, position([13, 0, 3, 3, 3, 3], [0, 0, 0, 0, 9, 0], [0, 0], 0))
    state.apply(0)
    #      p1 [ 1][10][ 1][ 1][ 1][ 1]
    # [ 0]                             [ 1]
    #      p0 [ 0][ 2][ 4][ 4][ 4][ 4]
    assert state.to_json() == position(
        [0, 2, 4, 4, 4, 4], [1, 1, 1, 1, 10, 1], [1, 0], 1, plies=1, last_action=0, last_player=0
    )


@pytest.mark.parametrize(
    "skip_origin, p0_after, p1_after, stores_after",
    [
        # Egyptian rule 1: the 13th seed skips the emptied a0 and lands in a1 (2nd seed there).
        (True, [0, 2, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [6, 5]),
        # No skip: the 13th seed lands in the emptied a0, which counts as an empty own hole and
        # captures p1's a5 (1 seed): 1 + 1 into S0 (the package's ruling on the open question).
        (False, [0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0], [8, 5]),
    ],
)
def test_skip_origin_on_a_thirteen_seed_lap(skip_origin, p0_after, p1_after, stores_after):
    # player_0 plays a0 (13 seeds = 2*pits + 1: a full lap).
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [ 5]                             [ 5]
    #      p0 [13][ 0][ 0][ 0][ 0][ 0]
    game = kalah(skip_origin=skip_origin)
    state = load(game, position([13, 0, 0, 0, 0, 0], [0] * 6, [5, 5], 0))
    state.apply(0)
    # skip_origin=True:                         skip_origin=False:
    #      p1 [ 1][ 1][ 1][ 1][ 1][ 1]               p1 [ 0][ 1][ 1][ 1][ 1][ 1]
    # [ 5]                             [ 6]     [ 5]                             [ 8]
    #      p0 [ 0][ 2][ 1][ 1][ 1][ 1]               p0 [ 0][ 1][ 1][ 1][ 1][ 1]
    assert state.to_json() == position(
        p0_after, p1_after, stores_after, 1, plies=1, last_action=0, last_player=0
    )


# --------------------------------------------------------------------------------------
# End of the game and leftover seeds
# --------------------------------------------------------------------------------------


def test_end_mover_empty_versus_side_empty():
    # player_0 plays a5 (2 seeds): S0 and p1's a0. p0's row is now empty, p1 to move.
    #      p1 [ 2][ 0][ 1][ 0][ 0][ 0]
    # [23]                             [20]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 2]
    before = position([0, 0, 0, 0, 0, 2], [0, 0, 0, 1, 0, 2], [20, 23], 0)

    # end="side_empty" (Irving 2000): the game is over at once; p1 keeps its 4 seeds.
    side = kalah(end="side_empty")
    state = load(side, before)
    state.apply(5)
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [27]                             [21]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 0]
    assert state.to_json() == position(
        [0] * 6, [0] * 6, [21, 27], 1, terminal=True, plies=1, last_action=5, last_player=0
    )
    assert state.is_terminal() and state.current_player == -1
    assert state.legal_actions() == []
    assert state.returns() == [-1.0, 1.0]

    # end="mover_empty" (Pratt): p1 can still move, so play goes on.
    mover = kalah(end="mover_empty")
    state = load(mover, before)
    state.apply(5)
    #      p1 [ 2][ 0][ 1][ 0][ 0][ 1]
    # [23]                             [21]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 0]
    assert state.to_json() == position([0] * 6, [1, 0, 0, 1, 0, 2], [21, 23], 1, plies=1, last_action=5, last_player=0)
    assert state.current_player == 1
    assert state.legal_actions() == [0, 3, 5]
    assert state.returns() == [0.0, 0.0]
    # p1 plays a3 (1 seed) into its empty a4 (opposite p0's empty a1: no capture); now p0 is
    # to move with no seeds, so the game ends and p1 takes its own 4 seeds.
    state.apply(3)
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [27]                             [21]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 0]
    assert state.to_json() == position(
        [0] * 6, [0] * 6, [21, 27], 0, terminal=True, plies=2, last_action=3, last_player=1
    )
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


@pytest.mark.parametrize(
    "leftover, p1_after, stores_after, returns",
    [
        # Egyptian rule 4: p1 captures the seeds left in its own pits.
        ("owner", [0] * 6, [23, 25], [-1.0, 1.0]),
        # Basic rule 2: they are captured by nobody, and stay visible on the board.
        ("discard", [0, 3, 0, 2, 0, 0], [23, 20], [1.0, -1.0]),
    ],
)
def test_leftover_owner_versus_discard(leftover, p1_after, stores_after, returns):
    # player_0 plays a5 (1 seed) into S0: an extra turn, but p0's row is empty, so the game
    # ends with p0 to move; p1 still has 5 seeds.
    #      p1 [ 0][ 0][ 2][ 0][ 3][ 0]
    # [20]                             [22]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 1]
    game = kalah(leftover=leftover)
    state = load(game, position([0, 0, 0, 0, 0, 1], [0, 3, 0, 2, 0, 0], [22, 20], 0))
    state.apply(5)
    # leftover="owner":                         leftover="discard":
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]               p1 [ 0][ 0][ 2][ 0][ 3][ 0]
    # [25]                             [23]     [20]                             [23]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 0]               p0 [ 0][ 0][ 0][ 0][ 0][ 0]
    assert state.to_json() == position(
        [0] * 6, p1_after, stores_after, 0, terminal=True, plies=1, last_action=5, last_player=0
    )
    assert state.scores() == stores_after
    assert state.returns() == returns


def test_basic_mancala_can_end_in_a_draw():
    # Basic Mancala (no extra turn, no capture, leftovers discarded). player_0 plays a5
    # (1 seed) into S0; p1 is to move with no seeds, so the game ends; p0's 2 seeds in a4
    # count for nobody. 23-23: a draw.
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [23]                             [22]
    #      p0 [ 0][ 0][ 0][ 0][ 2][ 1]
    game = mancala_envs.make_game("kalah-basic-v0")
    state = load(game, position([0, 0, 0, 0, 2, 1], [0] * 6, [22, 23], 0))
    assert state.legal_actions() == [4, 5]
    state.apply(5)
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [23]                             [23]
    #      p0 [ 0][ 0][ 0][ 0][ 2][ 0]
    assert state.to_json() == position(
        [0, 0, 0, 0, 2, 0], [0] * 6, [23, 23], 1, terminal=True, plies=1, last_action=5, last_player=0
    )
    assert state.scores() == [23, 23]
    assert state.returns() == [0.0, 0.0]
    assert sum(state.to_json()["pits"][0]) + sum(state.scores()) == 48


# --------------------------------------------------------------------------------------
# Bidirectional Mancala
# --------------------------------------------------------------------------------------

BIDIRECTIONAL_BEFORE = position([2, 2, 11, 2, 2, 2], [1] * 6, [4, 6], 0)
#      p1 [ 1][ 1][ 1][ 1][ 1][ 1]
# [ 6]                             [ 4]
#      p0 [ 2][ 2][11][ 2][ 2][ 2]


def test_bidirectional_clockwise_sowing_path():
    # "4L" = action pits + 2: a2's 11 seeds go a1, a0 (down p0's own row), past S1, p1's
    # a5..a0 (across the far row, left to right), S0, then a5, a4 (last; a4 held 2: no capture).
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, BIDIRECTIONAL_BEFORE)
    action = game.string_to_action(state, "4L")
    assert action == 8
    state.apply(action)
    #      p1 [ 2][ 2][ 2][ 2][ 2][ 2]
    # [ 6]                             [ 5]      <- S1 untouched
    #      p0 [ 3][ 3][ 0][ 2][ 3][ 3]
    assert state.to_json() == position(
        [3, 3, 0, 2, 3, 3], [2] * 6, [5, 6], 1, plies=1, last_action=8, last_player=0
    )


def test_bidirectional_counterclockwise_sowing_path():
    # "4R" = action 2: a3, a4, a5, S0, p1's a0..a5 (right to left), past S1, a0 (last).
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, BIDIRECTIONAL_BEFORE)
    action = game.string_to_action(state, "4R")
    assert action == 2
    state.apply(action)
    #      p1 [ 2][ 2][ 2][ 2][ 2][ 2]
    # [ 6]                             [ 5]
    #      p0 [ 3][ 2][ 0][ 3][ 3][ 3]
    assert state.to_json() == position(
        [3, 2, 0, 3, 3, 3], [2] * 6, [5, 6], 1, plies=1, last_action=2, last_player=0
    )


def test_bidirectional_clockwise_sowing_path_for_player1():
    # The mirror image: player_1's a2 (11 seeds) clockwise: its a1, a0, past S0, p0's
    # a5..a0 (right to left as drawn), S1, its a5, a4.
    #      p1 [ 2][ 2][ 2][11][ 2][ 2]
    # [ 4]                             [ 6]
    #      p0 [ 1][ 1][ 1][ 1][ 1][ 1]
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([1] * 6, [2, 2, 11, 2, 2, 2], [6, 4], 1))
    state.apply(8)
    #      p1 [ 3][ 3][ 2][ 0][ 3][ 3]
    # [ 5]                             [ 6]      <- S0 untouched
    #      p0 [ 2][ 2][ 2][ 2][ 2][ 2]
    assert state.to_json() == position(
        [2] * 6, [3, 3, 0, 2, 3, 3], [6, 5], 0, plies=1, last_action=8, last_player=1
    )


def test_bidirectional_clockwise_extra_turn_and_direction_change():
    # "4L" with 9 seeds: a1, a0, p1's a5..a0, S0: an extra turn (Pratt: "the rule for the
    # extra turn still holds going either way").
    #      p1 [ 2][ 2][ 2][ 2][ 2][ 2]
    # [ 0]                             [ 0]
    #      p0 [ 0][ 1][ 9][ 1][ 1][ 1]
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([0, 1, 9, 1, 1, 1], [2] * 6, [0, 0], 0))
    state.apply(8)
    #      p1 [ 3][ 3][ 3][ 3][ 3][ 3]
    # [ 0]                             [ 1]
    #      p0 [ 1][ 2][ 0][ 1][ 1][ 1]
    assert state.to_json() == position(
        [1, 2, 0, 1, 1, 1], [3] * 6, [1, 0], 0, plies=1, last_action=8, last_player=0
    )
    # The mover may now go either way with its only playable hole (a1, 2 seeds).
    assert state.legal_actions() == [1, 7]


def test_bidirectional_clockwise_capture():
    # "4L" with 2 seeds: a1, then a0, which was empty; opposite it p1's a5 holds 5.
    #      p1 [ 5][ 2][ 2][ 2][ 2][ 2]
    # [ 0]                             [ 0]
    #      p0 [ 0][ 1][ 2][ 1][ 1][ 1]
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([0, 1, 2, 1, 1, 1], [2, 2, 2, 2, 2, 5], [0, 0], 0))
    state.apply(8)
    #      p1 [ 0][ 2][ 2][ 2][ 2][ 2]
    # [ 0]                             [ 6]
    #      p0 [ 0][ 2][ 0][ 1][ 1][ 1]
    assert state.to_json() == position(
        [0, 2, 0, 1, 1, 1], [2, 2, 2, 2, 2, 0], [6, 0], 1, plies=1, last_action=8, last_player=0
    )


def test_min_sow_two_masks_single_seeds():
    #      p1 [ 1][ 1][ 1][ 1][ 1][ 1]
    # [ 0]                             [ 0]
    #      p0 [ 1][ 2][ 1][ 0][ 3][ 1]
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([1, 2, 1, 0, 3, 1], [1] * 6, [0, 0], 0))
    # Only a1 and a4 (2 and 3 seeds), each in both directions: 1, 4 (R) and 7, 10 (L).
    assert state.legal_actions() == [1, 4, 7, 10]
    assert state.action_mask().tolist() == [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0]
    with pytest.raises(IllegalActionError):
        state.apply(0)  # a0 holds a single seed
    with pytest.raises(IllegalActionError):
        state.apply(11)  # a5 clockwise: a single seed
    # The same holes with min_sow=1 would all be playable.
    loose = load(kalah(directions=2), position([1, 2, 1, 0, 3, 1], [1] * 6, [0, 0], 0))
    assert loose.legal_actions() == [0, 1, 2, 4, 5, 6, 7, 8, 10, 11]


def test_bidirectional_game_ends_when_the_mover_has_no_playable_hole():
    # player_0 plays "3R" (a3, 2 seeds): a4, a5 (empty, but p1's a0 opposite is empty too).
    # player_1 is then to move with only single seeds: the game ends and each side keeps its
    # own seeds, although both rows still hold seeds.
    #      p1 [ 0][ 1][ 0][ 1][ 1][ 0]
    # [10]                             [10]
    #      p0 [ 0][ 0][ 0][ 2][ 0][ 0]
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([0, 0, 0, 2, 0, 0], [0, 1, 1, 0, 1, 0], [10, 10], 0))
    state.apply(game.string_to_action(state, "3R"))
    #      p1 [ 0][ 0][ 0][ 0][ 0][ 0]
    # [13]                             [12]
    #      p0 [ 0][ 0][ 0][ 0][ 0][ 0]
    assert state.to_json() == position(
        [0] * 6, [0] * 6, [12, 13], 1, terminal=True, plies=1, last_action=3, last_player=0
    )
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [-1.0, 1.0]


# --------------------------------------------------------------------------------------
# Chosen start
# --------------------------------------------------------------------------------------


def test_chosen_start_setup_order_of_holes():
    # The chooser sets A6, A5, ..., A1 (side A in sowing order: JSON row 0 from index 0),
    # then B6, ..., B1 (JSON row 1).
    game = mancala_envs.make_game("kalah-chosen-start-v0")
    state = game.new_state(seed=0)
    assert state.to_json() == position([0] * 6, [0] * 6, [0, 0], 0, phase="setup")
    values = [1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3]
    names = ["A6", "A5", "A4", "A3", "A2", "A1", "B6", "B5", "B4", "B3", "B2", "B1"]
    rows = [[0] * 6, [0] * 6]
    for k, (value, name) in enumerate(zip(values, names)):
        assert state.current_player == 0
        assert state.legal_actions() == list(range(9))
        assert game.action_to_string(state, value) == f"{name}={value}"
        assert game.string_to_action(state, f"{name}={value}") == value
        state.apply(value)
        rows[k // 6][k % 6] = value
        phase = "setup" if k < 11 else "choose_side"
        to_move = 0 if k < 11 else 1
        assert state.to_json() == position(
            rows[0], rows[1], [0, 0], to_move, phase=phase, setup_index=k + 1, plies=k + 1,
            last_action=value, last_player=0,
        ), (k, name)
    # after the setup:
    #     B [ 3][ 2][ 1][ 0][ 8][ 7]
    # [ 0]                             [ 0]
    #     A [ 1][ 2][ 3][ 4][ 5][ 6]
    assert rows == [[1, 2, 3, 4, 5, 6], [7, 8, 0, 1, 2, 3]]
    assert state.current_player == 1
    assert state.legal_actions() == [0, 1, 2, 3]


def test_chosen_start_refuses_an_all_zero_setup():
    game = mancala_envs.make_game("kalah-chosen-start-v0")
    state = game.new_state(seed=0)
    for _ in range(11):
        assert 0 in state.legal_actions()
        state.apply(0)
    # The last hole (B1) cannot be 0 when all others are.
    assert state.to_json()["setup_index"] == 11
    assert state.legal_actions() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert state.action_mask().tolist() == [0, 1, 1, 1, 1, 1, 1, 1, 1]
    with pytest.raises(IllegalActionError):
        state.apply(0)
    with pytest.raises(NotationError):
        game.string_to_action(state, "B1=0")
    # With one seed anywhere before, a zero last hole is fine.
    other = game.new_state(seed=0)
    for value in [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]:
        other.apply(value)
    assert other.legal_actions() == list(range(9))


# Side A = [1, 2, 3], side B = [4, 5, 0] on a 3-hole board.
#     B [ 0][ 5][ 4]
# [ 0]                 [ 0]
#     A [ 1][ 2][ 3]
@pytest.mark.parametrize(
    "choice, name, p0_row, p1_row, first",
    [
        (0, "A-second", [4, 5, 0], [1, 2, 3], 0),  # p1 takes A; the chooser (p0) moves first
        (1, "A-first", [4, 5, 0], [1, 2, 3], 1),  # p1 takes A and moves first
        (2, "B-second", [1, 2, 3], [4, 5, 0], 0),  # p1 takes B; p0 (holding A) moves first
        (3, "B-first", [1, 2, 3], [4, 5, 0], 1),  # p1 takes B and moves first
    ],
)
def test_chosen_start_side_choice(choice, name, p0_row, p1_row, first):
    game = mancala_envs.make_game("kalah-chosen-start-v0", pits=3, max_setup_seeds=5)
    state = game.new_state(seed=0)
    for value in [1, 2, 3, 4, 5, 0]:
        state.apply(value)
    assert state.to_json() == position(
        [1, 2, 3], [4, 5, 0], [0, 0], 1, phase="choose_side", setup_index=6, plies=6, last_action=0, last_player=0
    )
    assert game.action_to_string(state, choice) == name
    assert game.string_to_action(state, name) == choice
    state.apply(choice)
    assert state.to_json() == position(
        p0_row, p1_row, [0, 0], first, phase="play", setup_index=6, plies=7, last_action=choice, last_player=1
    )
    assert state.current_player == first
    mover_row = p0_row if first == 0 else p1_row
    assert state.legal_actions() == [i for i in range(3) if mover_row[i] > 0]


def test_chosen_start_game_ends_at_once_if_the_first_mover_has_no_seeds():
    # Side A empty, side B = [1, 2, 3]. player_1 takes the empty side A and moves first:
    # the game is over before any sowing; p0 keeps side B's 6 seeds and wins.
    game = mancala_envs.make_game("kalah-chosen-start-v0", pits=3, max_setup_seeds=3)
    setup = [0, 0, 0, 1, 2, 3]

    state = game.new_state(seed=0)
    for value in setup:
        state.apply(value)
    state.apply(1)  # A-first
    assert state.to_json() == position(
        [0, 0, 0], [0, 0, 0], [6, 0], 1, terminal=True, setup_index=6, plies=7, last_action=1, last_player=1
    )
    assert state.is_terminal() and state.returns() == [1.0, -1.0]

    # A-second: p0 moves first with side B's seeds, so (end="mover_empty") play goes on.
    state = game.new_state(seed=0)
    for value in setup:
        state.apply(value)
    state.apply(0)
    assert state.to_json() == position(
        [1, 2, 3], [0, 0, 0], [0, 0], 0, setup_index=6, plies=7, last_action=0, last_player=1
    )
    assert state.legal_actions() == [0, 1, 2]

    # Under end="side_empty" an empty row ends the game right after the side choice, even
    # though the first mover has seeds (the side choice counts as the move that leaves a
    # row empty; see the report: the docstring does not spell this case out).
    strict = mancala_envs.make_game("kalah-chosen-start-v0", pits=3, max_setup_seeds=3, end="side_empty")
    state = strict.new_state(seed=0)
    for value in setup:
        state.apply(value)
    state.apply(0)
    assert state.to_json() == position(
        [0, 0, 0], [0, 0, 0], [6, 0], 0, terminal=True, setup_index=6, plies=7, last_action=0, last_player=1
    )


# --------------------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------------------


def test_notation_names_of_the_standard_board_are_mover_relative():
    game = mancala_envs.make_game("kalah-v0")
    state = game.new_state(seed=0)
    expected = {0: "6", 1: "5", 2: "4", 3: "3", 4: "2", 5: "1"}
    assert game.action_names(state) == expected
    # player_1 to move: the same names for the same (mover-relative) actions.
    p1 = load(game, position([4] * 6, [4] * 6, [0, 0], 1))
    assert game.action_names(p1) == expected
    for action, text in expected.items():
        assert game.string_to_action(p1, text) == action


def test_notation_names_of_the_bidirectional_board():
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = game.new_state(seed=0)
    assert game.action_names(state) == {
        0: "6R", 1: "5R", 2: "4R", 3: "3R", 4: "2R", 5: "1R",
        6: "6L", 7: "5L", 8: "4L", 9: "3L", 10: "2L", 11: "1L",
    }
    assert game.string_to_action(state, "3R") == 3
    assert game.string_to_action(state, "3L") == 9


def _round_trip_states():
    """(label, game, state) covering every kind of action."""
    rng = np.random.default_rng(5)
    out = []
    for env_id in ("kalah-v0", "kalah-bidirectional-v0", "kalah-basic-v0", "kalah-irving2000-v0"):
        game = mancala_envs.make_game(env_id)
        state = game.new_state(seed=0)
        while not state.is_terminal():
            out.append((f"{env_id} ply {state.plies}", game, state.clone()))
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    game = mancala_envs.make_game("kalah-chosen-start-v0")
    state = game.new_state(seed=0)
    while not state.is_terminal() and state.plies < 40:
        out.append((f"chosen-start ply {state.plies}", game, state.clone()))
        legal = state.legal_actions()
        state.apply(legal[-1] if state.to_json()["phase"] == "setup" else legal[int(rng.integers(len(legal)))])
    return out


def test_notation_round_trips_for_every_legal_action():
    phases = set()
    for label, game, state in _round_trip_states():
        phases.add(state.to_json()["phase"])
        names = game.action_names(state)
        assert sorted(names) == state.legal_actions(), label
        assert len(set(names.values())) == len(names), f"{label}: names are not unique: {names}"
        for action in state.legal_actions():
            text = game.action_to_string(state, action)
            assert text == names[action]
            assert game.string_to_action(state, text) == action, f"{label}: {action} -> {text!r}"
    assert phases == {"setup", "choose_side", "play"}


def test_setup_and_side_choice_notation():
    game = mancala_envs.make_game("kalah-chosen-start-v0")
    state = game.new_state(seed=0)
    assert game.action_to_string(state, 4) == "A6=4"
    assert game.string_to_action(state, "A6=4") == 4
    for _ in range(12):
        state.apply(2)
    assert game.action_names(state) == {0: "A-second", 1: "A-first", 2: "B-second", 3: "B-first"}


@pytest.mark.parametrize(
    "env_id, text",
    [
        ("kalah-v0", "0"),  # no hole 0
        ("kalah-v0", "7"),  # no hole 7 on a 6-hole board
        ("kalah-v0", "4"),  # hole 4 is empty after Pratt's Figure 3 move
        ("kalah-v0", ""),
        ("kalah-v0", "x"),
        ("kalah-bidirectional-v0", "3"),  # direction missing
        ("kalah-bidirectional-v0", "0R"),
        ("kalah-bidirectional-v0", "7L"),
        ("kalah-bidirectional-v0", "4R"),  # hole 4 is empty
        ("kalah-bidirectional-v0", "3X"),
    ],
)
def test_notation_errors(env_id, text):
    game = mancala_envs.make_game(env_id)
    state = game.new_state(seed=0)
    state.apply(2)  # Pratt's Figure 3: hole 4 is now empty, and p0 moves again
    assert state.current_player == 0
    with pytest.raises(NotationError):
        game.string_to_action(state, text)


def test_notation_error_for_a_single_seed_with_min_sow_two():
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = load(game, position([1, 2, 1, 0, 3, 1], [1] * 6, [0, 0], 0))
    with pytest.raises(NotationError):
        game.string_to_action(state, "6R")
    assert game.string_to_action(state, "5L") == 7
    assert issubclass(NotationError, mancala_envs.MancalaError)
