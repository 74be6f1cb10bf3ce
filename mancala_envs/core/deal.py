"""Shuffling a deck inside numba, draw for draw as ``numpy.random.Generator.shuffle``.

The card games deal with ``Generator.shuffle`` (their rules say so, and a seed must give the
same deal everywhere). Numba's own ``Generator.shuffle`` swaps every pair of elements through
a 0-d buffer array, which made the deal about a fifth of a random card game's time (3 us for
54 cards on the development machine). ``shuffle_deck`` is numpy's loop itself (Fisher-Yates
from the last element down, each index drawn with numpy's ``random_interval``), swapping the
elements directly: the same permutation and the same draws from the generator, so the
generator continues identically too.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.np.random.random_methods import random_interval


@njit(cache=True)
def shuffle_deck(rng, deck):
    """Shuffle the 1-d array ``deck`` in place with the ``numpy.random.Generator`` ``rng``,
    exactly as ``rng.shuffle(deck)`` would."""
    for i in range(deck.shape[0] - 1, 0, -1):
        j = np.int64(random_interval(rng.bit_generator, i))
        if j != i:
            card = deck[i]
            deck[i] = deck[j]
            deck[j] = card
