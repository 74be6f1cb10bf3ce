"""The agents that ship with the foundation: random, greedy, specs and the arena."""

from __future__ import annotations

import pytest

from mancala_envs.agents import AgentSpecError, GreedyAgent, RandomAgent, make_agent
from mancala_envs.evaluation import play_match
from mancala_envs import make_game


def test_random_agent_is_seeded_and_legal():
    game = make_game("kalah-v0")
    state = game.new_state()
    picks = [RandomAgent(seed=5).act(state) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in state.legal_actions()
    agent = RandomAgent(seed=1)
    first = [agent.act(state) for _ in range(20)]
    agent.reset(seed=1)
    assert [agent.act(state) for _ in range(20)] == first


def test_greedy_takes_the_capture():
    # player_0 sows 1 seed from hole 0 into empty hole 1, opposite player_1's hole 4 holds 9
    #            p1:  [0][9][0][0][0][1]        (shown right to left from p1's hole 0)
    #     [0]                              [0]
    #            p0:  [1][0][2][0][0][0]
    game = make_game("kalah-v0")
    state = game.state_from_json(
        {"pits": [[1, 0, 2, 0, 0, 0], [1, 0, 0, 0, 9, 0]], "stores": [0, 0], "to_move": 0}
    )
    assert GreedyAgent(seed=0).act(state) == 0


def test_greedy_follows_extra_turns():
    # Hole 5 (1 seed) reaches the store and gives an extra turn, after which hole 3
    # (2 seeds) reaches the store again: worth 2. Hole 4 (1 seed) lands in hole 5 for 0.
    game = make_game("kalah-v0")
    state = game.state_from_json(
        {"pits": [[0, 0, 0, 3, 1, 1], [4, 4, 4, 4, 4, 4]], "stores": [0, 0], "to_move": 0}
    )
    assert GreedyAgent(seed=0).act(state) == 5


def test_greedy_beats_random():
    result = play_match("kalah-v0", make_agent("greedy", seed=1), make_agent("random", seed=2), openings=20, seed=0)
    games, wins, draws, losses = result.counts()
    assert games == 40 and wins > losses
    assert [result.counts(seat)[0] for seat in (0, 1)] == [20, 20]


def test_specs():
    agent = make_agent("greedy:max_chain=8", seed=0)
    assert isinstance(agent, GreedyAgent) and agent.max_chain == 8 and agent.name == "greedy:max_chain=8"
    with pytest.raises(AgentSpecError, match="greedy takes max_chain=<int>"):
        make_agent("greedy:depth=3")
    with pytest.raises(AgentSpecError, match="is not a valid int"):
        make_agent("greedy:max_chain=x")
    with pytest.raises(AgentSpecError, match="known agents"):
        make_agent("")
