"""Results of paired games over an opening suite, and the one way they are reported.

Every evaluation (``mancala match``, ``eval``, ``tournament``, training runs) plays each
opening of a suite twice, agent A once in each seat. The unit of independence is the
opening: two games from one opening share their start and are not independent samples.
So every interval here is a bootstrap over openings (resampling whole pairs), never a
binomial interval over games.

The report of one agent against another (``PairedResult.report()``) has exactly these
keys, from agent A's side::

    games           games played (2 per opening)
    distinct_games  games whose move sequences differ (a replayed game counts once)
    score           (wins + draws / 2) / (wins + draws + losses): win 1, draw 1/2
    score_ci        [lo, hi], the 95% percentile interval of the score over openings
    wins, draws, losses
    by_seat         two objects with the keys above, A as player_0 and A as player_1
    openings        the suite: its spec and every opening (OpeningSuite.to_json), so the
                    evaluation can be replayed exactly

A game truncated at the ply cap is neither won, drawn nor lost: it counts in ``games``
only (``games - wins - draws - losses`` truncated games).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .openings import OpeningSuite
from .ratings import PairResult

WIN, DRAW, LOSS, TRUNCATED = 1, 0, -1, 2
BOOTSTRAP_SAMPLES = 2000


@dataclass
class PairedResult:
    """Agent A against agent B over ``suite``: ``outcomes[i, s]`` is A's result in opening ``i``
    with A in seat ``s`` (WIN, DRAW, LOSS or TRUNCATED)."""

    agent_a: str
    agent_b: str
    suite: OpeningSuite
    outcomes: np.ndarray  # (openings, 2) int8
    score_diff: np.ndarray  # (openings, 2) float64: A's score minus B's, by the rules' counts
    games_played: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)  # (deal seed, all actions)
    seed: int = 0  # seeds the bootstrap

    @property
    def distinct_games(self) -> int:
        return len(set(self.games_played))

    def counts(self, seat: int | None = None) -> tuple[int, int, int, int]:
        """(games, wins, draws, losses) of A, over both seats or in ``seat``."""
        chosen = self.outcomes if seat is None else self.outcomes[:, seat]
        return (int(chosen.size), int((chosen == WIN).sum()), int((chosen == DRAW).sum()),
                int((chosen == LOSS).sum()))

    def score(self, seat: int | None = None) -> float | None:
        return score_of(self.outcomes if seat is None else self.outcomes[:, seat:seat + 1])

    def score_ci(self, seat: int | None = None) -> list[float | None]:
        columns = slice(None) if seat is None else slice(seat, seat + 1)
        return bootstrap_score_interval(self.outcomes[:, columns], seed=self.seed)

    def _block(self, seat: int | None) -> dict[str, Any]:
        games, wins, draws, losses = self.counts(seat)
        if seat is None:
            distinct = self.distinct_games
        else:
            distinct = len(set(self.games_played[seat::2]))
        return {"games": games, "distinct_games": distinct, "score": self.score(seat), "score_ci": self.score_ci(seat),
                "wins": wins, "draws": draws, "losses": losses}

    def report(self) -> dict[str, Any]:
        """The JSON report (keys in the module docstring)."""
        return {**self._block(None), "by_seat": [self._block(0), self._block(1)], "openings": self.suite.to_json()}

    def pair_result(self, rows: np.ndarray | None = None) -> PairResult:
        """Wins, losses and draws for the Bradley-Terry fit, over the openings ``rows`` (default all)."""
        chosen = self.outcomes if rows is None else self.outcomes[rows]
        return PairResult(self.agent_a, self.agent_b, int((chosen == WIN).sum()), int((chosen == LOSS).sum()),
                          int((chosen == DRAW).sum()))

    def mean_score_diff(self) -> float:
        return float(self.score_diff.mean())

    def summary(self) -> str:
        """A few lines for people: the score with its interval, per seat, distinct games, the suite."""
        lines = [f"{self.suite.env_id}: {self.agent_a} vs {self.agent_b}, {self.counts()[0]} games over "
                 f"{self.suite.label()}, each played from both seats",
                 f"  {self.agent_a} {_score_line(self._block(None), self.suite)}"]
        for seat in (0, 1):
            lines.append(f"  {self.agent_a} as player_{seat}: {_score_line(self._block(seat), self.suite)}")
        games, wins, draws, losses = self.counts()
        truncated = games - wins - draws - losses
        lines.append(f"  distinct games {self.distinct_games} of {games}"
                     + (f", truncated {truncated}" if truncated else "")
                     + f"; mean score difference for {self.agent_a}: {self.mean_score_diff():+.2f}")
        return "\n".join(lines)


def _score_line(block: dict[str, Any], suite: OpeningSuite) -> str:
    score, (lo, hi) = block["score"], block["score_ci"]
    over = "over pairs from one position, not independent" if suite.initial_only else "over openings"
    text = "no decided game" if score is None else f"score {score:.1%} (95% CI {lo:.1%}-{hi:.1%} {over})"
    return f"{text}; {block['wins']} wins, {block['draws']} draws, {block['losses']} losses"


def score_of(outcomes: np.ndarray) -> float | None:
    """(wins + draws / 2) / decided games; None when no game was decided."""
    wins = (outcomes == WIN).sum()
    draws = (outcomes == DRAW).sum()
    decided = wins + draws + (outcomes == LOSS).sum()
    return None if decided == 0 else float((wins + 0.5 * draws) / decided)


def bootstrap_score_interval(outcomes: np.ndarray, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0,
                             level: float = 0.95) -> list[float | None]:
    """Percentile interval of the score, resampling the rows (openings) of ``outcomes``."""
    points = np.where(outcomes == WIN, 1.0, np.where(outcomes == DRAW, 0.5, 0.0))
    decided = (outcomes != TRUNCATED).astype(np.float64)
    points *= decided
    n = len(outcomes)
    if n == 0 or decided.sum() == 0:
        return [None, None]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB007]))
    rows = rng.integers(n, size=(samples, n))
    totals = points.sum(axis=1)[rows].sum(axis=1)
    counts = decided.sum(axis=1)[rows].sum(axis=1)
    scores = totals[counts > 0] / counts[counts > 0]
    tail = (1 - level) / 2 * 100
    return [float(np.percentile(scores, tail)), float(np.percentile(scores, 100 - tail))]
