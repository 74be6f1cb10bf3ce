"""Alpha-beta, the exact solver and MCTS over every registered id, against plain references.

The references are plain Python minimax over the ``State`` API, with the same evaluation
as ``mancala_envs.agents.search`` (see its docstring): depth-limit leaves are the game's
``search_heuristic`` where it has one, else (and at ply-cap positions) the mover's score
difference; game ends add ``1e6 * returns`` for the agents and nothing for the solver.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import AlphaBetaAgent, MCTSAgent, RandomAgent, make_agent
from mancala_envs.evaluation import play_match
from mancala_envs.evaluation.analysis import move_values, optimal_move_rate
from mancala_envs.evaluation.openings import position_key
from mancala_envs.agents.mcts import mcts_search
from mancala_envs.agents.search import WIN_BONUS, TranspositionTable, search
from mancala_envs.agents.solver import SolverTable, solve
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import get_entry

from warm_cache import warm

IDS = mancala_envs.list_envs()

# Options that make a board small, tried one by one on every id (those a family lacks or
# rejects are left out). A family added later without any of them is tested at its
# registered size, at shallow depth.
SMALL = {"pits": 2, "seeds": 2, "holes": 3, "stones": 2, "max_setup_seeds": 1,
         "piles": 3, "cards_per_pile": 2, "red_pairs": 1, "blue_pairs": 1}
SMALL_CAP = 30  # the ply cap of a shrunk board (some small boards can cycle)


def small_game(env_id: str):
    """The id with every SMALL option it accepts; ``opts`` is empty if none applied."""
    names = {o.name for o in get_entry(env_id).game_options()}
    opts: dict = {}
    for key, value in SMALL.items():
        if key in names:
            try:
                mancala_envs.make_game(env_id, **{**opts, key: value})
            except MancalaError:
                continue
            opts[key] = value
    if opts and "max_plies" in names:
        opts["max_plies"] = SMALL_CAP
    return mancala_envs.make_game(env_id, **opts), opts


class Budget(Exception):
    pass


def minimax(state, depth, solver, budget):
    """Plain negamax value for the player to move (no pruning, no table)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise Budget
    me = state.current_player
    cap = state.game.max_plies
    best = -np.inf
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        cp = child.current_player
        if cp < 0 or depth <= 1 or (cap is not None and child.plies >= cap):
            heuristic = state.game.search_heuristic
            if cp >= 0 and depth <= 1 and heuristic is not None and not solver:
                v = heuristic(child.array, state.game.params, me)
            else:
                s = child.scores()
                v = s[me] - s[1 - me]
            if cp < 0 and not solver:
                v += WIN_BONUS * child.returns()[me]
        else:
            v = minimax(child, depth - 1, solver, budget)
            v = v if cp == me else -v
        best = max(best, v)
    return best


def positions(game, count, seed, max_moves=12):
    """The start position and some reached by random moves (not over, below the cap)."""
    rng = np.random.default_rng(seed)
    out = [game.new_state(seed)]
    while len(out) < count:
        state = game.new_state(int(rng.integers(1000)))
        for _ in range(int(rng.integers(1, max_moves))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if not state.is_terminal() and (game.max_plies is None or state.plies < game.max_plies - 8):
            out.append(state)
    return out


@pytest.fixture(scope="session")
def compiled():
    """Compile (or, after conftest's warm-up, load) the search loops of every kernel once per session."""
    warm(0, 1)
    return True


@pytest.mark.parametrize("env_id", IDS)
def test_alphabeta_equals_minimax(env_id, compiled):
    game, opts = small_game(env_id)
    depth = 4 if opts else 3
    for state in positions(game, 4, seed=3):
        got = search(state, depth=depth, tt=TranspositionTable(16))
        # iterative deepening stops early only on a proven end of the game
        assert got.depth == depth or abs(got.value) > WIN_BONUS / 2
        depth_used = got.depth
        expected = minimax(state, depth_used, False, [10**6])
        assert got.value == pytest.approx(expected), (env_id, opts, state.to_json())
        # the move it returns achieves that value
        child = state.clone()
        child.apply(got.best_action)
        if child.is_terminal() or depth_used == 1:
            continue
        sub = minimax(child, depth_used - 1, False, [10**6])
        if sub is not None:
            sub = sub if child.current_player == state.current_player else -sub
            assert sub == pytest.approx(expected)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_solver_equals_brute_force(env_id, compiled):
    game, opts = small_game(env_id)
    tested = 0
    if not opts:
        pytest.skip(f"{env_id}: no option makes the board small enough for a brute-force solve")
    for state in positions(game, 12, seed=5, max_moves=40):
        if tested >= 4:
            break
        try:
            expected = minimax(state, 10**6, True, [30_000])
        except Budget:
            continue
        for threads in (1, 2):
            result = solve(state, threads=threads, memory="4M")
            assert result.mover_value == expected, (env_id, threads, state.to_json())
            assert result.value == (expected if state.current_player == 0 else -expected)
            values = move_values(state)
            assert values[result.best_action] == expected
        tested += 1
    assert tested >= 2, f"{env_id} {opts}: too few positions small enough for brute force"


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_position_key_finds_the_full_state_values(env_id, compiled, monkeypatch):
    game, opts = small_game(env_id)
    if not opts:
        pytest.skip(f"{env_id}: no small board")
    keyed = []
    for state in positions(game, 4, seed=8, max_moves=8):
        try:
            minimax(state, 10**6, True, [30_000])  # small enough
        except Budget:
            continue
        keyed.append((state, solve(state, memory="4M", endgame=None)))
    full = np.arange(game.state_size, dtype=np.int64)
    monkeypatch.setattr(type(game), "position_key_indices", lambda self: full)
    assert keyed, f"{env_id}: no position small enough"
    for state, by_key in keyed:
        by_state = solve(state, memory="4M", endgame=None)
        assert by_key.mover_value == by_state.mover_value and by_key.exact and by_state.exact, state.to_json()


def test_kalah_3x3_values():
    # Irving et al. (2000) report a first-player win for Kalah(3,3); our margin under their rules
    r = solve(mancala_envs.make_game("kalah-irving2000-v0", pits=3, seeds=3))
    assert r.value == 2 and r.exact
    assert solve(mancala_envs.make_game("kalah-irving2000-v0", pits=1, seeds=2)).value == -2


def test_alphabeta_finds_forced_win_through_an_extra_turn():
    #               1    2    3    4    5    6
    #  player_1  [  2][  0][  0][  0][  0][ 10]
    #       [ 15]                              [ 10]
    #  player_0  [  0][  0][  0][  0][  1][  1]      player_0 to move
    #               6    5    4    3    2    1
    # Hole 1 (action 5) reaches the store: extra turn; then hole 2 (action 4) lands in the
    # emptied hole 1 and captures the 10 opposite. Playing hole 2 first captures nothing.
    game = mancala_envs.make_game("kalah-v0")
    state = game.state_from_json({"pits": [[0, 0, 0, 0, 1, 1], [10, 0, 0, 0, 0, 2]], "stores": [10, 15], "to_move": 0})
    values = move_values(state)
    assert values[5] > 0 > values[4]
    for depth in (2, 3, 6):
        result = search(state, depth=depth)
        assert result.best_action == 5
    assert search(state, depth=6).value > WIN_BONUS / 2  # a proven win
    agent = AlphaBetaAgent(seed=0, depth=4)
    assert agent.act(state) == 5
    after = state.clone()
    after.apply(5)
    assert after.current_player == 0 and agent.act(after) == 4


def test_alphabeta_finds_forced_win_in_progressive_bonus_moves():
    # One row, the Goal shared: a move ending in the Goal takes everything in it.
    game = mancala_envs.make_game("progressive-v0", holes=3, stones=2)
    for state in positions(game, 6, seed=11, max_moves=6):
        values = move_values(state)
        best = max(values.values())
        result = search(state, depth=40)
        assert values[result.best_action] == best


def test_chosen_start_heuristic_values_the_setup_for_the_chooser():
    game = mancala_envs.make_game("kalah-chosen-start-v0")  # pits=6, seeds=4
    state = game.new_state(0)
    for count in (4, 7, 0):  # A6=4, A5=7, A4=0: distance 0 + 3 + 4 from the usual start
        state.apply(count)
    h = game.search_heuristic
    assert h(state.array, game.params, 0) == -7.0
    assert h(state.array, game.params, 1) == 7.0
    # a chooser searching the setup lays out the usual 4 seeds per hole
    agent = AlphaBetaAgent(seed=3, depth=2)
    assert agent.act(state) == 4
    # once play begins the value is store minus store
    play = mancala_envs.make_game("kalah-chosen-start-v0").new_state(0)
    for _ in range(12):
        play.apply(4)
    play.apply(3)  # player_1 takes side B and moves first
    play.apply(2)  # player_1's move from hole 3 (4 seeds) ends in the store: +1
    assert h(play.array, game.params, 1) == 1.0 and h(play.array, game.params, 0) == -1.0


def test_afrika_heuristic_counts_stones_in_the_far_row():
    game = mancala_envs.make_game("afrika-v0", holes=2, stones=1, komi=0)
    state = game.new_state(0)
    array = state.array.copy()
    # North's row a,b = 3, 0; South's row A,B = 0, 1; captured North 0, South 0... set by hand
    array[0], array[1], array[2], array[3] = 3, 0, 0, 1
    h = game.search_heuristic
    # North (player_0): captured 0 - 0, plus half of (South's 1 - North's 3) = -1
    assert h(array, game.params, 0) == -1.0
    assert h(array, game.params, 1) == 1.0
    assert mancala_envs.make_game("afrika-v0", giveaway=True).search_heuristic is None
    assert mancala_envs.make_game("kalah-v0").search_heuristic is None


@pytest.mark.parametrize("env_id", ["kalah-v0", "afrika-v0", "progressive-v0"])
def test_score_bounds_keep_the_value_and_cut_nodes(env_id, compiled, monkeypatch):
    opts = {"kalah-v0": {"pits": 3, "seeds": 3}, "afrika-v0": {"holes": 3, "stones": 2},
            "progressive-v0": {"holes": 5}}[env_id]
    game = mancala_envs.make_game(env_id, **opts)
    state = game.new_state(0)
    assert game.search_score_total(state) == game.conserved_total(state)
    bounded = solve(state, memory="16M", etc=False, endgame=None)
    monkeypatch.setattr(type(game), "scores_only_grow", False)
    assert game.search_score_total(state) is None
    plain = solve(state, memory="16M", etc=False, endgame=None)
    assert bounded.value == plain.value and bounded.exact == plain.exact
    if env_id == "afrika-v0":  # captures come in lumps late: the bounds cut (2.15 M nodes, not 2.30 M)
        assert bounded.nodes < plain.nodes


@pytest.mark.parametrize("spec", ["alphabeta:depth=3", "mcts:sims=100"])
@pytest.mark.parametrize("env_id", IDS)
def test_search_agents_beat_random(env_id, spec, compiled):
    game = mancala_envs.make_game(env_id)
    result = play_match(game, make_agent(spec, seed=1), RandomAgent(seed=2), openings=10, seed=4, workers=1)
    assert result.counts()[0] == 20 and result.score() >= 0.95, result.summary()


def test_time_budgets_are_respected(compiled):
    state = mancala_envs.make_game("kalah-v0").new_state(0)
    for spec, budget in (("alphabeta:time=0.2", 0.2), ("mcts:time=0.2", 0.2)):
        agent = make_agent(spec, seed=0)
        agent.act(state)  # warm
        start = time.perf_counter()
        action = agent.act(state)
        elapsed = time.perf_counter() - start
        assert action in state.legal_actions()
        assert elapsed < budget + 1.5, (spec, elapsed)
    ab = make_agent("alphabeta:time=0.3", seed=0)
    ab.act(state)
    assert ab.last.depth >= 4  # it deepened past the first iterations
    m = make_agent("mcts:time=0.2", seed=0)
    m.act(state)
    assert m.last.simulations > 100


def test_mcts_is_seeded_and_counts(compiled):
    state = mancala_envs.make_game("kalah-v0", pits=4).new_state(0)
    a = mcts_search(state, sims=500, seed=3)
    b = mcts_search(state, sims=500, seed=3)
    assert a.visits == b.visits and a.simulations == 500
    assert sum(a.visits.values()) == 500
    assert a.best_action == max(a.visits, key=a.visits.get)


def test_mcts_rollouts_stop_once_a_majority_decides(compiled):
    game = mancala_envs.make_game("kalah-v0")
    assert game.result_follows_scores and mancala_envs.make_game("progressive-v0").result_follows_scores
    assert not mancala_envs.make_game("afrika-v0").result_follows_scores  # komi decides, not the raw majority
    # player_0 has 25 of the 48 seeds in store: the game is won whatever happens next. With a
    # ply cap one move after the expansion, a rollout played out would be truncated (0); the
    # rollout that stops at the majority scores the win (-1 for player_1, who is to move).
    capped = mancala_envs.make_game("kalah-v0", max_plies=32)
    position = {"pits": [[0, 0, 0, 0, 0, 1], [4, 4, 4, 4, 3, 3]], "stores": [25, 0], "to_move": 1,
                "terminal": False, "plies": 30, "phase": "play", "setup_index": 12,
                "last_action": None, "last_player": None}
    state = capped.state_from_json(position)
    result = mcts_search(state, sims=6, seed=0)  # one rollout from each of the six moves
    assert len(result.values) == 6 and all(v == -1.0 for v in result.values.values())


@pytest.mark.parametrize("env_id", IDS)
def test_every_agent_plays_every_id(env_id, compiled):
    from mancala_envs.evaluation import play_game

    game = mancala_envs.make_game(env_id)
    specs = ["random", "greedy:max_chain=8", "alphabeta:depth=2", "alphabeta:time=0.01", "mcts:sims=20",
             "mcts:time=0.01"]
    for k, spec in enumerate(specs):
        agent = make_agent(spec, seed=k)
        played = play_game(game, (agent, RandomAgent(seed=k)), seed=k)
        assert len(played.actions) > 0 and (played.truncated or sum(played.returns) == 0)
    small, opts = small_game(env_id)
    if opts:
        start = small.new_state(0)
        try:
            minimax(start, 10**6, True, [30_000])  # small enough to solve at every move
        except Budget:
            return
        solver = make_agent("solver:memory=4M", seed=0)
        played = play_game(small, (solver, RandomAgent(seed=1)), seed=0)
        assert played.truncated or played.returns[0] >= 0 or solve(small).value < 0


def test_optimal_move_rate(compiled):
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    perfect = optimal_move_rate(make_agent("solver:memory=4M"), game, positions=20, seed=1)
    assert perfect.positions == 20 and perfect.rate == 1.0 and perfect.mean_loss == 0
    assert perfect.rate_ci == [1.0, 1.0]
    rnd = optimal_move_rate(RandomAgent(seed=0), game, positions=20, seed=1)
    assert rnd.rate < 1.0 and rnd.mean_loss > 0
    assert rnd.rate_ci[0] <= rnd.rate <= rnd.rate_ci[1] and rnd.rate_ci[1] - rnd.rate_ci[0] > 0.1
    deep = optimal_move_rate(make_agent("alphabeta:depth=8"), game, positions=20, seed=1)
    assert deep.rate > rnd.rate


def test_optimal_move_rate_on_endgames_of_a_big_board(compiled, monkeypatch):
    from mancala_envs.evaluation import analysis

    seen = []
    sample = analysis._sample_positions
    monkeypatch.setattr(analysis, "_sample_positions",
                        lambda *a, **k: seen.extend(sample(*a, **k)) or list(seen))
    game = mancala_envs.make_game("kalah-v0")  # 6x4: solvable only near the end
    perfect = optimal_move_rate(make_agent("solver:memory=64M"), game, positions=6, seed=2, max_board=12)
    assert perfect.positions == 6 and perfect.rate == 1.0
    assert all(48 - sum(state.scores()) <= 12 for state in seen)
    assert len({position_key(state) for state in seen}) == len(seen)  # distinct positions
    with pytest.raises(ValueError, match="max_board needs a game whose scores only grow"):
        optimal_move_rate(RandomAgent(seed=0), "rondell-v0", positions=2, max_board=5)


def test_agent_pickles_without_its_table():
    import pickle

    agent = make_agent("alphabeta:depth=3,tt_bits=10", seed=0)
    twin = pickle.loads(pickle.dumps(agent))
    assert twin.tt.key.shape == (1024,) and twin.depth == 3
    mcts = pickle.loads(pickle.dumps(MCTSAgent(seed=0, sims=10)))
    assert mcts.sims == 10


def test_search_rejects_bad_input():
    game = mancala_envs.make_game("kalah-v0")
    state = game.new_state(0)
    with pytest.raises(ValueError, match="depth"):
        search(state, depth=0)
    with pytest.raises(ValueError, match="key must be one of state, obs"):
        search(state, depth=2, key="bogus")
    over = game.state_from_json({"pits": [[0] * 6, [0] * 6], "stores": [24, 24], "to_move": 0})
    with pytest.raises(ValueError, match="game is over"):
        solve(over)
    with pytest.raises(ValueError, match="game is over"):
        mcts_search(over)
