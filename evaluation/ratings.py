"""Bradley-Terry Elo ratings with intervals bootstrapped over openings.

Model: agent ``i`` beats agent ``j`` with probability ``1 / (1 + 10**((R_j - R_i) / 400))``
(Elo's scale). A draw counts as half a win for each side. ``bradley_terry`` fits the
ratings by maximum likelihood (Hunter's MM iterations) and shifts them so that the anchor
(``random`` when present, else the first agent) is 0.

A prior keeps the fit finite when an agent wins or loses every game (common: a search agent
against ``random``): each pair that met gets ``PRIOR_DRAWS`` virtual draws (1). It pulls
ratings together a little; with 100 games per pair the effect is a few Elo.

``bootstrap`` resamples the openings of the suite every pair played (the opening pair of
games is the unit of independence: ``mancala_envs.evaluation.arena``), refits, and reports the
2.5 and 97.5 percentiles of each rating: a 95% interval, anchored like the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["PairResult", "Ratings", "bootstrap", "bradley_terry"]

ELO = 400.0 / math.log(10.0)
ANCHOR = "random"  # the agent rated 0 when it plays
PRIOR_DRAWS = 1.0  # virtual draws per pair that met (module docstring)


@dataclass(frozen=True)
class PairResult:
    """Games between agents ``a`` and ``b``: wins of each and draws (truncations left out)."""

    a: str
    b: str
    wins_a: int
    wins_b: int
    draws: int


@dataclass
class Ratings:
    names: list[str]
    elo: np.ndarray  # (K,) ratings, anchor = 0
    low: np.ndarray | None = None  # (K,) 2.5 percentile
    high: np.ndarray | None = None  # (K,) 97.5 percentile
    anchor: str = ""

    def as_dict(self) -> dict[str, dict[str, float | None]]:
        out = {}
        for k, name in enumerate(self.names):
            out[name] = {
                "elo": float(self.elo[k]),
                "low": None if self.low is None else float(self.low[k]),
                "high": None if self.high is None else float(self.high[k]),
            }
        return out


def _matrix(names: list[str], pairs: list[PairResult]) -> np.ndarray:
    """W[i, j] = games i won against j (draws as halves)."""
    index = {n: k for k, n in enumerate(names)}
    W = np.zeros((len(names), len(names)))
    for p in pairs:
        i, j = index[p.a], index[p.b]
        W[i, j] += p.wins_a + 0.5 * p.draws
        W[j, i] += p.wins_b + 0.5 * p.draws
    return W


def _fit(W: np.ndarray, met: np.ndarray, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """MM iterations for Bradley-Terry; returns log-strengths (natural log)."""
    K = W.shape[0]
    W = W + 0.5 * PRIOR_DRAWS * met  # virtual draws
    N = W + W.T
    wins = W.sum(axis=1)
    p = np.ones(K)
    for _ in range(iters):
        denom = (N / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins / np.maximum(denom, 1e-300), p)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    return np.log(p)


def bradley_terry(pairs: list[PairResult], names: list[str] | None = None) -> Ratings:
    """Elo ratings from pairwise results; ``random`` (or the first name if absent) is 0."""
    if names is None:
        names = []
        for p in pairs:
            for n in (p.a, p.b):
                if n not in names:
                    names.append(n)
    if not names:
        raise ValueError("bradley_terry: no agents")
    for p in pairs:
        for n in (p.a, p.b):
            if n not in names:
                raise ValueError(f"bradley_terry: {n!r} in the results is not one of the agents {names}")
    W = _matrix(names, pairs)
    met = ((W + W.T) > 0).astype(float)
    logp = _fit(W, met)
    anchor_name = ANCHOR if ANCHOR in names else names[0]
    k = names.index(anchor_name)
    return Ratings(list(names), ELO * (logp - logp[k]), anchor=anchor_name)


def bootstrap(matches: list, names: list[str] | None = None, samples: int = 200, seed: int = 0) -> Ratings:
    """``bradley_terry`` plus 95% percentile intervals, resampling the openings.

    ``matches`` are ``PairedResult``: each sample draws the openings of every suite with
    replacement once, and every pair that played that suite is resampled with the same
    openings (an opening is the unit of independence, and one hard opening is hard for
    everybody); then the ratings are refitted.
    """
    point = bradley_terry([m.pair_result() for m in matches], names)
    names = point.names
    rng = np.random.default_rng(seed)
    k = names.index(point.anchor)
    suites = {_suite_key(m.suite): len(m.suite) for m in matches}
    draws = np.zeros((samples, len(names)))
    for s in range(samples):
        rows = {key: rng.integers(n, size=n) for key, n in suites.items()}
        W = _matrix(names, [m.pair_result(rows[_suite_key(m.suite)]) for m in matches])
        met = ((W + W.T) > 0).astype(float)
        logp = _fit(W, met, iters=500, tol=1e-8)
        draws[s] = ELO * (logp - logp[k])
    point.low = np.percentile(draws, 2.5, axis=0)
    point.high = np.percentile(draws, 97.5, axis=0)
    return point


def _suite_key(suite) -> str:
    """Matches over equal suites share their resampled openings."""
    return repr(sorted(suite.spec().items()))
