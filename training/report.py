"""The final report of a training run: ``report.md``, ``report.json`` and the two plots.

``results_table`` is the table ``mancala train`` and ``mancala eval`` print: per opponent
(marked when it was in the training pool) the games and distinct games, the learner's wins,
draws and losses, its score with the 95% interval over openings, its score per seat and the
opponent's Elo, then the learner's Elo. matplotlib (the train extra) is
imported only when the plots are drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.evaluation.openings import OpeningSuite
from mancala_envs.evaluation.ratings import Ratings
from mancala_envs.core.files import atomic_output, write_text_atomic

from .config import TrainConfig
from .evaluation import LEARNER
from .checkpoint import RunState


def build_report(cfg: TrainConfig, state: RunState, rows: list[dict[str, Any]], ratings: Ratings,
                 suite: OpeningSuite, run_dir: Path) -> dict[str, Any]:
    """The contents of ``report.json``: the final evaluation and its suite, ratings, the run's history."""
    return {
        "env_id": cfg.env_id,
        "options": cfg.options,
        "steps": state.steps,
        "training_seconds": round(state.seconds, 1),
        "final_evaluation": rows,
        "final_openings": suite.to_json(),
        "final_openings_label": suite.label(),
        "ratings": ratings.as_dict(),
        "ladder": state.ladder,
        "history": state.evals,
        "learning_curve": state.curve,
        "run_dir": str(run_dir),
    }


def results_table(rows: list[dict[str, Any]], ratings: dict[str, dict[str, Any]] | None = None) -> str:
    """The final table, as Markdown (readable as plain text too).

    Scores count a win 1 and a draw 1/2, with 95% intervals bootstrapped over openings; an
    opponent marked "trained against" was in the training pool.
    """
    lines = [
        "| opponent | games (distinct) | learner wins | draws | losses | score (95% CI) | as player_0 | as player_1 "
        "| opponent Elo |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        elo = ratings.get(r["opponent"], {}).get("elo") if ratings else None
        name = r["opponent"] + (" (trained against)" if r.get("in_training_pool") else "")
        lines.append(
            f"| {name} | {r['games']} ({r['distinct_games']}) | {r['wins']} | {r['draws']} | {r['losses']} | "
            f"{_percent(r['score'])} ({_percent(r['score_low'])}-{_percent(r['score_high'])}) | "
            f"{_percent(r['score_as_player_0'])} | {_percent(r['score_as_player_1'])} | "
            f"{'' if elo is None else f'{elo:+.0f}'} |"
        )
    if ratings and LEARNER in ratings:
        learner = ratings[LEARNER]
        interval = "" if learner.get("low") is None else f" (95% CI {learner['low']:+.0f} to {learner['high']:+.0f})"
        lines.append("")
        lines.append(f"Learner Elo: {learner['elo']:+.0f}{interval}, random = 0")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def write_report(report: dict[str, Any], run_dir: Path) -> None:
    """``report.md``, ``report.json``, ``learning_curve.png`` and ``scores.png`` in ``run_dir``."""
    table = results_table(report["final_evaluation"], report["ratings"])
    markdown = (
        f"# Training report: {report['env_id']}\n\n"
        f"{report['steps']} learner steps in {report['training_seconds']} s of training. Options: {report['options'] or 'preset'}.\n\n"
        f"## Final evaluation\n\nOver {report['final_openings_label']}, each played from both seats "
        f"(the suite is in report.json).\n\n{table}\n\n"
        f"![learning curve](learning_curve.png)\n\n![scores](scores.png)\n"
    )
    write_text_atomic(run_dir / "report.md", markdown)
    write_text_atomic(run_dir / "report.json", json.dumps(report, indent=1) + "\n")
    plot_run(report, run_dir)


def plot_run(report: dict[str, Any], run_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = np.array(report["learning_curve"], dtype=float).reshape(-1, 3)
    fig, ax = plt.subplots(figsize=(7, 4))
    if len(curve):
        ax.plot(curve[:, 0], curve[:, 1], marker="o")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("mean self-play return (+1 win, -1 loss)")
    ax.set_title(f"{report['env_id']}: learning curve")
    ax.grid(alpha=0.3)
    _save_figure(fig, run_dir / "learning_curve.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent in dict.fromkeys(r["opponent"] for r in report["history"]):
        rows = [r for r in report["history"] if r["opponent"] == opponent]
        steps = [r["step"] for r in rows]
        rate = [r["score"] for r in rows]
        low = [r["score_low"] for r in rows]
        high = [r["score_high"] for r in rows]
        ax.plot(steps, rate, marker="o", label=opponent)
        ax.fill_between(steps, low, high, alpha=0.15)
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("learner score (95% interval over openings)")
    ax.set_title(f"{report['env_id']}: score against the ladder")
    ax.legend()
    ax.grid(alpha=0.3)
    _save_figure(fig, run_dir / "scores.png")


def _save_figure(fig, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    with atomic_output(path, suffix=".png") as tmp:  # matplotlib picks the format by extension
        fig.savefig(tmp, dpi=100)
    plt.close(fig)
