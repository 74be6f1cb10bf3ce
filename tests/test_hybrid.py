"""The hybrid agent (``agents.hybrid``): the solver's move where the solve finishes in time, the
fallback search's move where it does not, and its spec's options.

Board drawings as in ``test_kalah_rules`` (player_1's top row reads right to left)."""

from __future__ import annotations

import pickle

import pytest

import mancala_envs
from mancala_envs.agents import AlphaBetaAgent, HybridAgent, MCTSAgent, make_agent
from mancala_envs.core.errors import MancalaError
from mancala_envs.evaluation.analysis import oracle_accuracy, solved_positions, value


@pytest.fixture
def small_kalah(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path))  # its endgame database: built in a moment
    return mancala_envs.make_game("kalah-v0", pits=3, seeds=3)


def three_moves_of_three_margins(game):
    """Player_0 to move; a0 wins by 4, a1 wins by 2, a2 draws (the oracle says so below)::

             p1 [ 2][ 0][ 3]
        [ 3]                 [ 3]
             p0 [ 2][ 1][ 4]
    """
    return game.state_from_json({"pits": [[2, 1, 4], [3, 0, 2]], "stores": [3, 3], "to_move": 0,
                                 "terminal": False, "plies": 6, "phase": "play", "setup_index": 0,
                                 "last_action": 1, "last_player": 1})


def test_plays_the_solvers_move_of_the_best_margin_where_the_solve_finishes(small_kalah):
    state = three_moves_of_three_margins(small_kalah)
    oracle = value(state)
    assert oracle.move_values == {0: 4, 1: 2, 2: 0} and oracle.best_moves == [0]
    fallback = AlphaBetaAgent(depth=1)
    assert fallback.act(state.clone()) == 2  # the one-ply search alone settles for the draw
    agent = make_agent("hybrid:solve=5,then=alphabeta,depth=1", seed=0)
    assert agent.act(state.clone()) == 0
    assert agent.last.exact and agent.last.mover_value == 4


def test_optimal_on_every_position_of_real_games_it_solves_in_time(small_kalah):
    # the oracle row's measure on positions of two players' games: every one solved, every move optimal,
    # where the fallback alone (one-ply search) misses some
    players = (make_agent("greedy", seed=0), make_agent("greedy", seed=1))
    solved = solved_positions(small_kalah, 12, seed=4, players=players)
    hybrid = oracle_accuracy(make_agent("hybrid:solve=5,then=alphabeta,depth=1,memory=4M"), solved)
    assert hybrid.positions == 12 and hybrid.optimal == 1.0 and hybrid.mean_loss == 0
    assert oracle_accuracy(make_agent("alphabeta:depth=1"), solved).optimal < 1.0


def test_falls_back_to_the_search_when_the_solve_does_not_finish():
    # no endgame database for two-way sowing, and a full board: no solve finishes in a millisecond
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = game.new_state(0)
    agent = make_agent("hybrid:solve=0.001,then=alphabeta,depth=3", seed=0)
    assert agent.act(state.clone()) == AlphaBetaAgent(depth=3).act(state.clone())
    assert not agent.last.exact
    agent = make_agent("hybrid:solve=0.001,sims=50", seed=7)
    assert agent.act(state.clone()) == MCTSAgent(seed=7, sims=50).act(state.clone())
    assert not agent.last.exact


def test_the_table_is_kept_across_games_and_renewed_for_another_game(small_kalah):
    agent = HybridAgent(seed=0, solve=5, memory="4M")
    state = three_moves_of_three_margins(small_kalah)
    agent.act(state.clone())
    table = agent.table
    agent.reset(seed=1)
    agent.act(state.clone())
    assert agent.table is table
    other = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    agent.act(other.new_state(0))
    assert agent.table is not table
    copy = pickle.loads(pickle.dumps(agent))  # for the worker processes of a match
    assert copy.act(state.clone()) == 0


@pytest.mark.parametrize("spec, message", [
    ("hybrid:solve=0", "solve must be > 0 seconds"),
    ("hybrid:then=rollouts", "then must be one of mcts, alphabeta"),
    ("hybrid:then=alphabeta,sims=100", "sims and c are options of then=mcts"),
    ("hybrid:depth=4", "depth is an option of then=alphabeta"),
    ("hybrid:memory=lots", "memory must be a size"),
    ("hybrid:sims=0", "sims must be at least 1"),
    ("hybrid:solve=fast", "not a valid float"),
    ("hybrid:budget=1", "hybrid takes solve=<float>"),
])
def test_bad_options_name_what_is_allowed(spec, message):
    with pytest.raises(MancalaError, match=message):
        make_agent(spec)
