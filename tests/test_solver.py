"""The exact solver and the Kalah endgame databases against brute force, and their files.

The brute force is the plain negamax of ``test_agents_search`` (no pruning, no table).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import endgame
from mancala_envs.agents import make_agent
from mancala_envs.evaluation.analysis import optimal_move_rate, value
from mancala_envs.agents import solver as solver_module
from mancala_envs.agents.solver import Progress, SolverTable, parse_memory, perfect_line, solve, table_for
from mancala_envs.cli import main
from mancala_envs.cli.solve import _show_progress
from mancala_envs.core.errors import MancalaError
from test_agents_search import Budget, minimax, positions

ROOT = Path(__file__).resolve().parents[1]

# every Kalah rule set the databases cover (one-way sowing, no chosen start), and more
KALAH_RULES = {
    "kalah-v0": {},
    "kalah-irving2000-v0": {},
    "kalah-basic-v0": {},
    "kalah-v0 no extra turn": {"extra_turn": False},
    "kalah-v0 side_empty discard": {"end": "side_empty", "leftover": "discard"},
    "kalah-irving2000-v0 min_sow=2": {"min_sow": 2},
}


def kalah(name: str, **size):
    return mancala_envs.make_game(name.split()[0], **KALAH_RULES[name], **size)


@pytest.mark.parametrize("name", sorted(KALAH_RULES))
def test_database_values_equal_brute_force(name):
    game = kalah(name, pits=3, seeds=2)
    table = endgame.Endgame(game, endgame.build(game, 12, threads=2))
    checked = 0
    for state in positions(game, 12, seed=2, max_moves=30):
        expected = minimax(state, 10**6, True, [10**6])
        assert table.mover_value(state) == expected, state.to_json()
        checked += 1
    assert checked == 12
    # every entry of a layer, not only the positions random play reaches: the layer of 3 seeds
    # against a brute force from a hand-laid position
    n = game.options["pits"]
    for index in range(int(table.tables.offsets[4] - table.tables.offsets[3])):
        state = game.new_state(0)
        endgame._unrank(index, 3, n, table.tables.ways, state.array)
        state.array[2 * n + 1] = game.total_seeds_bound() - 3  # the rest banked by player 1
        payload = state.to_json()
        del payload["terminal"]  # settled by the rules: an empty row may end the game
        state = game.state_from_json(payload)
        if state.is_terminal():
            continue
        assert table.mover_value(state) == minimax(state, 10**6, True, [10**6]), state.to_json()


@pytest.mark.parametrize("name", sorted(KALAH_RULES))
def test_solver_equals_brute_force_under_every_kalah_rule_set(name, monkeypatch):
    game = kalah(name, pits=3, seeds=2)
    small = endgame.Endgame(game, endgame.build(game, 4, threads=1))
    tested = 0
    for state in positions(game, 6, seed=4, max_moves=6):
        try:
            expected = minimax(state, 10**6, True, [50_000])
        except Budget:
            continue
        for kwargs in ({"endgame": None}, {"endgame": small}, {"endgame": small, "threads": 2},
                       {"endgame": None, "etc": False, "ordering": False, "deepening": False},
                       {"endgame": None, "etc_everywhere": True}, {"endgame": small, "deepening": 200}):
            kwargs = dict(kwargs)
            # these boards hold fewer stones than ETC_STONES: 0 makes the cut-offs run at every node
            monkeypatch.setattr(solver_module, "ETC_STONES", 0 if kwargs.pop("etc_everywhere", False) else 30)
            result = solve(state, memory="4M", **kwargs)
            assert result.mover_value == expected and result.exact, (name, kwargs, state.to_json())
            child = state.clone()
            child.apply(result.best_action)
            assert _value_after(state, child) == expected
        tested += 1
    assert tested >= 3


def _value_after(state, child) -> int:
    me = state.current_player
    if child.is_terminal():
        s = child.scores()
        return s[me] - s[1 - me]
    v = minimax(child, 10**6, True, [10**6])
    return v if child.current_player == me else -v


def test_start_positions_of_small_boards_equal_brute_force():
    for env_id in ("kalah-irving2000-v0", "kalah-v0"):
        for pits, seeds in ((1, 1), (1, 2), (2, 1), (2, 2), (3, 1)):
            game = mancala_envs.make_game(env_id, pits=pits, seeds=seeds)
            start = game.new_state(0)
            result = solve(game, memory="4M")
            assert result.mover_value == minimax(start, 10**6, True, [10**6]) and result.exact, (env_id, pits, seeds)
    # Irving et al. (2000) report a first-player win for Kalah(3,3); our margin under their rules
    assert solve(mancala_envs.make_game("kalah-irving2000-v0", pits=3, seeds=3), memory="4M").value == 2


def test_corrupt_or_partial_database_is_rebuilt(tmp_path):
    game = mancala_envs.make_game("kalah-v0", pits=2, seeds=3)
    first = endgame.load_or_build(game, 8, folder=tmp_path)
    assert not first.loaded
    data = next(tmp_path.glob("*.npy"))
    meta = next(tmp_path.glob("*.json"))
    loaded = endgame.load_or_build(game, 8, folder=tmp_path)
    assert loaded.loaded and loaded.build_seconds == json.loads(meta.read_text())["build_seconds"]
    # a flipped byte: the checksum no longer matches
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0x01
    data.write_bytes(bytes(raw))
    again = endgame.load_or_build(game, 8, folder=tmp_path)
    assert not again.loaded and np.array_equal(again.tables.values, first.tables.values)
    # a truncated file
    data.write_bytes(data.read_bytes()[:100])
    assert not endgame.load_or_build(game, 8, folder=tmp_path).loaded
    # no description (a build killed between the two writes), or one of other rules
    meta.unlink()
    assert not endgame.load_or_build(game, 8, folder=tmp_path).loaded
    described = json.loads(meta.read_text())
    described["rules"]["capture"] = False
    meta.write_text(json.dumps(described))
    assert not endgame.load_or_build(game, 8, folder=tmp_path).loaded
    assert endgame.load_or_build(game, 8, folder=tmp_path).loaded
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary left behind


def test_time_limit_is_respected():
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=6, seeds=4)
    solve(game.new_state(0), memory="1M", endgame=None, time_limit=0.01)  # compile
    result = solve(game, memory="64M", endgame=None, time_limit=0.5)
    assert not result.exact
    assert result.lower <= result.upper
    assert result.seconds < 30  # stopped, not run to the end (no tight threshold: shared machines)


def test_oracle_reads_the_database_and_names_the_best_moves(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path))
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    for state in positions(game, 8, seed=6, max_moves=10):
        answer = value(state)
        expected = minimax(state, 10**6, True, [10**6])
        assert answer.mover_value == expected
        on_board = game.total_seeds_bound() - sum(state.scores())
        if on_board <= endgame.default_seeds(game):  # 11 of the 12 seeds
            assert answer.from_database
        assert answer.best_moves and all(answer.move_values[a] == expected for a in answer.best_moves)
        assert answer.value == (expected if state.current_player == 0 else -expected)


def test_perfect_line_keeps_the_value():
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=3, seeds=3)
    line = perfect_line(game, endgame=None)
    state = game.new_state(0)
    for action, name, v in line:
        assert v == 2 and game.action_to_string(state, action) == name
        state.apply(action)
    assert state.is_terminal() and state.scores()[0] - state.scores()[1] == 2


def test_memory_sizes_and_bad_input():
    assert parse_memory("1M") == 1 << 20 and parse_memory("2G") == 2 << 30 and parse_memory(4096) == 4096
    assert SolverTable("1M").nbytes == 1 << 20
    for bad in ("lots", "-1M", "1"):
        with pytest.raises(ValueError, match="memory"):
            parse_memory(bad)
    with pytest.raises(ValueError, match="threads"):
        solve(mancala_envs.make_game("kalah-v0", pits=2, seeds=1), threads=0)
    with pytest.raises(endgame.EndgameError, match="one-way sowing"):
        endgame.build(mancala_envs.make_game("kalah-bidirectional-v0", pits=2, seeds=2), 4)
    with pytest.raises(MancalaError):
        make_agent("solver:threads=zero")


def test_optimal_move_rate_on_positions_of_real_games(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path))
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    players = (make_agent("greedy", seed=0), make_agent("greedy", seed=1))
    perfect = optimal_move_rate(make_agent("solver:memory=4M"), game, positions=8, seed=2, players=players)
    assert perfect.positions == 8 and perfect.rate == 1.0 and perfect.mean_loss == 0


def test_two_threads_find_the_value_of_one(tmp_path, monkeypatch):
    # a tree big enough for the threads to meet (and defer moves to each other), no database
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=4, seeds=3)
    one = solve(game, memory="16M", endgame=None)
    two = solve(game, memory="16M", endgame=None, threads=2)
    assert one.exact and two.exact and one.value == two.value == 8  # Irving et al. (2000), Table 9
    assert two.threads == 2


def test_solver_agent_is_perfect_on_positions_of_real_full_board_games(tmp_path, monkeypatch):
    # Kalah(6,4) positions reached by two players (after two random plies), with at most 22
    # stones left on the board: small enough to solve every move in a test
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path))
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=6, seeds=4)
    players = (make_agent("greedy", seed=0), make_agent("greedy", seed=1))
    rate = optimal_move_rate(make_agent("solver:memory=64M"), game, positions=4, seed=1, memory="64M",
                             max_board=22, players=players)
    assert rate.positions == 4 and rate.rate == 1.0 and rate.mean_loss == 0


@pytest.mark.parametrize("name", sorted(KALAH_RULES))
def test_position_key_without_the_stores_equals_the_full_state_key(name, monkeypatch):
    # the key leaves the stores out and the table holds values relative to the mover's margin;
    # keyed on the whole state with absolute values instead, every solve must agree
    game = kalah(name, pits=3, seeds=2)
    keyed = []
    for state in positions(game, 6, seed=9, max_moves=8):
        keyed.append((state, solve(state, memory="4M", endgame=None)))
    full = np.arange(game.state_size, dtype=np.int64)
    monkeypatch.setattr(type(game), "position_key_indices", lambda self: full)
    monkeypatch.setattr(type(game), "key_excludes_scores", False)
    for state, by_key in keyed:
        by_state = solve(state, memory="4M", endgame=None)
        assert by_key.mover_value == by_state.mover_value and by_key.exact and by_state.exact, state.to_json()


def test_solve_command_time_limit_is_respected(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path))
    assert main(["solve", "kalah-irving2000-v0", "pits=6", "seeds=6", "--json", "--quiet", "--endgame", "none",
                 "--memory", "64M", "--time-limit", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not out["exact"] and out["lower"] <= out["value"] <= out["upper"]
    assert out["total_seconds"] < 60  # stopped, not run to the end (no tight threshold: shared machines)


def test_large_boards_get_a_larger_database_and_table_by_default():
    standard = mancala_envs.make_game("kalah-irving2000-v0", pits=6, seeds=4)
    large = mancala_envs.make_game("kalah-irving2000-v0", pits=6, seeds=5)
    assert endgame.default_seeds(standard) == 15  # Kalah(6,4)'s cold start builds it (README)
    assert endgame.positions_up_to(6, endgame.default_seeds(large)) <= endgame.LARGE_POSITIONS
    assert endgame.default_seeds(large) > endgame.default_seeds(standard)
    assert table_for(large.new_state(0), "1M").nbytes == 1 << 20  # an explicit size wins


def test_solve_benchmark_reads_the_progress_lines_of_the_command(capsys):
    spec = importlib.util.spec_from_file_location("solve_benchmark", ROOT / "benchmarks" / "solve.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    _show_progress(False)(Progress("exact", 0, 4, 48, 4, 2_921_201, 20.6))
    _show_progress(False)(Progress("deepening", 6, -32000, 32000, 3, 734, 0.5))
    _show_progress(False)(Progress("exact", 0, 4, 48, 4, 3_000_000, 50.0, {"testing": 5}))
    exact, deepening, running = capsys.readouterr().err.splitlines()
    assert benchmark.PROGRESS.match(running)["nodes"] == "3,000,000" and "testing >= +5" in running
    match = benchmark.PROGRESS.match(exact)
    assert (match["stage"], match["lower"], match["upper"], match["nodes"]) == ("exact", "4", "48", "2,921,201")
    assert benchmark.PROGRESS.match(deepening)["stage"] == "deepening"
    assert benchmark._last_report({})["lower"] is None


def test_a_long_search_reports_progress_while_it_runs(monkeypatch):
    monkeypatch.setattr(solver_module, "HEARTBEAT_SECONDS", 0.001)
    reports = []
    # Kalah(6,3) without a database: about 1.7 M nodes, hundreds of heartbeats' worth even on a fast
    # machine (Kalah(4,3)'s 13 K nodes could finish every search within one heartbeat)
    result = solve(mancala_envs.make_game("kalah-irving2000-v0", pits=6, seeds=3), memory="16M", endgame=None,
                   progress=reports.append)
    running = [r for r in reports if "testing" in r.extra]
    assert result.value == 2 and running
    assert all(r.lower < r.extra["testing"] <= r.upper for r in running)
