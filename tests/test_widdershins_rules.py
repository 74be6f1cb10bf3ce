"""One test per Widdershins rule, each from an explicit position, asserting the exact result.

Positions are written as {position: [cards bottom to top]}; the last card of a list is the
top card. The board, as South sees it::

      N6  N5  N4  N3  N2  N1        (North's row; N1 is above S6)
      S1  S2  S3  S4  S5  S6        (South's row)

The ring runs S1 .. S6, N1 .. N6, S1. Unless a test says otherwise South (player_0) is red.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError, InvalidStateError, NotationError
from mancala_envs.games.widdershins import POSITION_NAMES

GERING = "widdershins-v0"
PARLETT = "widdershins-parlett-v0"

# filler that keeps both sides above Gering's 6-card limit and stays out of the way
RED_PAD = ["2D", "3D", "4D", "5D", "6D", "7D"]
BLACK_PAD = ["2C", "3C", "4C", "5C", "6C", "7C"]


def game(env_id=GERING, **options):
    return mancala_envs.make_game(env_id, **options)


def position(stacks: dict, to_move=0, south_colour="red", first_move=False, **extra) -> dict:
    payload = {"stacks": [list(stacks.get(name, [])) for name in POSITION_NAMES], "to_move": to_move,
               "south_colour": south_colour, "first_move": first_move}
    payload.update(extra)
    return payload


def stacks_of(state) -> dict:
    return {POSITION_NAMES[i]: s for i, s in enumerate(state.to_json()["stacks"]) if s}


def load(g, stacks, **kw):
    return g.state_from_json(position(stacks, **kw))


# --------------------------------------------------------------------------------------
# Deal, colours, who may move
# --------------------------------------------------------------------------------------


def test_deal_layout_and_colours():
    g = game()
    state = g.new_state(3)
    deck = np.arange(52)
    np.random.default_rng(3).shuffle(deck)
    names = [r + s for s in "CDHS" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    expected = [[names[deck[k]] for k in range(i, 48, 12)] for i in range(12)]
    for k, pos in zip(range(48, 52), (0, 1, 6, 7)):
        expected[pos].append(names[deck[k]])
    payload = state.to_json()
    assert payload["stacks"] == expected
    assert [len(s) for s in payload["stacks"]] == [5, 5, 4, 4, 4, 4, 5, 5, 4, 4, 4, 4]
    top = payload["stacks"][0][-1]
    assert payload["south_colour"] == ("red" if top[-1] in "DH" else "black")
    assert payload["first_move"] and state.current_player == 0
    assert g.new_state(3).to_json() == payload and g.new_state(4).to_json() != payload


def test_souths_first_move_is_forced_to_sow_s1():
    g = game()
    state = g.new_state(0)
    assert state.legal_actions() == [0]
    assert g.action_to_string(state, 0) == "S1"
    state.apply(0)
    assert state.current_player == 1 and not state.to_json()["first_move"]
    assert len(state.to_json()["stacks"][0]) == 0  # S1 was sown away (5 cards)


def test_own_row_first_then_the_other_row_then_pass():
    g = game()
    # South (red) owns S2 and N3 (red tops) and N1: only S2, in South's own row, may move
    state = load(g, {"S2": ["5H"], "N3": ["KD"], "N1": BLACK_PAD + ["9H"], "S5": RED_PAD + ["8S"]})
    assert state.legal_actions() == [1]
    # without S2, South owns only stacks in North's row: those may move (N1 is South's view 6)
    state = load(g, {"N3": ["KD"], "N1": BLACK_PAD + ["9H"], "S5": RED_PAD + ["8S"]})
    assert state.legal_actions() == [6, 8]
    assert [g.action_to_string(state, a) for a in state.legal_actions()] == ["N1", "N3"]
    # owning nothing: the pass action alone
    state = load(g, {"N1": RED_PAD + ["9C"], "S5": BLACK_PAD + ["8S"]})
    assert state.legal_actions() == [24] and g.action_to_string(state, 24) == "pass"
    state.apply(24)
    assert state.current_player == 1 and stacks_of(state) == {"N1": RED_PAD + ["9C"], "S5": BLACK_PAD + ["8S"]}
    # North's actions count from N1: N1 is North's action 0, S5 its action 10
    assert state.legal_actions() == [0]


# --------------------------------------------------------------------------------------
# Sowing and single cards
# --------------------------------------------------------------------------------------


def test_sowing_round_the_ring_top_card_first():
    # South is black here. S3 holds 13 cards, KS on top: KS on S4, KH S5, QH S6, JH N1, 10H N2,
    # 9H N3, 8H N4, 7H N5, 6H N6, 5H S1, 4H S2, 3H on S3 itself (the emptied origin is not
    # skipped), and the last card 2H on S4 again, on KS: red on black, 2 below K: 2H is captured
    g = game()
    reds = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    state = load(g, {"S3": ["2H", *reds, "KS"], "N6": BLACK_PAD}, south_colour="black")
    state.apply(2)
    assert stacks_of(state) == {"S1": ["5H"], "S2": ["4H"], "S3": ["3H"], "S4": ["KS"], "S5": ["KH"], "S6": ["QH"],
                                "N1": ["JH"], "N2": ["10H"], "N3": ["9H"], "N4": ["8H"], "N5": ["7H"],
                                "N6": BLACK_PAD + ["6H"]}
    assert g.cards_in_play(state) == [7, 11]


def test_sowing_a_stack_lands_one_card_per_position():
    g = game()
    state = load(g, {"S5": ["9D", "4H", "JD"], "N6": BLACK_PAD, "S1": RED_PAD})
    state.apply(4)  # JD on S6, 4H on N1, 9D on N2 (vacant: the move ends)
    assert stacks_of(state) == {"S6": ["JD"], "N1": ["4H"], "N2": ["9D"], "N6": BLACK_PAD, "S1": RED_PAD}


@pytest.mark.parametrize(
    "card, start, action, target",
    [("7H", "S3", 2, "N4"), ("2H", "S6", 5, "N2"), ("10H", "S4", 3, "S2"), ("AH", "S1", 0, "S2"),
     ("AH", "S1", 12, "N6"), ("QD", "S2", 1, "N5"), ("JH", "S6", 5, "N1"), ("KD", "S4", 3, "N3")],
)
def test_single_card_moves(card, start, action, target):
    g = game()
    state = load(g, {start: [card], "N6" if target != "N6" else "N5": BLACK_PAD, "S5" if start != "S5" else "S4": RED_PAD})
    names = {"AH": {0: "S1a", 12: "S1c"}}
    if card in names:
        assert g.action_to_string(state, action) == names[card][action]
    state.apply(action)
    assert stacks_of(state)[target] == [card] and start not in stacks_of(state)


def test_north_moves_count_from_n1():
    g = game()
    state = load(g, {"N2": ["5S"], "S1": RED_PAD, "N6": BLACK_PAD}, to_move=1)
    assert state.legal_actions() == [1, 5]
    state.apply(1)  # 5S from N2 (index 7) five on: index 12 = S1 (red top 7D): 5 < 7, 5S is captured
    assert stacks_of(state) == {"S1": RED_PAD, "N6": BLACK_PAD}


def test_continuation_on_an_own_stack():
    g = game()
    state = load(g, {"S1": ["9D", "4H"], "S3": ["2H", "3D"], "N3": BLACK_PAD, "N6": ["5D", "6D", "7D", "8D"]})
    state.apply(0)  # 4H on S2, 9D on S3 (South's 3D): lift S3: 9D on S4, 3D on S5, 2H on S6 (vacant)
    assert stacks_of(state) == {"S2": ["4H"], "S4": ["9D"], "S5": ["3D"], "S6": ["2H"], "N3": BLACK_PAD,
                                "N6": ["5D", "6D", "7D", "8D"]}
    assert state.current_player == 1


def test_opponents_card_on_opponents_stack_ends_the_move():
    g = game()
    state = load(g, {"S1": ["9C", "5H"], "S3": ["7S"], "N3": BLACK_PAD, "N6": RED_PAD})
    state.apply(0)
    assert stacks_of(state) == {"S2": ["5H"], "S3": ["7S", "9C"], "N3": BLACK_PAD, "N6": RED_PAD}


# --------------------------------------------------------------------------------------
# The capture table
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "s1, s3, after_s3, captured",
    [
        (["8D", "5H"], ["KC", "8C"], ["KC"], 2),  # same rank: both
        (["9D", "5H"], ["9S", "JH", "4S"], ["JH", "9D"], 2),  # higher: every black card of S3
        (["3H", "5H"], ["9S", "JH", "4S"], ["9S", "JH", "4S"], 1),  # lower: the dropped card alone
        (["AD", "5H"], ["QH", "KS"], ["QH", "AD"], 1),  # an Ace dropped is high (14 beats K)
        (["2H", "5H"], ["8S", "AS"], ["2H"], 2),  # an Ace dropped on is low (2 beats it)
        (["AD", "5H"], ["AS"], [], 2),  # Ace on Ace: same rank
        (["9C", "5H"], ["QS", "8D"], ["QS", "9C"], 1),  # an enemy card on an own stack captures too
    ],
)
def test_capture_table(s1, s3, after_s3, captured):
    g = game()
    state = load(g, {"S1": s1, "S3": s3, "N3": BLACK_PAD, "N6": RED_PAD})
    before = g.conserved_total(state) - sum(len(s) for s in state.to_json()["stacks"])
    state.apply(0)
    assert stacks_of(state).get("S3", []) == after_s3
    assert stacks_of(state)["S2"] == ["5H"]
    on_board = sum(len(s) for s in state.to_json()["stacks"])
    assert 52 - on_board - before == captured


# --------------------------------------------------------------------------------------
# Endings and scores
# --------------------------------------------------------------------------------------


def test_gering_ends_below_six_cards_and_scores_the_difference():
    g = game()
    # red has 6 in play; South's 8D meets North's 8C: both captured, red has 5: the game ends
    state = load(g, {"S1": ["8D", "5H"], "S3": ["KC", "8C"], "N3": BLACK_PAD, "N6": ["2D", "3D", "4D", "5D"]})
    assert g.cards_in_play(state) == [6, 8]
    state.apply(0)
    assert state.is_terminal() and state.to_json()["end"] == "few_cards"
    assert g.cards_in_play(state) == [5, 7] and state.scores() == [0, 2] and state.returns() == [-1.0, 1.0]


def test_gering_equal_cards_is_a_draw():
    g = game()
    state = load(g, {"S1": ["8D", "5H"], "S3": ["8C"], "N3": ["2C", "3C", "4C", "5C", "6C"],
                     "N6": ["2D", "3D", "4D", "5D"]})
    state.apply(0)
    assert g.cards_in_play(state) == [5, 5] and state.to_json()["end"] == "few_cards"
    assert state.scores() == [0, 0] and state.returns() == [0.0, 0.0]


def test_gering_repetition_is_a_draw():
    g = game()
    start = {"S3": ["AH"], "N3": ["AS"], "S6": RED_PAD, "N6": BLACK_PAD}
    state = load(g, start)
    state.apply(2)  # AH S3 -> S4
    state.apply(2)  # AS N3 -> N4 (North's view 2 is N3)
    state.apply(15)  # AH S4 -> S3 clockwise (view 3)
    assert not state.is_terminal()
    state.apply(15)  # AS N4 -> N3 clockwise: the start again, South to move
    final = state.to_json()
    assert final["terminal"] and final["end"] == "repetition" and stacks_of(state) == start
    assert final["history"]["actions"] == [2, 2, 15, 15]
    assert state.scores() == [0, 0] and state.returns() == [0.0, 0.0]
    assert g.state_from_json(json.loads(json.dumps(final))) == state
    # Parlett's rules have no repetition ending
    p = game(PARLETT)
    state = load(p, start)
    for action in (2, 2, 15, 15):
        state.apply(action)
    assert not state.is_terminal()


def test_parlett_colour_gone_and_score_without_enemy_cards():
    g = game(PARLETT)
    state = load(g, {"S1": ["9D", "5H"], "S3": ["4S"], "N6": ["2D", "3D", "4D"]})
    state.apply(0)  # 9D beats the last black card
    assert state.to_json()["end"] == "colour_gone"
    assert g.cards_in_play(state) == [5, 0] and state.scores() == [10, 0] and state.returns() == [1.0, -1.0]


def test_parlett_singletons_end_and_score_with_enemy_cards_left():
    g = game(PARLETT)
    state = load(g, {"S1": ["9D", "5H"], "S3": ["4S"], "N6": ["2D"], "N2": ["5C"], "N4": ["6C"], "S5": ["3D"],
                     "S6": ["4D"], "N1": ["7D"], "N5": ["8D"]})
    state.apply(0)  # 5H on S2, 9D takes 4S; every position now holds at most one card
    assert state.to_json()["end"] == "singletons"
    assert g.cards_in_play(state) == [7, 2] and state.scores() == [3, 0]


def test_parlett_resign_only_with_fewer_cards_and_under_thirteen_in_play():
    g = game(PARLETT)
    stacks = {"S1": ["2D", "3D"], "N1": ["2C", "3C", "4C"], "N3": ["5C", "6C"], "N5": ["7C", "8C"]}
    state = load(g, stacks)  # red 2, black 7: 9 in play, South has fewer
    assert 25 in state.legal_actions() and g.action_to_string(state, 25) == "resign"
    assert state.observation(0)[-1] == 1.0
    state.apply(25)
    final = state.to_json()
    assert final["terminal"] and final["end"] == "resign" and final["to_move"] == 1
    assert state.scores() == [0, 3] and state.returns() == [-1.0, 1.0]
    assert g.state_from_json(final) == state
    # North has more cards: no resign for North; and 13 or more in play: nobody may resign
    assert 25 not in load(g, stacks, to_move=1).legal_actions()
    more = dict(stacks, S5=["4D", "5D", "6D", "7D"])
    assert 25 not in load(g, more).legal_actions()
    assert 25 not in game().state_from_json(position(stacks)).legal_actions()  # Gering: never
    with pytest.raises(InvalidStateError, match="could not resign"):
        g.state_from_json(position(more, to_move=1, last_mover=0, end="resign"))


# --------------------------------------------------------------------------------------
# Notation, observation, bad input
# --------------------------------------------------------------------------------------


def test_notation_round_trip_and_errors():
    g = game()
    state = load(g, {"S1": ["AH"], "S3": ["8D", "8H"], "N6": BLACK_PAD, "S6": RED_PAD})
    assert {a: g.action_to_string(state, a) for a in state.legal_actions()} == {0: "S1a", 2: "S3", 5: "S6",
                                                                                12: "S1c"}
    for action, text in ((0, "s1a"), (12, "S1C"), (2, "S3"), (0, "S1")):
        assert g.string_to_action(state, text) == action
    with pytest.raises(NotationError, match="not understood"):
        g.string_to_action(state, "S7")
    with pytest.raises(NotationError, match="not legal here"):
        g.string_to_action(state, "N6")


def test_observation_layout_is_mover_relative():
    g = game()
    state = load(g, {"S1": ["AH", "KC"], "N1": ["10D"], "N6": BLACK_PAD, "S6": RED_PAD}, to_move=1)
    south, north = state.observation(0), state.observation(1)
    # South's view 0 is S1: top KC (rank 13, theirs, suit C=1), then AH (1, mine, H=3)
    assert south[0:6].tolist() == [13, 2, 1, 1, 1, 3]
    # North's view 0 is N1: 10D, red: South's card, so "theirs" for North
    assert north[0:3].tolist() == [10, 2, 2]
    assert north[6 * 52 * 3 : 6 * 52 * 3 + 6].tolist() == [13, 1, 1, 1, 2, 3]  # S1 is North's view 6
    b = 12 * 52 * 3
    assert south[b : b + 12].tolist() == [2, 0, 0, 0, 0, 6, 1, 0, 0, 0, 0, 6]
    assert south[b + 12 : b + 24].tolist() == [2, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 2]
    assert north[b : b + 12].tolist() == [1, 0, 0, 0, 0, 6, 2, 0, 0, 0, 0, 6]
    assert south[b + 24 : b + 29].tolist() == [8, 7, 0, 0, 0] and north[b + 24 : b + 29].tolist() == [7, 8, 1, 0, 0]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"stacks": [["QH"]] * 12}, "QH more than once"),
        ({"stacks": [["1H"]] + [[]] * 11}, "not a card"),
        ({"stacks": [[]] * 11}, "list of 12 stacks"),
        ({"south_colour": "blue"}, "'south_colour' must be 'red' or 'black'"),
        ({"first_move": True, "to_move": 1}, "first_move true"),
        ({"terminal": True}, "'terminal' is True in the payload"),
    ],
)
def test_bad_positions_are_refused(change, message):
    g = game()
    payload = position({"S1": ["AH", "KC"], "N6": BLACK_PAD, "S6": RED_PAD})
    payload.update(change)
    with pytest.raises(InvalidStateError, match=message):
        g.state_from_json(payload)


def test_options_and_actions_errors():
    with pytest.raises(InvalidOptionError, match="one of 'gering', 'parlett'"):
        game(ending="both")
    with pytest.raises(InvalidOptionError, match="max_plies=None is not allowed"):
        game(max_plies=None)
    g = game()
    state = g.new_state(0)
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply(3)
    with pytest.raises(InvalidStateError, match="exists only with ending='gering'"):
        game(PARLETT).state_from_json(dict(state.to_json()))


@pytest.mark.parametrize("env_id", [GERING, PARLETT])
def test_the_tops_kept_move_by_move_equal_the_tops_from_scratch(env_id):
    """The ply keeps every stack's top (non-empty, red top, lone Ace) in the header for
    ``legal_mask``; recomputing them from the stacks after every ply, and after a JSON round
    trip, must give the same bits (else a move would be offered or withheld wrongly)."""
    from mancala_envs.games import widdershins as w

    g = game(env_id)
    fields = [w.O_HEAD + w.H_NONEMPTY, w.O_HEAD + w.H_RED_TOPS, w.O_HEAD + w.H_LONE_ACES]
    rng = np.random.default_rng(5)
    plies = 0
    lone_aces = 0
    for seed in range(12):
        state = g.new_state(seed)
        while True:
            kept = state.array[fields].copy()
            scratch = state.array.copy()
            w._reset_tops(scratch)
            assert list(kept) == list(scratch[fields]), (env_id, seed, state.plies)
            lone_aces += int(kept[2] != 0)
            if state.is_terminal() or state.plies >= 300:
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            plies += 1
        assert list(g.state_from_json(state.to_json()).array[fields]) == list(kept)
    assert plies > 200 and lone_aces > 0
