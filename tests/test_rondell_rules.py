"""One test per Rondell rule, each from an explicit position, asserting the exact result.

Drawings list the piles by number (1-based, as in the notation; the action is number - 1),
each bottom to top, the rightmost letter being the top card (R red, B blue). ``--`` marks a
pile that has left the ring. Sowing runs 1, 2, 3, ... counterclockwise round the ring.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError, InvalidStateError, NotationError
from mancala_envs.core.repetition import ACTION_BITS, HASH_BITS, rep_action, rep_hash, repeats_exactly
from mancala_envs.games import rondell as rondell_module
from mancala_envs.games.rondell import check_deck


def rondell(env_id="rondell-v0", **options):
    return mancala_envs.make_game(env_id, **options)


def position(game, piles: dict, to_move: int, p1_pairs=(0, 0), **extra) -> dict:
    """A payload with ``piles`` ({number: cards}); the pairs not on the board go to player 0
    except ``p1_pairs`` (red, blue) for player 1."""
    o = game.options
    board = [piles.get(i + 1, "") for i in range(o["piles"])]
    reds = sum(p.count("R") for p in board)
    blues = sum(p.count("B") for p in board)
    red0 = o["red_pairs"] - reds // 2 - p1_pairs[0]
    blue0 = o["blue_pairs"] - blues // 2 - p1_pairs[1]
    payload = {"piles": board, "to_move": to_move, "pairs": [[red0, blue0], list(p1_pairs)]}
    payload.update(extra)
    return payload


def piles_of(state) -> dict:
    return {i + 1: p for i, p in enumerate(state.to_json()["piles"]) if p}


# --------------------------------------------------------------------------------------
# The deal and the start
# --------------------------------------------------------------------------------------


def test_deal_is_seeded_round_the_ring_and_player_0_starts():
    game = rondell()
    a, b, c = game.new_state(3), game.new_state(3), game.new_state(4)
    assert a.to_json() == b.to_json() and a.to_json()["piles"] != c.to_json()["piles"]
    deck = np.array([1] * 26 + [2] * 28, dtype=np.int64)
    np.random.default_rng(3).shuffle(deck)
    expected = ["".join("R" if deck[k] == 1 else "B" for k in range(i, 54, 9)) for i in range(9)]
    assert a.to_json()["piles"] == expected  # card k on pile k mod 9; the last dealt is the top
    assert a.current_player == 0 and a.legal_actions() == list(range(9))
    # the env's reset seed is the deal's seed
    env = mancala_envs.make("rondell-v0")
    env.reset(seed=3)
    assert env.unwrapped.game_state.to_json() == a.to_json()


@pytest.mark.parametrize("env_id, piles, cards", [("rondell-v0", 9, 6), ("rondell-expert-v0", 16, 7)])
def test_opening_identity_holds_for_both_presets(env_id, piles, cards):
    game = rondell(env_id)
    assert (game.options["piles"], game.options["cards_per_pile"]) == (piles, cards)
    assert any((cards - 1) + j * (cards - 2) == piles for j in range(piles))
    state = game.new_state(0)
    assert all(len(p) == cards for p in state.to_json()["piles"])
    assert game.conserved_total(state) == piles * cards
    assert game.total_points() == {9: 41, 16: 85}[piles]


# --------------------------------------------------------------------------------------
# Sowing
# --------------------------------------------------------------------------------------


def test_sowing_shorter_than_the_ring_without_capture_ends_the_move():
    #  1 RRB  2 R  3 B  4 R  5 B  6 B  7 B  8 B  9 BB
    # lift 1: B stays on 1, R on 2, R on 3 (top B: different colour, the move ends)
    game = rondell()
    state = game.state_from_json(position(game, {1: "RRB", 2: "R", 3: "B", 4: "R", 5: "B", 6: "B", 7: "B",
                                                 8: "B", 9: "BB"}, 0))
    before = state.to_json()["pairs"]
    state.apply(0)
    assert piles_of(state) == {1: "B", 2: "RR", 3: "BR", 4: "R", 5: "B", 6: "B", 7: "B", 8: "B", 9: "BB"}
    assert state.to_json()["pairs"] == before and state.current_player == 1


def test_sowing_longer_than_the_ring_laps_it():
    #  1 BBRRB  2 RR  3 B  (4..9 --): top first B, R, R, B, B onto 1, 2, 3, 1, 2
    # the last B lands on 2, whose top is the R dropped there earlier in this lap: no capture
    game = rondell()
    state = game.state_from_json(position(game, {1: "BBRRB", 2: "RR", 3: "B"}, 0))
    state.apply(0)
    assert piles_of(state) == {1: "BB", 2: "RRRB", 3: "BR"}
    assert state.current_player == 1 and state.to_json()["pairs"] == [[11, 12], [0, 0]]


def test_landing_on_the_origin_compares_with_the_card_dropped_there_this_lap():
    #  1 BRRB  2 RR  3 BB  (4..9 --): top first B, R, R, B onto 1, 2, 3 and 1 again:
    # the last B meets the B dropped on 1 at the start of the lap: a pair; 1 is then empty
    game = rondell()
    state = game.state_from_json(position(game, {1: "BRRB", 2: "RR", 3: "BB"}, 0))
    state.apply(0)
    assert piles_of(state) == {2: "RRR", 3: "BBR"}
    assert state.to_json()["pairs"][0] == [11, 13]  # one more blue pair for player 0


def test_capture_then_a_second_and_a_third_lap_and_a_pile_leaving_the_ring():
    #  1 BRB  2 B  3 RRB  4 RBR  5 R  6 B  7 B  8 B  9 BB
    # lap 1: B on 1, R on 2, B on 3 (top B): pair of blue, 3 keeps RR -> lap 2
    # lap 2: R on 3, R on 4 (top R): pair of red, 4 keeps RB -> lap 3
    # lap 3: B on 4, R on 5 (top R): pair of red, 5 is empty and leaves the ring; the move ends
    game = rondell()
    state = game.state_from_json(position(game, {1: "BRB", 2: "B", 3: "RRB", 4: "RBR", 5: "R", 6: "B", 7: "B",
                                                 8: "B", 9: "BB"}, 0))
    pairs = state.to_json()["pairs"]
    state.apply(0)
    after = state.to_json()
    assert piles_of(state) == {1: "B", 2: "BR", 3: "R", 4: "B", 6: "B", 7: "B", 8: "B", 9: "BB"}
    assert after["piles"][4] == ""
    assert after["pairs"] == [[pairs[0][0] + 2, pairs[0][1] + 1], [0, 0]]
    assert state.current_player == 1
    assert state.observation(1)[9 * 54 + 9] == 8  # piles left in the ring
    assert 4 not in state.legal_actions()


def test_a_capture_leaving_one_card_ends_the_move():
    #  1 BR  2 RB  3 R  4 B  5 R  6 B: player 1 lifts 1: R on 1, B on 2 (top B): a blue pair,
    # 2 keeps R (one card): the move ends
    game = rondell()
    state = game.state_from_json(position(game, {1: "BR", 2: "RB", 3: "R", 4: "B", 5: "R", 6: "B"}, 1))
    state.apply(0)
    assert piles_of(state) == {1: "R", 2: "R", 3: "R", 4: "B", 5: "R", 6: "B"}
    assert state.current_player == -1  # nobody has a pile of 2: end (a)


def test_the_ring_shrinks_and_sowing_skips_nothing_in_it():
    #  1 B  2 --  3 RRB  4 --  5 B  6 B  7 --  8 R  9 R: lift 3: B on 3, R on 5, R on 6 (4 is no pile)
    game = rondell()
    state = game.state_from_json(position(game, {1: "B", 3: "RRB", 5: "B", 6: "B", 8: "R", 9: "R"}, 0))
    state.apply(2)
    assert piles_of(state) == {1: "B", 3: "B", 5: "BR", 6: "BR", 8: "R", 9: "R"}
    #  lift 6 (player 1): R on 6, B on 8 (the ring goes on to 8 past the gap at 7)
    state.apply(5)
    assert piles_of(state) == {1: "B", 3: "B", 5: "BR", 6: "R", 8: "RB", 9: "R"}
    #  lift 8 (player 0): B on 8, R on 9: a red pair; 9 leaves; the ring now wraps from 8 to 1
    state.apply(7)
    assert piles_of(state) == {1: "B", 3: "B", 5: "BR", 6: "R", 8: "B"}
    assert state.observation(0)[9 * 54 + 9] == 5
    state.apply(4)  # player 1 lifts 5: R on 5, B on 6
    state.apply(5)  # player 0 lifts 6 "RB": B on 6, R on 8 (top B)
    assert piles_of(state) == {1: "B", 3: "B", 5: "R", 6: "B", 8: "BR"}
    state.apply(7)  # player 1 lifts 8 "BR": R on 8, B on 1 (past 9, which has left): a blue pair
    assert piles_of(state) == {3: "B", 5: "R", 6: "B", 8: "R"}
    assert state.is_terminal() and state.to_json()["leftover_to"] == 1


# --------------------------------------------------------------------------------------
# Endings and scoring
# --------------------------------------------------------------------------------------


def test_no_move_ending_gives_the_leftovers_to_the_last_mover():
    #  1 RB  2 R  3 B  4 R  5 R (6..9 --); pairs taken: player 0 5 red 6 blue, player 1 6 red 7 blue
    # player 0 lifts 1: B on 1, R on 2 (top R): a red pair, 2 leaves. Player 1 has no pile of 2:
    # the game ends and player 0, who moved last, takes R R B B left on the board (1 + 2 points)
    game = rondell()
    payload = position(game, {1: "RB", 2: "R", 3: "B", 4: "R", 5: "R"}, 0, p1_pairs=(6, 7))
    state = game.state_from_json(payload)
    assert state.to_json()["pairs"] == [[5, 6], [6, 7]] and state.scores() == [17, 20]
    state.apply(0)
    final = state.to_json()
    assert final["terminal"] and final["end"] == "no_move" and final["leftover_to"] == 0
    assert piles_of(state) == {1: "B", 3: "B", 4: "R", 5: "R"}
    assert final["pairs"] == [[6, 6], [6, 7]]
    assert state.scores() == [18 + 3, 20]
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []


def test_repetition_ending_gives_the_leftovers_to_the_other_player():
    #  1 R  2 RB  6 B: three single-pile lifts bring the piles round in six plies
    #  p0 lifts 2 -> 1 R 2 B 6 BR;  p1 lifts 6 -> 1 RB 2 B 6 R;  p0 lifts 1 -> 1 B 2 BR 6 R
    #  p1 lifts 2 -> 1 B 2 R 6 RB;  p0 lifts 6 -> 1 BR 2 R 6 B;  p1 lifts 1 -> 1 R 2 RB 6 B, p0 to move:
    # the start again. Player 1 completed the repetition, so player 0 takes R R B B (3 points).
    game = rondell()
    state = game.state_from_json(position(game, {1: "R", 2: "RB", 6: "B"}, 0, p1_pairs=(6, 7)))
    start = piles_of(state)
    assert state.scores() == [6 + 12, 6 + 14]
    for action in (1, 5, 0, 1, 5):
        state.apply(action)
        assert not state.is_terminal()
    assert piles_of(state) == {1: "BR", 2: "R", 6: "B"}
    state.apply(0)
    final = state.to_json()
    assert piles_of(state) == start and final["to_move"] == 0
    assert final["terminal"] and final["end"] == "repetition" and final["leftover_to"] == 0
    assert final["history"]["actions"] == [1, 5, 0, 1, 5, 0]
    assert state.scores() == [18 + 3, 20] and state.returns() == [1.0, -1.0]
    assert mancala_envs.make_game("rondell-v0").state_from_json(json.loads(json.dumps(final))) == state


def test_same_piles_with_the_other_player_to_move_is_not_a_repetition():
    #  1 BRRB, the only pile left: lifting it drops B, R, R, B back onto it (the last B meets R):
    # the piles are unchanged, but now player 1 is to move: no repetition yet.
    game = rondell()
    state = game.state_from_json(position(game, {1: "BRRB"}, 0))
    state.apply(0)
    assert piles_of(state) == {1: "BRRB"} and state.current_player == 1
    # player 1 does the same: the start (piles, player 0 to move) repeats; player 1 completed it
    state.apply(0)
    final = state.to_json()
    assert final["end"] == "repetition" and final["leftover_to"] == 0 and final["to_move"] == 0
    assert state.scores() == [13 + 2 * 14, 0]


def test_hash_matches_are_confirmed_so_a_collision_cannot_end_the_game():
    game = rondell()
    state = game.state_from_json(position(game, {1: "R", 2: "RB", 6: "B"}, 0, p1_pairs=(6, 7)))
    state.apply(1)
    # forge a record whose entry 0 has the hash of the current position: a "collision"
    params = game.params
    rep, cap = int(params[rondell_module.P_O_REP]), int(params[rondell_module.P_CAP])
    forged = int(rondell_module._position_hash(state.array, params)) & (2**HASH_BITS - 1)
    state.array[rep + 1] = forged << ACTION_BITS  # entry 0: that hash, action -1
    assert rep_hash(state.array, rep, cap, 0) == forged and rep_action(state.array, rep, cap, 0) == -1
    assert not repeats_exactly(state.array, params, rep, cap, 0, rondell_module._load_snapshot,
                               rondell_module._play, rondell_module._same_position)
    state.apply(5)
    assert not state.is_terminal()


# --------------------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------------------


def test_reservation_is_a_step_of_the_same_player_and_binds_the_next_move():
    #  1 RB  2 B  3 RR  4 R (5..16 --), expert deck
    game = rondell("rondell-reservation-v0")
    assert game.num_actions == 17
    state = game.state_from_json(position(game, {1: "RB", 2: "B", 3: "RR", 4: "R"}, 0))
    state.apply(0)  # B on 1, R on 2 -> 1 B 2 BR 3 RR 4 R
    assert state.to_json()["phase"] == "reserve" and state.current_player == 0
    assert state.legal_actions() == [1, 2, 16]  # piles of 2 or more, or none
    assert game.action_to_string(state, 16) == "r-" and game.action_to_string(state, 2) == "r3"
    obs = state.observation(0)
    base = 16 * 112 + 16 + 4
    assert obs[base] == 1.0
    state.apply(2)  # reserve pile 3
    assert state.current_player == 1 and state.to_json()["reserved"] == 2
    assert state.legal_actions() == [1]
    assert state.observation(1)[base + 1 + 2] == 1.0
    with pytest.raises(IllegalActionError):
        state.apply(2)
    state.apply(1)  # player 1 lifts 2 "BR": R on 2, B on 3 (top R) -> 1 B 2 R 3 RRB 4 R
    assert state.to_json()["reserved"] is None and state.to_json()["phase"] == "reserve"
    assert state.legal_actions() == [2, 16]
    state.apply(2)  # player 1 reserves 3, player 0's only pile: player 0 cannot move
    final = state.to_json()
    assert final["terminal"] and final["end"] == "no_move" and final["leftover_to"] == 1


def test_reservation_of_none_leaves_every_pile_free():
    game = rondell("rondell-reservation-v0")
    state = game.state_from_json(position(game, {1: "RB", 2: "B", 3: "RR", 4: "R"}, 0))
    state.apply(0)
    state.apply(16)
    assert state.to_json()["reserved"] is None and state.legal_actions() == [1, 2]


def test_partial_areas_rotation_pass_and_end():
    #  1 RB  2 B  3 B | 9 R  10 B ; player 0 owns 1..8, player 1 owns 9..16
    game = rondell("rondell-partial-v0")
    state = game.state_from_json(position(game, {1: "RB", 2: "B", 3: "B", 9: "R", 10: "B"}, 0))
    assert state.legal_actions() == [0]
    state.apply(0)  # B on 1, R on 2 -> 1 B 2 BR: player 1 has no pile of 2 and passes
    assert piles_of(state) == {1: "B", 2: "BR", 3: "B", 9: "R", 10: "B"}
    assert state.current_player == 0 and state.legal_actions() == [1]
    state.apply(1)  # R on 2, B on 3 (top B): a blue pair, 3 leaves; neither can move
    final = state.to_json()
    assert final["terminal"] and final["end"] == "no_move" and final["leftover_to"] == 0
    # player 1's actions count from the start of their own area (pile 9 is their action 0)
    other = game.state_from_json(position(game, {1: "RB", 9: "RB", 10: "B", 12: "B"}, 1))
    assert other.legal_actions() == [0]
    assert game.action_to_string(other, 0) == "9" and game.string_to_action(other, "9") == 0
    other.apply(0)  # B on 9, R on 10 -> 9 B 10 BR
    assert piles_of(other) == {1: "RB", 9: "B", 10: "BR", 12: "B"} and other.current_player == 0
    mine = other.observation(1)[16 * 112 + 16 + 4 :]
    assert mine.tolist() == [1.0] * 8 + [0.0] * 8
    with pytest.raises(InvalidStateError, match="so they pass and player 1 moves"):
        game.state_from_json(position(game, {1: "R", 2: "R", 9: "BB", 10: "B", 11: "B"}, 0))


def test_bottom_up_sows_the_bottom_card_first():
    #  1 RRB  2 B  3 R  4 B  5 R  6 B (7..16 --): bottom first R on 1, R on 2, B on 3 (top R: no pair)
    game = rondell("rondell-bottom-up-v0")
    board = {1: "RRB", 2: "B", 3: "R", 4: "B", 5: "R", 6: "B"}
    state = game.state_from_json(position(game, board, 0))
    state.apply(0)
    assert piles_of(state) == {1: "R", 2: "BR", 3: "RB", 4: "B", 5: "R", 6: "B"}
    top_first = rondell("rondell-expert-v0")
    twin = top_first.state_from_json(position(top_first, board, 0))
    twin.apply(0)  # B on 1, R on 2, R on 3 (top R): a red pair, 3 leaves
    assert piles_of(twin) == {1: "B", 2: "BR", 4: "B", 5: "R", 6: "B"}


# --------------------------------------------------------------------------------------
# Deck restrictions, options, bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opts, message",
    [
        (dict(piles=5, cards_per_pile=3, red_pairs=3, blue_pairs=4), "number of cards must be even.*5 \\* 3 = 15"),
        (dict(red_pairs=13, blue_pairs=15), "same number of cards.*need 54 cards.*make 56"),
        (dict(red_pairs=12, blue_pairs=15), "point total must be odd.*12 \\+ 2 \\* 15 = 42"),
        (dict(red_pairs=11, blue_pairs=16), "one or two more blue pairs.*16 - 11 = 5"),
        (dict(piles=4, cards_per_pile=4, red_pairs=3, blue_pairs=5), "opening identity.*c = cards_per_pile = 4"),
    ],
)
def test_each_deck_restriction_has_its_error(opts, message):
    with pytest.raises(InvalidOptionError, match=message):
        rondell(**opts)


def test_valid_custom_deck_and_variant_combinations():
    game = rondell(piles=5, cards_per_pile=6, red_pairs=7, blue_pairs=8)
    assert [len(p) for p in game.new_state(0).to_json()["piles"]] == [6] * 5
    check_deck("x", 16, 7, 27, 29)
    with pytest.raises(InvalidOptionError, match="piles must be even"):
        rondell(partial=True)
    with pytest.raises(InvalidOptionError, match="cannot be combined"):
        rondell("rondell-expert-v0", partial=True, reservation=True)
    with pytest.raises(InvalidOptionError, match="max_plies=None is not allowed"):
        rondell(max_plies=None)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"piles": ["RB"] * 9}, "red and .* blue cards on the board"),
        ({"piles": ["RX"] + [""] * 8}, "string of R \\(red\\) and B"),
        ({"piles": ["R"] * 8}, "list of 9 strings"),
        ({"to_move": 2}, "'to_move' must be an integer from 0 to 1"),
        ({"phase": "reserve"}, "only with reservation=True"),
        ({"reserved": 1}, "'reserved' must be null"),
        ({"pairs": [[1, 2]]}, "'pairs' must be"),
        ({"terminal": True}, "'terminal' is True in the payload"),
        ({"end": "repetition"}, "'end' is 'repetition'"),
        ({"plies": 1, "history": {"piles": ["BB", "R", "R"] + [""] * 6, "to_move": 0, "actions": [0]}}, "'piles' is"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(change, message):
    game = rondell()
    payload = position(game, {1: "RB", 2: "R", 3: "B"}, 0)
    payload.update(change)
    with pytest.raises(InvalidStateError, match=message):
        game.state_from_json(payload)


def test_history_is_replayed_and_checked():
    game = rondell()
    state = game.state_from_json(position(game, {1: "R", 2: "RB", 6: "B"}, 0, p1_pairs=(6, 7)))
    state.apply(1)
    state.apply(5)
    payload = state.to_json()
    assert payload["history"]["actions"] == [1, 5]
    assert game.state_from_json(payload) == state
    bad = json.loads(json.dumps(payload))
    bad["piles"][0], bad["piles"][5] = bad["piles"][5], bad["piles"][0]
    with pytest.raises(InvalidStateError, match="'piles' is"):
        game.state_from_json(bad)
    bad = json.loads(json.dumps(payload))
    bad["history"]["actions"] = [1, 1]
    with pytest.raises(InvalidStateError, match="history action 1 \\(1\\) is not legal"):
        game.state_from_json(bad)


def test_notation_and_its_errors():
    game = rondell()
    state = game.new_state(0)
    assert game.action_to_string(state, 4) == "5" and game.string_to_action(state, " 5 ") == 4
    with pytest.raises(NotationError, match="piles are numbered 1 to 9"):
        game.string_to_action(state, "10")
    with pytest.raises(NotationError, match="not understood"):
        game.string_to_action(state, "five")


def test_observation_layout():
    game = rondell()
    state = game.state_from_json(position(game, {1: "RRB", 2: "B", 3: "R", 4: "B", 5: "R", 6: "B"}, 1,
                                          p1_pairs=(2, 1)))
    obs = state.observation(1)
    T = 54
    assert obs.shape == (9 * T + 9 + 4,)
    assert obs[0:4].tolist() == [2.0, 1.0, 1.0, 0.0]  # pile 1 from the top: B R R, then nothing
    assert obs[T] == 2.0 and obs[2 * T] == 1.0
    assert obs[9 * T : 9 * T + 9].tolist() == [3, 1, 1, 1, 1, 1, 0, 0, 0]
    base = 9 * T + 9
    assert obs[base] == 6  # piles left
    assert obs[base + 1] == 2 + 2 and obs[base + 2] == state.scores()[0]  # mine, then theirs
    assert obs[base + 3] == 1.0 and state.observation(0)[base + 3] == 0.0


def test_shuffle_deck_is_numpys_shuffle():
    """The card games' deal (core.deal.shuffle_deck) permutes and draws exactly as
    Generator.shuffle, for decks of every size the games use and a few others."""
    from mancala_envs.core.deal import shuffle_deck

    for seed in range(20):
        for size in (1, 2, 52, 54, 112, 300):
            ours, numpys = np.arange(size), np.arange(size)
            rng_ours, rng_numpy = np.random.default_rng(seed), np.random.default_rng(seed)
            shuffle_deck(rng_ours, ours)
            rng_numpy.shuffle(numpys)
            assert (ours == numpys).all()
            assert rng_ours.integers(2**40) == rng_numpy.integers(2**40)  # the generator goes on alike


@pytest.mark.parametrize("bottom_up", [False, True])
@pytest.mark.parametrize("height", [64, 65, 100])
def test_a_pile_of_more_than_64_cards_is_sown_like_any_other(height, bottom_up):
    """The kernel holds a lifted pile of up to 64 cards in a register and a taller one in the
    state's lift buffer (the origin receives cards during the lap): both agree with the
    reference, on a ring of three piles where the tall pile laps it many times."""
    from reference.rondell_ref import RondellReference

    game = mancala_envs.make_game("rondell-expert-v0", bottom_up=bottom_up)
    o = game.options
    cards = ["R"] * 2 * o["red_pairs"] + ["B"] * 2 * o["blue_pairs"]
    np.random.default_rng(height).shuffle(cards)
    piles = [""] * o["piles"]
    rest = (len(cards) - height) // 2
    piles[0], piles[5], piles[11] = (
        "".join(cards[:height]), "".join(cards[height : height + rest]), "".join(cards[height + rest :])
    )
    payload = {"piles": piles, "to_move": 0, "phase": "move", "reserved": None, "pairs": [[0, 0], [0, 0]],
               "plies": 0, "last_mover": None}
    state = game.state_from_json(payload)
    ref = RondellReference(game.options)
    rstate = ref.from_json(payload)
    assert state.legal_actions() == [0, 5, 11]
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        assert child.to_json() == ref.to_json(ref.apply(rstate, action)), action
