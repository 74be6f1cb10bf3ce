"""Shuffling a deck inside numba, draw for draw as ``numpy.random.Generator.shuffle``.

The card games deal with ``Generator.shuffle`` (their rules say so, and a seed must give the
same deal everywhere). Numba's own ``Generator.shuffle`` swaps every pair of elements through
a 0-d buffer array, which made the deal a large share of a random card game's time.
``shuffle_deck`` is numpy's loop itself (Fisher-Yates
from the last element down, each index drawn as numpy's ``random_interval`` draws it),
swapping the elements directly: the same permutation and the same draws from the generator,
so the generator continues identically too.

The index is drawn by ``_draw_index``, numpy's ``random_interval`` for a bound below 2**32
(every deck: ``shuffle_deck`` takes decks of fewer than 2**32 cards, and numpy's other branch,
for larger bounds, is not compiled in): the smallest all-ones mask covering the bound, then 32-bit draws masked until
one is within it. Numba's ``random_interval`` draws the same numbers, but its result passes
through a float (its two return statements have an int64 and a uint64 type, which numba
unifies to float64); counted with callgrind, drawing without it saves about 25 instructions
a move of a random ``rondell-v0`` game (about 18 a draw).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.np.random.generator_core import next_uint32


@njit(cache=True, inline="always")
def _draw_index(bitgen, bound):
    """An index in 0 .. ``bound`` (1 <= bound < 2**32), drawn as numpy's ``random_interval``."""
    b = np.uint64(bound)
    mask = b | (b >> np.uint64(1))
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    value = np.uint64(next_uint32(bitgen)) & mask
    while value > b:
        value = np.uint64(next_uint32(bitgen)) & mask
    return np.int64(value)


@njit(cache=True)
def shuffle_deck(rng, deck):
    """Shuffle the 1-d array ``deck`` (fewer than 2**32 cards) in place with the
    ``numpy.random.Generator`` ``rng``, exactly as ``rng.shuffle(deck)`` would."""
    bitgen = rng.bit_generator
    for i in range(deck.shape[0] - 1, 0, -1):
        j = _draw_index(bitgen, i)
        if j != i:
            card = deck[np.uint64(i)]
            deck[np.uint64(i)] = deck[np.uint64(j)]
            deck[np.uint64(j)] = card
