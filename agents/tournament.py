"""Round-robin tournaments: every pair of agents plays a match, then Elo and per-seat tables.

``round_robin(env, specs, games, seed)`` builds each agent from its spec (``agents.specs``),
plays every pair (``play_match``: seats swapped every game, each start seed played from both
seats, on every core), then fits Bradley-Terry Elo ratings with bootstrap intervals anchored
at ``random`` = 0 (``agents.ratings``; the first agent is the anchor when ``random`` is not
playing). ``TournamentResult.table()`` is the printed table; ``write(out_dir)`` writes
``tournament-<env id>.csv``, ``.json`` and ``.png`` atomically (temporary file, then rename).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from mancala_envs.core.files import atomic_output, write_text_atomic
from mancala_envs.core.game import Game
from mancala_envs.registry import make_game

from .arena import MatchResult, play_match
from .ratings import PairResult, Ratings, bootstrap, wilson_interval
from .specs import make_agent


@dataclass
class AgentRow:
    name: str
    elo: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int
    # per seat (0: as player_0), wins/draws/losses/games and the Wilson 95% interval of the win rate
    seat_games: list[int] = field(default_factory=lambda: [0, 0])
    seat_wins: list[int] = field(default_factory=lambda: [0, 0])
    seat_draws: list[int] = field(default_factory=lambda: [0, 0])
    seat_losses: list[int] = field(default_factory=lambda: [0, 0])
    seat_wilson: list[tuple[float, float]] = field(default_factory=lambda: [(0.0, 1.0), (0.0, 1.0)])


@dataclass
class TournamentResult:
    env_id: str
    options: dict
    agents: list[str]
    games_per_pair: int
    seed: int
    matches: list[MatchResult]
    ratings: Ratings
    rows: list[AgentRow]
    seconds: float

    def table(self) -> str:
        lines = [
            f"{self.env_id}: round robin of {len(self.agents)} agents, {self.games_per_pair} games per pair, "
            f"seed {self.seed}, {self.seconds:.1f} s",
            f"Elo: Bradley-Terry, anchored at {self.ratings.anchor} = 0, 95% bootstrap interval; "
            "win rates per seat with Wilson 95% intervals",
            "",
            f"{'agent':<28} {'Elo':>7} {'95% CI':>17} {'W':>5} {'D':>5} {'L':>5}  "
            f"{'as player_0':>24}  {'as player_1':>24}",
        ]
        for r in sorted(self.rows, key=lambda r: -r.elo):
            seats = []
            for s in (0, 1):
                n = r.seat_games[s]
                rate = r.seat_wins[s] / n if n else 0.0
                lo, hi = r.seat_wilson[s]
                seats.append(f"{rate:6.1%} [{lo:5.1%},{hi:6.1%}]")
            lines.append(
                f"{r.name:<28} {r.elo:>7.0f} {f'[{r.low:.0f}, {r.high:.0f}]':>17} {r.wins:>5} {r.draws:>5} "
                f"{r.losses:>5}  {seats[0]:>24}  {seats[1]:>24}"
            )
        lines.append("")
        lines.append("pairs (A vs B: A wins - draws - B wins, truncated):")
        for m in self.matches:
            lines.append(f"  {m.agent_a} vs {m.agent_b}: {m.wins_a}-{m.draws}-{m.wins_b}, {m.truncated} truncated")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "env_id": self.env_id,
            "options": self.options,
            "agents": self.agents,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "seconds": self.seconds,
            "anchor": self.ratings.anchor,
            "ratings": self.ratings.as_dict(),
            "rows": [r.__dict__ for r in self.rows],
            "matches": [m.to_dict() for m in self.matches],
        }

    def csv_text(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["agent", "elo", "elo_low", "elo_high", "games", "wins", "draws", "losses",
                    "p0_games", "p0_wins", "p0_draws", "p0_losses", "p0_winrate_low", "p0_winrate_high",
                    "p1_games", "p1_wins", "p1_draws", "p1_losses", "p1_winrate_low", "p1_winrate_high"])
        for r in self.rows:
            row = [r.name, f"{r.elo:.1f}", f"{r.low:.1f}", f"{r.high:.1f}", r.games, r.wins, r.draws, r.losses]
            for s in (0, 1):
                row += [r.seat_games[s], r.seat_wins[s], r.seat_draws[s], r.seat_losses[s],
                        f"{r.seat_wilson[s][0]:.4f}", f"{r.seat_wilson[s][1]:.4f}"]
            w.writerow(row)
        return buf.getvalue()

    def write(self, out_dir: str | os.PathLike, plot: bool = True) -> dict[str, Path]:
        """Write CSV, JSON and (with ``plot``) a PNG of the ratings; returns the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"tournament-{self.env_id}"
        paths = {"csv": out / f"{stem}.csv", "json": out / f"{stem}.json"}
        write_text_atomic(paths["csv"], self.csv_text())
        write_text_atomic(paths["json"], json.dumps(self.to_dict(), indent=2, default=_json_default))
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
        ax.set_title(f"{self.env_id}: {self.games_per_pair} games per pair")
        fig.tight_layout()
        try:
            with atomic_output(path, suffix=".png") as tmp:  # matplotlib picks the format by extension
                fig.savefig(tmp, dpi=100)
        finally:
            plt.close(fig)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


class ProgressBar:
    """A one-line text progress bar of games on stderr, with the pair being played."""

    width = 30  # characters of the bar

    def __init__(self, total: int):
        self.total = max(total, 1)
        self.done = 0
        self.stream = sys.stderr
        self.label = ""
        self.start = time.perf_counter()

    def update(self, n: int, label: str) -> None:
        self.done += n
        self.label = label
        frac = min(self.done / self.total, 1.0)
        filled = int(frac * self.width)
        elapsed = time.perf_counter() - self.start
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} games "
            f"{elapsed:6.1f}s {self.label[:40]:<40}"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def round_robin(
    env: str | Game,
    specs: list[str],
    games: int = 100,
    seed: int = 0,
    workers: int | None = None,
    bootstrap_samples: int = 200,
    progress: bool = False,
    **options,
) -> TournamentResult:
    """Every pair of ``specs`` plays ``games`` games of ``env``; returns ratings and tables."""
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {len(specs)}: {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"agent specs must be distinct, got {specs}")
    game = env if isinstance(env, Game) else make_game(env, **options)
    start = time.perf_counter()
    agents = [make_agent(s, seed=seed + 1000 * k) for k, s in enumerate(specs)]
    names = [a.name for a in agents]
    pairs = list(combinations(range(len(agents)), 2))
    bar = ProgressBar(len(pairs) * games) if progress else None
    matches = []
    for n, (i, j) in enumerate(pairs):
        label = f"{names[i]} vs {names[j]}"
        last = [0]

        def tick(done, label=label, last=last):
            bar.update(done - last[0], label)
            last[0] = done

        matches.append(play_match(game, agents[i], agents[j], games=games, seed=seed + 7919 * n,
                                  workers=workers, progress=tick if bar else None))
    if bar is not None:
        bar.close()
    results = [PairResult(m.agent_a, m.agent_b, m.wins_a, m.wins_b, m.draws) for m in matches]
    ratings = bootstrap(results, names, samples=bootstrap_samples, seed=seed)
    rows = []
    for k, name in enumerate(names):
        row = AgentRow(name, float(ratings.elo[k]), float(ratings.low[k]), float(ratings.high[k]), 0, 0, 0, 0)
        for m in matches:
            if name not in (m.agent_a, m.agent_b):
                continue
            is_a = m.agent_a == name
            for seat_a in (0, 1):
                seat = seat_a if is_a else 1 - seat_a
                played = m.games_a_by_seat[seat_a]
                wa, wb, dr = m.wins_a_by_seat[seat_a], m.wins_b_by_seat[seat_a], m.draws_by_seat[seat_a]
                wins, losses = (wa, wb) if is_a else (wb, wa)
                row.seat_games[seat] += played
                row.seat_wins[seat] += wins
                row.seat_losses[seat] += losses
                row.seat_draws[seat] += dr
        row.games = sum(row.seat_games)
        row.wins, row.draws, row.losses = sum(row.seat_wins), sum(row.seat_draws), sum(row.seat_losses)
        row.seat_wilson = [wilson_interval(row.seat_wins[s], row.seat_games[s]) for s in (0, 1)]
        rows.append(row)
    return TournamentResult(game.env_id, dict(game.options), names, games, seed, matches, ratings, rows,
                            time.perf_counter() - start)
