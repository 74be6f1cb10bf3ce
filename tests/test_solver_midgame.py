"""``benchmarks/solve.py --midgame``: node counts of solves of openings, compared with brute force."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mancala_envs
from mancala_envs.evaluation.openings import opening_suite
from test_agents_search import minimax

ROOT = Path(__file__).resolve().parents[1]


def _benchmark():
    spec = importlib.util.spec_from_file_location("solve_benchmark", ROOT / "benchmarks" / "solve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_midgame_mode_solves_the_openings_and_writes_their_node_counts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MANCALA_ENVS_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "midgame.json"
    assert _benchmark().main(["--boards", "3x2", "--midgame", "3", "--plies", "2-3", "--memory", "4M",
                              "--out", str(out)]) == 0
    board = json.loads(out.read_text())["boards"][0]
    assert (board["pits"], board["seeds"], board["plies"]) == (3, 2, "2-3") and board["all_exact"]
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=3, seeds=2)
    suite = opening_suite(game, 3, plies=(2, 3), seed=0, balanced=2)
    for row, index in zip(board["positions"], range(3)):
        state = suite.start(index)
        expected = minimax(state, 10**6, True, [10**6])
        assert row["value"] == (expected if state.current_player == 0 else -expected)
        assert row["nodes"] > 0 and row["seeds_on_board"] <= 12
        assert sum(p["nodes"] for p in row["passes"]) <= row["nodes"]
        last = row["passes"][-1]
        assert last["lower"] == last["upper"] == (row["value"] if state.current_player == 0 else -row["value"])
    assert board["total_nodes"] == sum(r["nodes"] for r in board["positions"])
    assert "nodes in 3 positions" in capsys.readouterr().out
