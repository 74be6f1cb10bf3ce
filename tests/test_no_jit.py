"""Without JIT (``NUMBA_DISABLE_JIT=1``) the compiled loops run as plain Python and agree.

The alpha-beta search (both key modes), the solver, MCTS and the checked random playouts
run on a tiny Kalah board in a subprocess with numba's JIT off (``core.inline.unowned``
then returns its argument, the transposition table's entries are numpy records), and
must give the same values, moves, node counts, visits and games as the compiled run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.mcts import mcts_search
from mancala_envs.agents.search import TranspositionTable, search
from mancala_envs.agents.solver import SolverTable, solve
from mancala_envs.core.playout import random_playouts

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.slow  # the full suite only: the loops run as plain Python in a subprocess


def fingerprint() -> dict:
    """Everything the loops decide on Kalah(3 pits, 2 seeds), as JSON-ready values."""
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    state = game.new_state(0)
    # Without JIT the generator's and the hashes' uint64 arithmetic runs in numpy, which
    # warns where it wraps around (as it must).
    with np.errstate(over="ignore"):
        by_state = search(state, depth=4, tt=TranspositionTable(10))
        by_obs = search(state, depth=3, tt=TranspositionTable(10), key="obs")
        solved = solve(game, table=SolverTable(1 << 16), endgame=None)
        tree = mcts_search(state, sims=40, seed=3)
        games = random_playouts(game, 5, 11, check_invariants=True, return_lengths=True)
    return {
        "search": [by_state.value, by_state.best_action, by_state.nodes, by_state.depth],
        "search_obs": [by_obs.value, by_obs.best_action, by_obs.nodes],
        "solve": [solved.value, solved.best_action, solved.nodes, solved.exact],
        "mcts": [tree.best_action, tree.simulations, sorted(tree.visits.items())],
        "playouts": [games.moves, games.lengths.tolist(), list(games.wins), games.draws],
    }


_CHILD = f"""
import json, sys
sys.path.insert(0, {str(HERE)!r})
import numba
from test_no_jit import fingerprint
from mancala_envs.core.inline import unowned
marker = object()
print(json.dumps({{"jit_disabled": numba.config.DISABLE_JIT, "unowned_is_identity": unowned(marker) is marker,
                  "results": fingerprint()}}))
"""


def test_the_loops_without_jit_find_what_the_compiled_loops_find():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    child = json.loads(done.stdout.strip().splitlines()[-1])
    assert child["jit_disabled"] and child["unowned_is_identity"]
    assert child["results"] == json.loads(json.dumps(fingerprint()))
