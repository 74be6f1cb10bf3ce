"""Exact repetition detection inside the flat state, for games that end on a repeated position.

A position can repeat only within the stretch since the last irreversible event (in the
card games: the last capture, which removes cards for good). So a game keeps, inside its
flat ``int32`` state, a *record* of that stretch and nothing older:

* a **snapshot** of the position at the start of the stretch (game-specific layout, kept
  by the game itself), and
* a **block** of entries, one per ply since the snapshot: the action played and a 31-bit
  hash of the position it led to (``NOT_A_CHECKPOINT`` for positions that are never
  compared, e.g. a mid-turn decision step). Entry 0 is the snapshot position itself.

Checking a new position: ``rep_find`` scans the block for an equal hash. A hash is only a
filter: the game **confirms** every match exactly, by replaying the recorded actions from
the snapshot on a scratch copy and comparing the whole position. A hash collision therefore
costs a replay and can never end a game. (Storing the positions themselves would need a
packed position per ply; the hash-plus-replay record needs two words per ply.)

After an irreversible ply the game calls ``rep_clear`` and writes a new snapshot. Because
the env, the batched engine and every search agent call the same kernel on the same state,
they all see the same ending.

Block layout at offset ``off`` with capacity ``cap`` (``rep_block_size(cap)`` words)::

    off+0                     count: entries in use (0..cap)
    off+1 .. off+1+cap        hashes (int32 >= 0), or NOT_A_CHECKPOINT (-1)
    off+1+cap .. off+1+2cap   actions (int32; -1 for entry 0, the snapshot)

Entries past ``count`` are always zero, so two states holding the same record are equal as
arrays. A game sizes ``cap`` so that the block cannot fill before its ply cap (``max_plies
+ 1``); if play goes on past the cap (only possible through the ``State`` API) and the block
fills, ``rep_push`` returns False and the game restarts the stretch at the current position
(documented per game: a repetition of a position older than the restart is then missed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NOT_A_CHECKPOINT = -1

R_COUNT = 0
R_ENTRIES = 1

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U33 = np.uint64(33)
_START = np.uint64(0xCBF29CE484222325)  # the FNV-1a offset basis
_FNV = np.uint64(0x100000001B3)


def rep_block_size(cap: int) -> int:
    """Words of a block holding ``cap`` entries."""
    return R_ENTRIES + 2 * cap


@njit(cache=True, inline="always")
def hash_start():
    """The hash of nothing; feed words with ``hash_mix``."""
    return _START


@njit(cache=True, inline="always")
def hash_mix(h, x):
    """Fold the integer ``x`` into the 64-bit hash ``h`` (FNV-1a on whole words: one xor, one
    multiply; the hash is only a filter, every match is confirmed, so speed wins here)."""
    return (h ^ np.uint64(np.int64(x) & 0xFFFFFFFF)) * _FNV


@njit(cache=True, inline="always")
def hash_finish(h):
    """The 31-bit non-negative value stored in a block entry (after a splitmix64 finaliser)."""
    z = h + _GAMMA
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    z = z ^ (z >> _U31)
    return np.int32(z >> _U33)


@njit(cache=True)
def rep_count(state, off):
    return state[off + R_COUNT]


@njit(cache=True)
def rep_hash(state, off, cap, i):
    return state[off + R_ENTRIES + i]


@njit(cache=True)
def rep_action(state, off, cap, i):
    return state[off + R_ENTRIES + cap + i]


@njit(cache=True)
def rep_clear(state, off, cap):
    """Forget the stretch: zero the entries in use and set the count to 0."""
    n = state[off + R_COUNT]
    for i in range(n):
        state[off + R_ENTRIES + i] = 0
        state[off + R_ENTRIES + cap + i] = 0
    state[off + R_COUNT] = 0


@njit(cache=True)
def rep_push(state, off, cap, h, action):
    """Append (hash, action); False (and nothing written) when the block is full."""
    n = state[off + R_COUNT]
    if n >= cap:
        return False
    state[off + R_ENTRIES + n] = h
    state[off + R_ENTRIES + cap + n] = action
    state[off + R_COUNT] = n + 1
    return True


@njit(cache=True)
def rep_find(state, off, cap, h, start):
    """The first entry index >= start whose hash is ``h``, or -1 (``h`` must be >= 0)."""
    n = state[off + R_COUNT]
    base = off + R_ENTRIES
    for i in range(start, n):
        if state[base + i] == h:
            return i
    return -1
