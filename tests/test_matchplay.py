"""Match play: one deal played twice, each agent starting once, points summed."""

from __future__ import annotations

import pytest

import mancala_envs
from mancala_envs.agents import GreedyAgent, RandomAgent
from mancala_envs import MancalaError
from mancala_envs.evaluation.matchplay import play_deal_match


class FirstLegal:
    """Always the lowest legal action: a deterministic agent for exact expectations."""

    name = "first"

    def reset(self, seed=None):
        pass

    def act(self, state):
        return state.legal_actions()[0]


class LastLegal(FirstLegal):
    name = "last"

    def act(self, state):
        return state.legal_actions()[-1]


def play_by_hand(env_id, seed, agents):
    game = mancala_envs.make_game(env_id)
    state = game.new_state(seed)
    actions = []
    while not state.is_terminal():
        action = agents[state.current_player].act(state)
        state.apply(action)
        actions.append(action)
    return actions, state.scores()


def test_same_deal_twice_with_seats_swapped_and_points_summed():
    result = play_deal_match("rondell-v0", FirstLegal(), LastLegal(), seed=11)
    first, last = FirstLegal(), LastLegal()
    actions1, scores1 = play_by_hand("rondell-v0", 11, (first, last))
    actions2, scores2 = play_by_hand("rondell-v0", 11, (last, first))
    g1, g2 = result.games
    assert (g1.a_seat, g2.a_seat) == (0, 1)
    assert g1.seats == ("first", "last") and g2.seats == ("last", "first")
    assert g1.record.actions == actions1 and g2.record.actions == actions2
    assert g1.record.seed == g2.record.seed == 11
    assert g1.record.replay()[0].to_json() == g2.record.replay()[0].to_json()  # the same deal
    assert g1.scores == scores1 and g2.scores == scores2
    assert result.points == {"a": scores1[0] + scores2[1], "b": scores1[1] + scores2[0]}
    assert result.points["a"] + result.points["b"] == 2 * 41  # every point of both games is won
    assert result.winner == ("a" if result.points["a"] > result.points["b"] else "b")
    assert "match won by" in result.summary()
    assert result.to_dict()["games"][1]["record"]["actions"] == actions2


def test_a_match_can_be_drawn_and_is_repeatable():
    # the same deterministic agent on both sides: each game is the same, so the sums tie
    result = play_deal_match("rondell-v0", FirstLegal(), FirstLegal(), seed=3)
    assert result.points["a"] == result.points["b"] and result.winner is None
    a = play_deal_match("rondell-expert-v0", RandomAgent(), GreedyAgent(), seed=5)
    b = play_deal_match("rondell-expert-v0", RandomAgent(), GreedyAgent(), seed=5)
    assert a.to_dict() == b.to_dict()
    assert a.points["a"] + a.points["b"] == 2 * 85 and not a.truncated


def test_truncated_games_count_the_points_taken_so_far():
    result = play_deal_match("rondell-v0", RandomAgent(), RandomAgent(), seed=2, max_plies=3)
    for g in result.games:
        assert g.truncated and len(g.record.actions) == 3 and g.returns == [0.0, 0.0]
    assert result.truncated
    assert result.points["a"] == result.games[0].scores[0] + result.games[1].scores[1]


def test_bad_input():
    with pytest.raises(MancalaError, match="seed must be an integer >= 0"):
        play_deal_match("rondell-v0", FirstLegal(), LastLegal(), seed=-1)

    class Cheater(FirstLegal):
        name = "cheater"

        def act(self, state):
            return 99

    with pytest.raises(MancalaError, match="agent 'cheater' chose action 99, which is not legal"):
        play_deal_match("rondell-v0", Cheater(), LastLegal(), seed=0)
    with pytest.raises(MancalaError, match="options can only be given with an env id"):
        play_deal_match(mancala_envs.make_game("rondell-v0"), FirstLegal(), LastLegal(), seed=0, max_plies=3)
