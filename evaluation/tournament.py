"""Round-robin tournaments: every pair of agents plays a match, then Elo and per-seat tables.

``round_robin(env, specs, openings, plies, seed)`` builds each agent from its spec
(``mancala_envs.agents.specs``), draws one opening suite (``mancala_envs.evaluation.openings``)
and plays every pair over it (``play_match``: each opening from both seats, on every core),
then fits Bradley-Terry Elo ratings with intervals bootstrapped over openings, anchored at
``random`` = 0 (``mancala_envs.evaluation.ratings``; the first agent is the anchor when
``random`` is not playing). Each agent's score (win 1, draw 1/2) comes with an interval
bootstrapped over openings, overall and per seat. ``TournamentResult.table()`` is the
printed table; ``to_dict()`` holds the suite and, under ``results``, one report per pair
(``PairedResult.report`` with the two names); ``write(out_dir)`` writes ``tournament-<env id>.csv``,
``.json`` and ``.png`` atomically (temporary file, then rename).
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from mancala_envs.core.errors import InvalidOptionError
from mancala_envs.core.files import atomic_output, write_text_atomic
from mancala_envs.core.game import Game
from mancala_envs.registry import game_of

from .arena import play_match
from .openings import DEFAULT_OPENINGS, OpeningSuite, opening_suite
from .paired_results import DRAW, LOSS, TRUNCATED, WIN, PairedResult, bootstrap_score_interval, score_of
from .progress import Progress
from .ratings import Ratings, bootstrap
from mancala_envs.agents.specs import make_agent


SCORE_KEYS = ("games", "wins", "draws", "losses", "score", "score_ci")


@dataclass
class AgentRow:
    """One agent's rating and results against the field; ``by_seat[s]``: as ``player_s``."""

    name: str
    elo: float
    low: float
    high: float
    results: dict  # games, wins, draws, losses, score, score_ci (over openings)
    by_seat: list[dict]  # the same keys, per seat


@dataclass
class TournamentResult:
    env_id: str
    options: dict
    agents: list[str]
    suite: OpeningSuite
    seed: int
    matches: list[PairedResult]
    ratings: Ratings
    rows: list[AgentRow]
    seconds: float

    def table(self) -> str:
        lines = [
            f"{self.env_id}: round robin of {len(self.agents)} agents over {self.suite.label()}, each played "
            f"from both seats ({2 * len(self.suite)} games per pair), {self.seconds:.1f} s",
            f"Elo: Bradley-Terry, anchored at {self.ratings.anchor} = 0; scores (win 1, draw 1/2) against the "
            "field; all intervals 95%, bootstrapped over openings",
            "",
            f"{'agent':<28} {'Elo':>7} {'95% CI':>17} {'W':>5} {'D':>5} {'L':>5}  {'score':>22}  "
            f"{'as player_0':>22}  {'as player_1':>22}",
        ]
        for r in sorted(self.rows, key=lambda r: -r.elo):
            scores = [_score_cell(block) for block in (r.results, *r.by_seat)]
            lines.append(
                f"{r.name:<28} {r.elo:>7.0f} {f'[{r.low:.0f}, {r.high:.0f}]':>17} {r.results['wins']:>5} "
                f"{r.results['draws']:>5} {r.results['losses']:>5}  {scores[0]:>22}  {scores[1]:>22}  {scores[2]:>22}"
            )
        lines.append("")
        lines.append("pairs (A vs B: A's score over openings; A wins - draws - B wins; distinct games):")
        for m in self.matches:
            games, wins, draws, losses = m.counts()
            score = _score_cell(m.report())
            lines.append(f"  {m.agent_a} vs {m.agent_b}: {score}; {wins}-{draws}-{losses}; "
                         f"{m.distinct_games} of {games} games distinct")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "options": self.options,
            "agents": self.agents,
            "seed": self.seed,
            "seconds": self.seconds,
            "openings": self.suite.to_json(),
            "anchor": self.ratings.anchor,
            "ratings": self.ratings.as_dict(),
            "rows": [r.__dict__ for r in self.rows],
            "results": [{"agent_a": m.agent_a, "agent_b": m.agent_b, **_without_suite(m.report())}
                        for m in self.matches],
        }

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        header = ["agent", "elo", "elo_low", "elo_high"]
        for prefix in ("", "p0_", "p1_"):
            header += [f"{prefix}{key}" for key in ("games", "wins", "draws", "losses", "score", "score_low",
                                                     "score_high")]
        w.writerow(header)
        for r in self.rows:
            row = [r.name, f"{r.elo:.1f}", f"{r.low:.1f}", f"{r.high:.1f}"]
            for block in (r.results, *r.by_seat):
                lo, hi = block["score_ci"]
                row += [block["games"], block["wins"], block["draws"], block["losses"], _number(block["score"]),
                        _number(lo), _number(hi)]
            w.writerow(row)
        return buf.getvalue()

    def write(self, out_dir: str | os.PathLike, plot: bool = True) -> dict[str, Path]:
        """Write CSV, JSON and (with ``plot``) a PNG of the ratings; returns the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"tournament-{self.env_id}"
        paths = {"csv": out / f"{stem}.csv", "json": out / f"{stem}.json"}
        write_text_atomic(paths["csv"], self.csv_text())
        write_text_atomic(paths["json"], json.dumps(self.to_dict(), indent=2, default=json_default))
        if plot:
            paths["png"] = out / f"{stem}.png"
            self._plot(paths["png"])
        return paths

    def _plot(self, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = sorted(self.rows, key=lambda r: r.elo)
        fig, ax = plt.subplots(figsize=(7, 0.5 * len(rows) + 1.5))
        y = np.arange(len(rows))
        elo = np.array([r.elo for r in rows])
        err = np.array([[r.elo - r.low for r in rows], [r.high - r.elo for r in rows]])
        ax.errorbar(elo, y, xerr=np.maximum(err, 0), fmt="o", capsize=4)
        ax.set_yticks(y, [r.name for r in rows])
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel(f"Elo (Bradley-Terry, {self.ratings.anchor} = 0, 95% bootstrap interval)")
        ax.set_title(f"{self.env_id}: {2 * len(self.suite)} games per pair over {len(self.suite)} openings")
        fig.tight_layout()
        try:
            with atomic_output(path, suffix=".png") as tmp:  # matplotlib picks the format by extension
                fig.savefig(tmp, dpi=100)
        finally:
            plt.close(fig)


def _score_cell(block: dict) -> str:
    if block["score"] is None:
        return "no decided game"
    lo, hi = block["score_ci"]
    return f"{block['score']:.1%} [{lo:.1%},{hi:.1%}]"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _without_suite(report: dict) -> dict:
    """A pair's report without the suite, which the tournament holds once."""
    return {k: v for k, v in report.items() if k != "openings"}


def json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def round_robin(
    env: str | Game,
    specs: list,
    openings: int | OpeningSuite = DEFAULT_OPENINGS,
    plies: tuple[int, int] | None = None,
    seed: int = 0,
    workers: int | None = None,
    bootstrap_samples: int = 200,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
    **options,
) -> TournamentResult:
    """Every pair of ``specs`` plays the same opening suite of ``env``; returns ratings and tables.

    ``specs`` are agent specs or agent objects (anything ``make_agent`` takes), of distinct names.
    ``backend``/``address``: where the games are played (``play_match``: local processes or Ray).
    """
    if len(specs) < 2:
        raise InvalidOptionError(f"a tournament needs at least 2 agents, got {len(specs)}: {specs}")
    if (isinstance(bootstrap_samples, bool) or not isinstance(bootstrap_samples, (int, np.integer))
            or bootstrap_samples < 1):
        raise InvalidOptionError(f"bootstrap_samples must be an integer >= 1, got {bootstrap_samples!r}")
    game = game_of(env, **options)
    suite = openings if isinstance(openings, OpeningSuite) else opening_suite(game, openings, plies, seed)
    start = time.perf_counter()
    agents = [make_agent(s, seed=seed + 1000 * k) for k, s in enumerate(specs)]
    names = [a.name for a in agents]
    if len(set(names)) != len(names):
        raise InvalidOptionError(f"agent names must be distinct, got {names}")
    pairs = list(combinations(range(len(agents)), 2))
    games_per_pair = 2 * len(suite)
    matches = []
    with Progress(len(pairs) * games_per_pair, "games", "tournament", enabled=progress) as bar:
        for k, (i, j) in enumerate(pairs):
            label = f"{names[i]} vs {names[j]}"
            matches.append(play_match(game, agents[i], agents[j], suite, workers=workers,
                                      backend=backend, address=address, progress=lambda done, base=k * games_per_pair, label=label:
                                      bar.update(base + done, label)))
    ratings = bootstrap(matches, names, samples=bootstrap_samples, seed=seed)
    rows = [_agent_row(name, k, ratings, matches) for k, name in enumerate(names)]
    return TournamentResult(game.env_id, dict(game.options), names, suite, seed, matches, ratings, rows,
                            time.perf_counter() - start)


def _agent_row(name: str, k: int, ratings: Ratings, matches: list[PairedResult]) -> AgentRow:
    """``name``'s results against the field: its outcome columns of every match, from its side.

    Columns are ``(opening, seat)`` pairs of each match it played, so resampling rows resamples
    openings for all of its matches at once.
    """
    by_seat = [[], []]
    for m in matches:
        if name == m.agent_a:
            by_seat[0].append(m.outcomes[:, 0])
            by_seat[1].append(m.outcomes[:, 1])
        elif name == m.agent_b:  # B sat in the other seat; its results are A's, negated
            by_seat[1].append(_flip(m.outcomes[:, 0]))
            by_seat[0].append(_flip(m.outcomes[:, 1]))
    seats = [np.stack(columns, axis=1) for columns in by_seat]
    blocks = [_score_block(outcomes) for outcomes in (np.concatenate(seats, axis=1), *seats)]
    return AgentRow(name, float(ratings.elo[k]), float(ratings.low[k]), float(ratings.high[k]), blocks[0], blocks[1:])


def _flip(outcomes: np.ndarray) -> np.ndarray:
    return np.where(outcomes == TRUNCATED, TRUNCATED, -outcomes).astype(np.int8)


def _score_block(outcomes: np.ndarray) -> dict:
    return {"games": int(outcomes.size), "wins": int((outcomes == WIN).sum()), "draws": int((outcomes == DRAW).sum()),
            "losses": int((outcomes == LOSS).sum()), "score": score_of(outcomes),
            "score_ci": bootstrap_score_interval(outcomes)}
