"""The speed limit for the generic kernel: random Kalah(6,4) playouts in a loop that knows only Kalah.

``benchmarks/run.py`` times this loop next to ``random_playouts`` on ``kalah-v0`` and prints
the generic kernel's ratio to it (issue 21's target: >= 0.9). It is a measuring stick, not
a second definition of the rules the package uses: nothing outside ``benchmarks/`` imports
it, and ``tests/test_playout_and_bench.py`` checks that it plays the same games as the
package's kernel (same seed, same totals).

It keeps what a fair comparison needs and nothing else:

* the same state layout as ``mancala_envs.games.kalah`` (the ring of 14 holes and stores,
  then the header: to_move, done, plies, ...), written in place;
* the same move choice: splitmix64 from ``core.jit_helpers``, the ``k``-th legal move with
  ``k`` uniform over the legal count, picked without branches as
  ``core.jit_helpers.random_legal_action`` picks it (a branch on the random pick is
  mispredicted about once per move: without this the stick would lose that cost and the
  kernel would not);
* the same ply cap (1000) and the same counting (moves, games);
* the rules of ``kalah-v0`` only (6 holes, 4 seeds, extra turns, captures that need an
  opposite seed, the origin skipped on a lap, the end when the mover has no move, leftover
  seeds to their owner), with every size a compile-time constant.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from mancala_envs.core.jit_helpers import random_below

PITS = 6
SEEDS = 4
RING = 2 * PITS + 2
HEAD = RING  # header fields follow the ring, as in kalah.py
TO_MOVE, DONE, PLIES, LAST_ACTION, LAST_PLAYER = HEAD + 0, HEAD + 1, HEAD + 2, HEAD + 5, HEAD + 6
STATE_SIZE = RING + 7
MAX_PLIES = 1000


@njit(cache=True)
def _kalah_only_loop(n_games, seed, state):
    """(moves, games finished, games truncated) of ``n_games`` random games."""
    s = np.uint64(seed)
    moves = 0
    finished = 0
    truncated = 0
    for _ in range(n_games):
        for i in range(STATE_SIZE):
            state[i] = 0
        for i in range(PITS):
            state[i] = SEEDS
            state[PITS + 1 + i] = SEEDS
        state[LAST_ACTION] = -1
        state[LAST_PLAYER] = -1
        while True:
            if state[DONE]:
                finished += 1
                break
            if state[PLIES] >= MAX_PLIES:
                truncated += 1
                break
            player = state[TO_MOVE]
            base = player * (PITS + 1)
            count = 0
            for i in range(PITS):
                if state[base + i] > 0:
                    count += 1
            s, k = random_below(s, count)
            action = -1
            seen = 0
            for i in range(PITS):  # branch-free, as core.jit_helpers.random_legal_action
                legal = state[base + i] > 0
                action = i if legal & (seen == k) else action
                seen += 1 if legal else 0
            # sow
            state[PLIES] += 1
            state[LAST_ACTION] = action
            state[LAST_PLAYER] = player
            origin = base + action
            own_store = base + PITS
            opponent_store = (1 - player) * (PITS + 1) + PITS
            seeds = state[origin]
            state[origin] = 0
            pos = origin
            while seeds > 0:
                pos = pos + 1 if pos < RING - 1 else 0
                if pos != opponent_store and pos != origin:
                    state[pos] += 1
                    seeds -= 1
            next_player = 1 - player
            if pos == own_store:
                next_player = player
            elif state[pos] == 1 and base <= pos < own_store:
                opposite = 2 * PITS - pos
                if state[opposite] > 0:
                    state[own_store] += state[opposite] + 1
                    state[opposite] = 0
                    state[pos] = 0
            state[TO_MOVE] = next_player
            # the end: the player to move has no seed; leftovers go to their owners
            nb = next_player * (PITS + 1)
            over = True
            for i in range(PITS):
                if state[nb + i] > 0:
                    over = False
                    break
            if over:
                state[DONE] = 1
                for p in range(2):
                    b = p * (PITS + 1)
                    total = 0
                    for i in range(PITS):
                        total += state[b + i]
                        state[b + i] = 0
                    state[b + PITS] += total
            moves += 1
    return moves, finished, truncated


def kalah_only_playouts(n_games: int, seed: int) -> tuple[int, int, int, float]:
    """(moves, finished, truncated, seconds) of ``n_games`` random Kalah(6,4) games."""
    state = np.zeros(STATE_SIZE, np.int32)
    start = time.perf_counter()
    moves, finished, truncated = _kalah_only_loop(n_games, seed, state)
    return int(moves), int(finished), int(truncated), time.perf_counter() - start


# -- the same games by hand in plain Python: what a user writes without any library -----------
def plain_python_kalah_playouts(budget: float, seed: int = 0) -> tuple[int, int, float]:
    """(moves, games, seconds): random Kalah(6,4) games in plain Python for ``budget`` seconds.

    A list for the board (same ring as above), ``random.choice`` over the legal holes; the
    same rules as ``_kalah_only_loop``.
    """
    import random

    choose = random.Random(seed).choice
    moves = games = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < budget:
        board = [SEEDS] * PITS + [0] + [SEEDS] * PITS + [0]
        player = 0
        plies = 0
        while plies < MAX_PLIES:
            base = player * (PITS + 1)
            legal = [i for i in range(base, base + PITS) if board[i]]
            if not legal:
                break
            origin = choose(legal)
            own_store = base + PITS
            opponent_store = 2 * PITS + 1 - base
            seeds = board[origin]
            board[origin] = 0
            pos = origin
            while seeds:
                pos = pos + 1 if pos < RING - 1 else 0
                if pos != opponent_store and pos != origin:
                    board[pos] += 1
                    seeds -= 1
            plies += 1
            if pos != own_store:
                if board[pos] == 1 and base <= pos < own_store and board[2 * PITS - pos]:
                    board[own_store] += board[2 * PITS - pos] + 1
                    board[2 * PITS - pos] = 0
                    board[pos] = 0
                player = 1 - player
        for p in (0, 1):  # leftovers to their owners
            b = p * (PITS + 1)
            board[b + PITS] += sum(board[b : b + PITS])
        moves += plies
        games += 1
        elapsed = time.perf_counter() - start
    return moves, games, elapsed
