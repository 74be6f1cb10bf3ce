"""Observation encodings: network-friendly inputs computed from a game's observation vector.

Every game's observation (``State.observation(player)``, mover-relative) is a float vector of
``observation_size`` entries, each within the game's ``observation_bounds()`` ``(low, high)``.
Raw counts (0 to 48 seeds in Kalah) make poor network inputs: large values saturate tanh
units, and the value of a pit is far from linear in its count. An *encoding* turns the
vector into a wider one, entry by entry; every entry ``e`` owns ``per_entry`` consecutive
columns starting at ``e * per_entry``:

===============  ===========  ===================================================================
name             per entry    columns of entry ``e`` with value ``v`` (``x = v - low``)
===============  ===========  ===================================================================
``counts``       1            ``v`` itself (the raw observation)
``scaled``       1            ``x / (high - low)``, in [0, 1]
``onehot``       levels + 1   a 1 in column ``min(floor(x), levels - 1)`` (the last level means
                              "this many or more"), then ``x / (high - low)``
``thermometer``  levels       column ``k < levels - 1`` is 1 when ``x >= k + 1``; the last
                              column is ``x / (high - low)``
===============  ===========  ===================================================================

``levels`` is derived from the bounds: ``min(floor(high - low) + 1, MAX_LEVELS)``, so a
game with small counts gets exactly one level per count, and a game with large ones (Kalah
stores, a ply counter) gets ``MAX_LEVELS`` levels plus the exact value in the scaled column.

The functions are numba-compiled over one observation (``encode_into``) and over a batch
(``encode_batch``, what numpy callers use: ``encode(spec, observations)``). An encoding is
passed to jitted code as its integer ``code`` plus ``low``, ``scale`` and ``levels``, so one
compiled loop serves every encoding and game (``mancala_envs.agents.learned.learned_eval`` computes a
network's first layer straight from the observation with ``first_layer_into``, touching only
the rows of the columns that are not zero).

For Rondell and Widdershins a network can also read *move features*: what each move captures
(Rondell: where its last card lands, from the observation; Widdershins: every move and every
reply played by the kernel on a copy of the position's state), appended after the encoding's
columns (``mancala_envs.agents.learned.move_features``, ``value.features: moves``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["ENCODINGS", "MAX_LEVELS", "EncodingSpec", "encode", "encode_batch", "encode_into",
           "encoding_spec", "first_layer_into"]

#: The encodings by name, with their integer codes (what jitted code receives).
ENCODINGS = {"counts": 0, "scaled": 1, "onehot": 2, "thermometer": 3}
E_COUNTS, E_SCALED, E_ONEHOT, E_THERMOMETER = 0, 1, 2, 3

#: Most levels an entry is split into by ``onehot`` and ``thermometer``.
MAX_LEVELS = 16


class EncodingSpec(NamedTuple):
    """One encoding of one game's observation, with its derived sizes."""

    name: str
    code: int  # ENCODINGS[name]
    low: float  # the game's observation bounds
    scale: float  # 1 / (high - low) (1 when high == low)
    levels: int  # levels per entry (onehot, thermometer)
    observation_size: int
    per_entry: int  # columns per observation entry
    width: int  # observation_size * per_entry: the encoded vector's length


def encoding_spec(name: str, observation_size: int, bounds: tuple[float, float]) -> EncodingSpec:
    """The encoding ``name`` of an observation of ``observation_size`` entries within ``bounds``.

    Use ``encoding_spec(name, game.observation_size, game.observation_bounds())``.
    """
    if name not in ENCODINGS:
        raise ValueError(f"unknown observation encoding {name!r}; encodings are {', '.join(ENCODINGS)}")
    low, high = float(bounds[0]), float(bounds[1])
    if not high >= low:
        raise ValueError(f"observation bounds must have low <= high, got {bounds!r}")
    levels = int(min(math.floor(high - low) + 1, MAX_LEVELS))
    levels = max(levels, 2)
    code = ENCODINGS[name]
    per_entry = {E_COUNTS: 1, E_SCALED: 1, E_ONEHOT: levels + 1, E_THERMOMETER: levels}[code]
    scale = 1.0 / (high - low) if high > low else 1.0
    return EncodingSpec(name, code, low, scale, levels, int(observation_size), per_entry,
                        int(observation_size) * per_entry)


@njit(cache=True, inline="always")
def _level(x, levels):
    """The level column of an entry ``x`` above ``low``: floor(x) clipped to [0, levels - 1]."""
    k = np.int64(np.floor(x))
    if k < 0:
        return np.int64(0)
    if k > levels - 1:
        return np.int64(levels - 1)
    return k


@njit(cache=True)
def encode_into(code, obs, low, scale, levels, out):
    """Write the encoding of one observation ``obs`` (float32[O]) into ``out`` (float32[width])."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for e in range(obs.shape[0]):
        x = np.float64(obs[e]) - low
        if code == E_COUNTS:
            out[e] = obs[e]
        elif code == E_SCALED:
            out[e] = x * scale
        elif code == E_ONEHOT:
            base = e * (levels + 1)
            out[base + _level(x, levels)] = 1.0
            out[base + levels] = x * scale
        else:
            base = e * levels
            for k in range(levels - 1):
                if x >= k + 1:
                    out[base + k] = 1.0
            out[base + levels - 1] = x * scale


@njit(cache=True)
def encode_batch(code, observations, low, scale, levels, out):
    """``encode_into`` for every row of ``observations`` (float32[n, O]) into ``out`` (float32[n, width])."""
    for i in range(observations.shape[0]):
        encode_into(code, observations[i], low, scale, levels, out[i])


def encode(spec: EncodingSpec, observations: np.ndarray) -> np.ndarray:
    """The encoding of a batch of observations (n, O), or of one observation (O,), as float32."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    single = obs.ndim == 1
    obs2 = obs[None, :] if single else obs
    if obs2.ndim != 2 or obs2.shape[1] != spec.observation_size:
        raise ValueError(f"encode: expected observations of {spec.observation_size} entries, got shape {obs.shape}")
    out = np.zeros((obs2.shape[0], spec.width), np.float32)
    encode_batch(spec.code, obs2, spec.low, spec.scale, spec.levels, out)
    return out[0] if single else out


@njit(cache=True, inline="always")
def _add_row(out, weight, offset, row, factor):
    """``out += factor * W[row]``, W a (rows, H) matrix stored flat in ``weight`` from ``offset``."""
    width = out.shape[0]
    start = offset + row * width
    for j in range(width):
        out[j] += factor * weight[start + j]


@njit(cache=True)
def first_layer_into(code, obs, low, scale, levels, weight, w_offset, bias, b_offset, out):
    """``out = b + encode(obs) @ W`` (float64[H]) without building the encoded vector.

    ``W`` is a (width, H) matrix stored row-major in the flat ``weight`` from ``w_offset``,
    ``b`` the H entries of the flat ``bias`` from ``b_offset``. Only the rows of non-zero
    columns are read: two per entry for ``onehot``, one for ``counts``/``scaled``, up to
    ``levels`` for ``thermometer``.
    """
    for j in range(out.shape[0]):
        out[j] = bias[b_offset + j]
    for e in range(obs.shape[0]):
        x = np.float64(obs[e]) - low
        if code == E_COUNTS:
            _add_row(out, weight, w_offset, e, np.float64(obs[e]))
        elif code == E_SCALED:
            _add_row(out, weight, w_offset, e, x * scale)
        elif code == E_ONEHOT:
            base = e * (levels + 1)
            _add_row(out, weight, w_offset, base + _level(x, levels), 1.0)
            _add_row(out, weight, w_offset, base + levels, x * scale)
        else:
            base = e * levels
            for k in range(levels - 1):
                if x >= k + 1:
                    _add_row(out, weight, w_offset, base + k, 1.0)
            _add_row(out, weight, w_offset, base + levels - 1, x * scale)
