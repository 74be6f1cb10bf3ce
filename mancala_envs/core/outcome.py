"""Kernel helpers shared by every game family."""

from numba import njit


@njit(cache=True)
def set_returns(diff, out):
    """``out`` = +1/-1/0 per player from ``diff`` (> 0: player 0 won, < 0: player 1 won)."""
    if diff > 0:
        out[0] = 1.0
        out[1] = -1.0
    elif diff < 0:
        out[0] = -1.0
        out[1] = 1.0
    else:
        out[0] = 0.0
        out[1] = 0.0
