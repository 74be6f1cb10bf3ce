"""One test per Afrika rule, each from an explicit position, asserting the exact result.

Board drawings show the table from South's seat, as ``str(state)`` does::

            h   g   f   e   d   c   b   a          <- North (player_0): a..h left to right
    North [ 8][ 8][ 8][ 8][ 8][ 8][ 8][ 8]            as North sees them
    South [ 8][ 8][ 8][ 8][ 8][ 8][ 8][ 8]
            A   B   C   D   E   F   G   H          <- South (player_1)

So the JSON row ``holes[0]`` (North's a..h) reads the top row RIGHT TO LEFT and
``holes[1]`` (South's A..H) the bottom row left to right. Each hole faces the one drawn
above or below it (A-h, B-g, ..., H-a). Sowing is counterclockwise: right along the bottom
row, then left along the top row. Action ``i`` is the mover's ``i``-th letter.
"""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError, InvalidStateError, NotationError


def position(north, south, captured, to_move, *, plies=0, last_action=None, last_player=None,
             last_capture=None, terminal=False, must_capture=False) -> dict:
    """A complete to_json payload; ``north`` is a..h, ``south`` A..H."""
    return {
        "holes": [list(north), list(south)],
        "captured": list(captured),
        "to_move": to_move,
        "terminal": terminal,
        "must_capture": must_capture,
        "plies": plies,
        "last_action": last_action,
        "last_player": last_player,
        "last_capture": last_capture,
    }


def afrika(**options):
    return mancala_envs.make_game("afrika-v0", **options)


def load(game, payload):
    state = game.state_from_json(payload)
    assert state.to_json() == payload, "loading the position must not change it"
    return state


def play(game, state, text):
    action = game.string_to_action(state, text)
    assert game.action_to_string(state, action) == text
    state.apply(action)
    return action


# --------------------------------------------------------------------------------------
# Start, direction, the opposite hole
# --------------------------------------------------------------------------------------


def test_start_position_north_moves_first_and_sows():
    game = afrika()
    state = game.new_state(seed=0)
    assert state.to_json() == position([8] * 8, [8] * 8, [0, 0], 0)
    assert state.current_player == 0 and game.seat_names[0] == "North"
    assert state.legal_actions() == list(range(8))
    assert [game.action_to_string(state, a) for a in range(8)] == list("abcdefgh")
    assert game.conserved_total(state) == 128


def test_sowing_runs_counterclockwise_from_north_into_south_row():
    # North sows e (8 stones): f, g, h, then South's A, B, C, D, E.
    game = afrika()
    state = game.new_state()
    assert play(game, state, "e") == 4
    #         h   g   f   e   d   c   b   a
    # North [ 9][ 9][ 9][ 0][ 8][ 8][ 8][ 8]
    # South [ 9][ 9][ 9][ 9][ 9][ 8][ 8][ 8]
    #         A   B   C   D   E   F   G   H
    assert state.to_json() == position(
        [8, 8, 8, 8, 0, 9, 9, 9], [9, 9, 9, 9, 9, 8, 8, 8], [0, 0], 1, plies=1, last_action=4, last_player=0,
        last_capture=0,
    )
    # South's action i is South's i-th letter, left to right as South sees them
    assert [game.action_to_string(state, a) for a in state.legal_actions()] == list("ABCDEFGH")


def test_sowing_from_south_crosses_into_north_row():
    # After 1. e, South sows G (8 stones): H, then North's a, b, c, d, e, f, g.
    game = afrika()
    state = game.new_state()
    play(game, state, "e")
    play(game, state, "G")
    #         h   g   f   e   d   c   b   a
    # North [ 9][10][10][ 1][ 9][ 9][ 9][ 9]
    # South [ 9][ 9][ 9][ 9][ 9][ 8][ 0][ 9]
    assert state.to_json() == position(
        [9, 9, 9, 9, 1, 10, 10, 9], [9, 9, 9, 9, 9, 8, 0, 9], [0, 0], 0, plies=2, last_action=6, last_player=1,
        last_capture=0,
    )


def test_the_rule_texts_opening_with_its_capture_counts():
    # The record of the issue: 1. e G 2. h H 3. g E 4. h xd (+11) 5. xA (+13) F
    game = afrika()
    state = game.new_state()
    for text in "e G h H g E h".split():
        play(game, state, text)
    assert state.legal_actions() == [4]  # South's E is empty and faces d (11 stones): compulsory
    play(game, state, "xd")
    assert state.scores() == [0, 11]
    play(game, state, "xA")
    assert state.scores() == [13, 11]
    play(game, state, "F")
    #         h   g   f   e   d   c   b   a
    # North [ 1][ 2][13][ 4][ 1][12][13][14]   captured 13
    # South [ 1][13][12][11][ 0][ 0][ 4][ 3]   captured 11
    assert state.to_json() == position(
        [14, 13, 12, 1, 4, 13, 2, 1], [1, 13, 12, 11, 0, 0, 4, 3], [13, 11], 0, plies=10, last_action=5,
        last_player=1, last_capture=0,
    )


# --------------------------------------------------------------------------------------
# Captures
# --------------------------------------------------------------------------------------

#         h   g   f   e   d   c   b   a
# North [ 5][ 5][ 5][ 5][ 5][ 5][ 0][ 5]   captured 30      b is empty and faces G (3)
# South [ 5][ 5][ 5][ 5][ 5][ 5][ 3][ 5]   captured 25
#         A   B   C   D   E   F   G   H
COMPULSORY = position([5, 0, 5, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 3, 5], [30, 25], 0, must_capture=True)


def test_capture_is_compulsory_and_is_the_whole_move():
    game = afrika()
    state = load(game, COMPULSORY)
    assert state.legal_actions() == [1]  # only "the hole facing my empty b"
    assert game.action_to_string(state, 1) == "xG"
    with pytest.raises(NotationError, match="sow while a capture is compulsory: North must capture xG"):
        game.string_to_action(state, "a")
    with pytest.raises(IllegalActionError):
        state.apply(0)
    play(game, state, "xG")
    # Only G changed; nothing was sown; South moves next and has no capture (G faces empty b).
    assert state.to_json() == position(
        [5, 0, 5, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 0, 5], [33, 25], 1, plies=1, last_action=1, last_player=0,
        last_capture=3,
    )


def test_only_the_smallest_capture_is_legal():
    #         h   g   f   e   d   c   b   a
    # North [ 5][ 5][ 5][ 5][ 5][ 0][ 0][ 0]   a, b, c empty: they face H (4), G (2), F (6)
    # South [ 5][ 5][ 5][ 5][ 5][ 6][ 2][ 4]
    game = afrika()
    state = load(game, position([0, 0, 0, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 6, 2, 4], [36, 30], 0, must_capture=True))
    assert state.legal_actions() == [1]
    assert game.action_names(state) == {1: "xG"}
    for bigger, count in (("xH", 4), ("xF", 6)):
        with pytest.raises(NotationError, match=f"not the smallest capture: {bigger[1]} holds {count} stones"):
            game.string_to_action(state, bigger)
    play(game, state, "xG")
    assert state.to_json()["holes"] == [[0, 0, 0, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 6, 0, 4]]
    assert state.scores() == [38, 30]


def test_a_tie_for_the_smallest_capture_lets_the_mover_choose():
    #         h   g   f   e   d   c   b   a
    # North [ 5][ 5][ 5][ 5][ 5][ 0][ 0][ 0]   a faces H (2), b faces G (2), c faces F (6)
    # South [ 5][ 5][ 5][ 5][ 5][ 6][ 2][ 2]
    game = afrika()
    start = position([0, 0, 0, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 6, 2, 2], [38, 30], 0, must_capture=True)
    state = load(game, start)
    assert game.action_names(state) == {0: "xH", 1: "xG"}
    for text, south in (("xH", [5, 5, 5, 5, 5, 6, 2, 0]), ("xG", [5, 5, 5, 5, 5, 6, 0, 2])):
        child = load(game, start)
        play(game, child, text)
        assert child.to_json()["holes"] == [[0, 0, 0, 5, 5, 5, 5, 5], south]
        assert child.scores() == [40, 30]


def test_an_empty_hole_facing_an_empty_hole_gives_no_capture():
    #         h   g   f   e   d   c   b   a
    # North [ 6][ 6][ 6][ 6][ 6][ 6][ 0][ 6]   b is empty, but so is G: North sows
    # South [ 6][ 6][ 6][ 6][ 6][ 6][ 0][ 6]
    game = afrika()
    state = load(game, position([6, 0, 6, 6, 6, 6, 6, 6], [6, 6, 6, 6, 6, 6, 0, 6], [20, 24], 0))
    assert state.legal_actions() == [0, 2, 3, 4, 5, 6, 7]
    with pytest.raises(NotationError, match="empty hole: b holds no stones"):
        game.string_to_action(state, "b")
    with pytest.raises(NotationError, match="capture not available: North has no empty hole facing a non-empty one"):
        game.string_to_action(state, "xG")


def test_a_player_with_an_empty_row_must_capture():
    # North has no stones at all: every hole faces a South hole; the smallest is taken.
    game = afrika()
    state = load(game, position([0] * 8, [3, 1, 4, 1, 5, 9, 2, 6], [50, 47], 0, must_capture=True))
    assert game.action_names(state) == {4: "xD", 6: "xB"}  # D faces e, B faces g


# --------------------------------------------------------------------------------------
# Origin skipped on every pass
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stones, north_after, south_after",
    [
        (15, [0, 2, 2, 2, 2, 2, 2, 2], [2] * 8),  # one lap of the 15 other holes, last in H
        (16, [0, 3, 2, 2, 2, 2, 2, 2], [2] * 8),  # a skips itself: the 16th goes to b
        (31, [0, 4, 3, 3, 3, 3, 3, 3], [3] * 8),  # two laps, a skipped twice, last in b
    ],
)
def test_the_emptied_hole_is_skipped_on_every_pass(stones, north_after, south_after):
    #         h   g   f   e   d   c   b   a
    # North [ 1][ 1][ 1][ 1][ 1][ 1][ 1][ s]   North sows a
    # South [ 1][ 1][ 1][ 1][ 1][ 1][ 1][ 1]
    game = afrika()
    board = stones + 15
    state = load(game, position([stones] + [1] * 7, [1] * 8, [128 - board - 40, 40], 0))
    play(game, state, "a")
    assert state.to_json()["holes"] == [north_after, south_after]
    assert state.to_json()["holes"][0][0] == 0
    assert game.conserved_total(state) == 128


# --------------------------------------------------------------------------------------
# The end and the result
# --------------------------------------------------------------------------------------


def test_the_game_ends_when_the_board_is_empty():
    #         h   g   f   e   d   c   b   a
    # North [ 0][ 0][ 0][ 0][ 1][ 0][ 0][ 0]   captured 66
    # South [ 0][ 0][ 0][ 0][ 0][ 0][ 0][ 0]   captured 61; South's E faces d
    game = afrika()
    state = load(game, position([0, 0, 0, 1, 0, 0, 0, 0], [0] * 8, [66, 61], 1, must_capture=True))
    assert game.action_names(state) == {4: "xd"}
    play(game, state, "xd")
    assert state.is_terminal() and state.current_player == -1 and state.legal_actions() == []
    assert state.scores() == [66, 62]
    assert state.returns() == [-1.0, 1.0]  # South's 62 + 2.5 beats North's 66 - 2.5
    assert game.info(state) == {
        "komi": 2.5,
        "adjusted_scores": {"player_0": 63.5, "player_1": 64.5},
        "result": "south",
        "margin": 0.5,
    }
    assert "game over: South wins by 0.5 (komi 2.5); last move: South xd (+1)" in str(state)
    with pytest.raises(NotationError, match="the game is over"):
        game.string_to_action(state, "a")


@pytest.mark.parametrize(
    "north, south, komi, returns, result, margin",
    [
        (66, 62, 2.5, [-1.0, 1.0], "south", 0.5),  # South wins with 62
        (67, 61, 2.5, [1.0, -1.0], "north", 0.5),  # North needs 67
        (62, 66, 2.5, [-1.0, 1.0], "south", 4.5),
        (88, 40, 2.5, [1.0, -1.0], "north", 21.5),  # the largest recorded win
        (64, 64, 0.0, [0.0, 0.0], "draw", 0.0),  # komi 0 allows a draw
        (65, 63, 0.0, [1.0, -1.0], "north", 1.0),
        (65, 63, 1.0, [0.0, 0.0], "draw", 0.0),  # a whole-point komi: 64:64 after the transfer
    ],
)
def test_komi_is_a_transfer(north, south, komi, returns, result, margin):
    game = afrika(komi=komi)
    state = load(game, position([0] * 8, [0] * 8, [north, south], 0, terminal=True))
    assert state.scores() == [north, south]  # raw
    assert state.returns() == returns
    info = game.info(state)
    assert info["result"] == result and info["margin"] == margin
    assert info["adjusted_scores"] == {"player_0": north - komi, "player_1": south + komi}


def test_giveaway_capturing_more_than_half_loses_at_once():
    #         h   g   f   e   d   c   b   a
    # North [ 5][ 5][ 5][ 5][ 5][ 5][ 0][ 5]   captured 62; b faces G (3): North must take 3
    # South [ 2][ 2][ 2][ 2][ 2][ 2][ 3][ 2]   captured 14
    start = position([5, 0, 5, 5, 5, 5, 5, 5], [2, 2, 2, 2, 2, 2, 3, 2], [62, 14], 0, must_capture=True)
    game = afrika(giveaway=True)
    state = load(game, start)
    play(game, state, "xG")  # 65 > 64
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    assert game.info(state)["result"] == "south" and game.info(state)["margin"] == 25.5  # (65 - 14) / 2
    assert "South wins by 25.5 (give-away)" in str(state)
    # The same capture in the normal game goes on.
    normal = load(afrika(), start)
    play(afrika(), normal, "xG")
    assert not normal.is_terminal() and normal.current_player == 1


def test_giveaway_exactly_half_each_is_a_draw_whatever_the_komi():
    game = afrika(giveaway=True, komi=2.5)
    state = load(game, position([0] * 8, [0] * 8, [64, 64], 1, terminal=True))
    assert state.returns() == [0.0, 0.0] and game.info(state)["result"] == "draw"


def test_target_first_to_reach_it_wins():
    #         h   g   f   e   d   c   b   a
    # North [ 5][ 5][ 5][ 5][ 5][ 5][ 0][ 5]   captured 62; takes G (3): 65
    # South [ 2][ 2][ 2][ 2][ 2][ 2][ 3][ 2]   captured 14
    start = position([5, 0, 5, 5, 5, 5, 5, 5], [2, 2, 2, 2, 2, 2, 3, 2], [62, 14], 0, must_capture=True)
    game = afrika(target=65)
    state = load(game, start)
    play(game, state, "xG")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert game.info(state)["result"] == "north" and game.info(state)["margin"] == 25.5
    assert "North wins by 25.5 (first to 65)" in str(state)
    # one short of the target: play goes on
    short = load(afrika(target=66), start)
    play(afrika(target=66), short, "xG")
    assert not short.is_terminal()


def test_target_is_checked_before_the_empty_board():
    # North takes the last stone (D, facing North's empty e) and reaches the target 65.
    # By komi North's 65 would lose to South's 63 (62.5 : 65.5); the target makes North the winner.
    game = afrika(target=65)
    state = load(game, position([0] * 8, [0, 0, 0, 1, 0, 0, 0, 0], [64, 63], 0, must_capture=True))
    play(game, state, "xD")
    assert state.is_terminal() and state.scores() == [65, 63]
    assert state.returns() == [1.0, -1.0]
    assert afrika().state_from_json(state.to_json()).returns() == [-1.0, 1.0]  # without the target


def test_a_high_target_never_reached_falls_back_to_komi():
    game = afrika(target=100)
    state = load(game, position([0] * 8, [0] * 8, [70, 58], 0, terminal=True))
    assert state.returns() == [1.0, -1.0] and game.info(state)["margin"] == 3.5


# --------------------------------------------------------------------------------------
# Notation errors, observation, options, payloads
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, text, why",
    [
        (None, "G", "not your hole: North is to move and sows from a-h"),
        (None, "i", "there is no hole i; the holes are a-h (North) and A-H (South)"),
        (None, "e5", "not a move"),
        (None, "", "not a move"),
        (None, "xA", "capture not available: North has no empty hole facing a non-empty one"),
        (COMPULSORY, "xb", "not your opponent's hole: North captures from A-H"),
        (COMPULSORY, "xA", "capture not available: A faces North's hole h, which is not empty"),
        (COMPULSORY, "c", "sow while a capture is compulsory"),
    ],
)
def test_notation_errors_say_why(payload, text, why):
    game = afrika()
    state = game.new_state() if payload is None else load(game, payload)
    with pytest.raises(NotationError) as err:
        game.string_to_action(state, text)
    assert why in str(err.value) and err.value.why.startswith(why)


def test_notation_accepts_capital_x_and_spaces():
    game = afrika()
    state = load(game, COMPULSORY)
    assert game.string_to_action(state, " XG ") == 1 and game.string_to_action(state, "x G") == 1


def test_observation_is_mover_relative_with_capture_flag_and_komi():
    game = afrika()
    state = load(game, COMPULSORY)
    north = [5, 0, 5, 5, 5, 5, 5, 5]
    south = [5, 5, 5, 5, 5, 5, 3, 5]
    assert state.observation(0).tolist() == north + south + [30, 25, 1, 1, 1, 2.5]
    assert state.observation(1).tolist() == south + north + [25, 30, 0, 1, 0, 2.5]
    assert game.observation_bounds() == (0.0, 128.0)
    assert game.observation_size == 22 and game.num_actions == 8


def test_render_shows_rows_captures_and_the_duty():
    game = afrika()
    text = str(load(game, COMPULSORY))
    assert text.splitlines() == [
        "         h   g   f   e   d   c   b   a ",
        "North  [ 5][ 5][ 5][ 5][ 5][ 5][ 0][ 5]   captured 30",
        "South  [ 5][ 5][ 5][ 5][ 5][ 5][ 3][ 5]   captured 25",
        "         A   B   C   D   E   F   G   H ",
        "afrika-v0 ply 0: North to move (must capture)",
    ]


def test_env_infos_carry_raw_scores_adjusted_scores_result_and_margin():
    env = mancala_envs.make("afrika-v0")
    env.reset(options={"state": position([0, 0, 0, 1, 0, 0, 0, 0], [0] * 8, [66, 61], 1, must_capture=True)})
    assert env.agent_selection == "player_1"
    assert env.infos["player_0"]["result"] is None and env.infos["player_0"]["margin"] is None
    env.step(4)
    info = env.infos["player_0"]
    assert info["scores"] == {"player_0": 66, "player_1": 62}
    assert info["adjusted_scores"] == {"player_0": 63.5, "player_1": 64.5}
    assert info["result"] == "south" and info["margin"] == 0.5 and info["komi"] == 2.5
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"komi": 0.3}, "komi comes in half points"),
        ({"komi": -1}, "komi must be a number from 0 to 1024"),
        ({"komi": 200}, "komi must be 0 to 128"),
        ({"target": 129}, "target must be 1 to 128"),
        ({"target": 65, "giveaway": True}, "target and giveaway cannot be combined"),
        ({"holes": 1}, "holes must be an integer from 2 to 16"),
        ({"stones": 0}, "stones must be an integer from 1 to 32"),
        ({"pits": 6}, "unknown option 'pits'; valid options are: holes, stones, komi, giveaway, target, max_plies"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        afrika(**options)


def test_other_board_sizes():
    game = afrika(holes=4, stones=3, komi=0)
    state = game.new_state()
    assert game.num_actions == 4 and game.observation_size == 14 and game.conserved_total(state) == 24
    play(game, state, "d")  # North's last hole: A, B, C
    assert state.to_json()["holes"] == [[3, 3, 3, 0], [4, 4, 4, 3]]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"captured": [30, 26]}, "holds 129 stones .* this game has 128"),
        ({"holes": [[5] * 8]}, "'holes' must be two lists of 8 stone counts"),
        ({"holes": [[5, 0, 5, 5, 5, 5, 5, -5], [5] * 8]}, r"holes\[0\]\[7\] must be an integer >= 0"),
        ({"to_move": 2}, "'to_move' must be an integer from 0 to 1"),
        ({"terminal": True}, "the payload says terminal=True, but the position gives terminal=False"),
        ({"must_capture": False}, "must_capture=False, but the position gives must_capture=True"),
        ({"last_capture": 3}, "last_player and last_capture need a last_action"),
        ({"last_action": 8, "last_player": 0, "last_capture": 0}, "'last_action' must be an integer from 0 to 7"),
        ({"komi": 2.5}, r"unknown state keys \['komi'\]"),
    ],
)
def test_malformed_state_payload(change, message):
    payload = dict(COMPULSORY)
    payload.update(change)
    with pytest.raises(InvalidStateError, match=message):
        afrika().state_from_json(payload)


def test_both_past_the_target_is_refused():
    with pytest.raises(InvalidStateError, match="both captured totals reach the target 60"):
        afrika(target=60).state_from_json(position([0] * 8, [0] * 8, [64, 64], 0))


def test_actions_are_checked():
    game = afrika()
    state = game.new_state()
    with pytest.raises(IllegalActionError, match="actions are 0 to 7"):
        state.apply(8)
    with pytest.raises(IllegalActionError):
        game.action_to_string(state, np.int64(-1))
