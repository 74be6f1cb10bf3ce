"""Cutting a batch of games into chunks for workers: the one cut every backend uses.

Ray matches (``evaluation.ray_backend``) and the search-bootstrap trainer's self-play, forked or on
Ray (``training.selfplay_backends``, ``training.ray_selfplay``), hand their workers consecutive
chunks of games. A game depends only on its index (or seed) and results are joined in order, so the
cut decides only how the work is shared, never what it gives.
"""

from __future__ import annotations

import math
from typing import Sequence, TypeVar

Item = TypeVar("Item")

# Chunks per worker: enough that a slow chunk or a lost worker leaves the others busy, few enough
# that a task's fixed cost stays small against its games.
CHUNKS_PER_WORKER = 4


def chunks(count: int, workers: int) -> list[list[int]]:
    """Indices ``0 .. count-1`` cut into consecutive chunks, about ``CHUNKS_PER_WORKER`` per worker."""
    size = max(1, math.ceil(count / (workers * CHUNKS_PER_WORKER)))
    return [list(range(start, min(start + size, count))) for start in range(0, count, size)]


def chunked(items: Sequence[Item], workers: int) -> list[list[Item]]:
    """``items`` cut as ``chunks`` cuts their indices: consecutive runs, in order."""
    return [[items[i] for i in chunk] for chunk in chunks(len(items), workers)]
