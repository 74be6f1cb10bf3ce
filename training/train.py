"""``mancala train``: MaskablePPO by self-play, evaluated against a ladder of search agents.

    mancala train configs/kalah-v0-quick.yaml [key=value ...]
    mancala train --resume runs/kalah-v0-20261122-050000

A run folder holds everything about one run:

===========================  ===================================================================
``config.yaml``              the resolved config (file + overrides), used by ``--resume``
``command.txt``, ``meta.json``  the command line, package/torch versions, start time
``checkpoints/latest.zip``   the model at the last checkpoint (written to a temporary name and
                             renamed: a SIGKILL loses at most the work since that checkpoint)
``checkpoints/state.json``   steps, snapshot list, evaluation history at that checkpoint
``snapshots/*.pt``           the frozen snapshots of the learner in the opponent pool
``evals.csv``                every evaluation: step, opponent, games, wins/draws/losses, win rate
                             with its Wilson 95% interval, wins per seat, the learner's Elo
``tb/``                      TensorBoard: SB3's training statistics plus ``eval/*``
``final_model.zip``          the trained model (``policy:RUN_DIR`` plays it)
``report.md``, ``report.json``  final table: win rates per opponent and seat, Elo ratings with
                             bootstrap intervals (random = 0)
``learning_curve.png``       the learner's mean self-play return over training steps
``win_rates.png``            win rate against each ladder agent over training steps
===========================  ===================================================================

Training runs in chunks between events (snapshot, evaluation, checkpoint); each chunk is a
``model.learn`` call that keeps the step count. Opponents: every ``pool.snapshot_every``
steps a frozen copy of the learner joins the pool (the last ``pool.keep_last`` are kept),
next to the ``pool.baselines`` agents, each drawn by weight per game and episode.
Ratings: the ladder agents play each other once at the start (``eval.ladder_games`` per
pair); every evaluation adds the learner's games and a Bradley-Terry fit gives its Elo.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.core.files import atomic_output, remove_stale_temporaries, write_text_atomic

from .config import ConfigError, TrainConfig, config_from_dict

EVAL_FIELDS = [
    "step", "opponent", "games", "wins", "draws", "losses", "truncated", "win_rate", "win_rate_low",
    "win_rate_high", "wins_as_player_0", "games_as_player_0", "wins_as_player_1", "games_as_player_1",
    "learner_elo",
]


@dataclass
class RunState:
    """What a checkpoint remembers besides the model."""

    steps: int = 0
    snapshots: list[str] = field(default_factory=list)  # names, oldest first (files in snapshots/)
    evals: list[dict[str, Any]] = field(default_factory=list)  # rows of evals.csv
    curve: list[list[float]] = field(default_factory=list)  # [step, mean learner return, episodes]
    ladder_pairs: list[list[Any]] = field(default_factory=list)  # [a, b, wins_a, wins_b, draws]
    seconds: float = 0.0  # training wall time so far


# -- evaluation ---------------------------------------------------------------------------------------
def evaluate(game, learner, specs: list[str], games: int, seed: int, step: int) -> list[dict[str, Any]]:
    """Seat-swapped games of the learner against every ladder agent; one row per opponent."""
    from mancala_envs.agents import make_agent, play_match
    from mancala_envs.agents.ratings import wilson_interval

    rows = []
    for k, spec in enumerate(specs):
        opponent = make_agent(spec, seed=seed + k)
        result = play_match(game, learner, opponent, games=games, seed=seed + 1000 * k, workers=None)
        decided = result.games - result.truncated
        score = result.wins_a + 0.5 * result.draws
        low, high = wilson_interval(score, decided)
        rows.append({
            "step": step, "opponent": spec, "games": result.games, "wins": result.wins_a, "draws": result.draws,
            "losses": result.wins_b, "truncated": result.truncated,
            "win_rate": score / decided if decided else 0.0, "win_rate_low": low, "win_rate_high": high,
            "wins_as_player_0": result.wins_a_by_seat[0], "games_as_player_0": result.games_a_by_seat[0],
            "wins_as_player_1": result.wins_a_by_seat[1], "games_as_player_1": result.games_a_by_seat[1],
        })
    return rows


def ladder_results(game, specs: list[str], games: int, seed: int) -> list[list[Any]]:
    """Every pair of ladder agents plays ``games`` games: the fixed part of the rating table."""
    from mancala_envs.agents import make_agent, play_match

    pairs = []
    for i, a in enumerate(specs):
        for j in range(i + 1, len(specs)):
            b = specs[j]
            if games < 1:
                continue
            result = play_match(game, make_agent(a, seed=seed + i), make_agent(b, seed=seed + j), games=games,
                                seed=seed + 31 * i + j, workers=None)
            pairs.append([a, b, result.wins_a, result.wins_b, result.draws])
    return pairs


def learner_ratings(ladder_pairs: list[list[Any]], rows: list[dict[str, Any]], name: str = "learner", intervals: bool = False):
    """Bradley-Terry Elo of the ladder plus the learner (from ``rows``), random = 0."""
    from mancala_envs.agents.ratings import PairResult, bootstrap, bradley_terry

    pairs = [PairResult(*p) for p in ladder_pairs]
    pairs += [PairResult(name, r["opponent"], r["wins"], r["losses"], r["draws"]) for r in rows]
    return bootstrap(pairs, anchor="random", samples=200) if intervals else bradley_terry(pairs, anchor="random")


# -- the run -------------------------------------------------------------------------------------------------
class Trainer:
    """One training run in its folder (see the module docstring)."""

    def __init__(self, config: TrainConfig, run_dir: Path, state: RunState, echo=print):
        import torch

        self.config = config
        self.run_dir = run_dir
        self.state = state
        self.echo = echo
        torch.set_num_threads(config.torch_threads)
        import mancala_envs

        self.game = mancala_envs.make_game(config.env_id, **config.options)

    # files ---------------------------------------------------------------------------------------------
    @property
    def checkpoint(self) -> Path:
        return self.run_dir / "checkpoints" / "latest.zip"

    def _save_model(self, model, path: Path) -> None:
        with atomic_output(path, suffix=".zip") as tmp:  # SB3 adds .zip to a name without it
            model.save(str(tmp))

    def _save_state(self) -> None:
        write_text_atomic(self.run_dir / "checkpoints" / "state.json", json.dumps(self.state.__dict__, indent=1))

    def _write_evals_csv(self) -> None:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        for row in self.state.evals:
            writer.writerow({k: row.get(k, "") for k in EVAL_FIELDS})
        write_text_atomic(self.run_dir / "evals.csv", buffer.getvalue())

    # opponents -------------------------------------------------------------------------------------
    def _snapshot_policy(self, model, name: str):
        import torch

        from .selfplay import PolicyOpponent

        path = self.run_dir / "snapshots" / f"{name}.pt"
        if not path.exists():
            with atomic_output(path) as tmp:
                torch.save(model.policy.state_dict(), tmp)
        policy = type(model.policy)(**model.policy._get_constructor_parameters())
        policy.load_state_dict(torch.load(path, weights_only=True))
        return PolicyOpponent.snapshot(policy, name=name)

    def _build_pool(self):
        from mancala_envs.agents import make_agent

        from .selfplay import OpponentPool

        pool = OpponentPool([])
        for k, (spec, weight) in enumerate(self.config.pool.baselines.items()):
            opponent = "random" if spec == "random" else make_agent(spec, seed=self.config.seed + 7 + k)
            pool.add(opponent, weight, name=spec)
        return pool

    def _take_snapshot(self, model, env) -> None:
        name = f"snapshot-{model.num_timesteps}"
        env.pool.add(self._snapshot_policy(model, name), self.config.pool.snapshot_weight, name=name)
        self.state.snapshots.append(name)
        while len(self.state.snapshots) > self.config.pool.keep_last:
            old = self.state.snapshots.pop(0)
            env.pool.remove(old)
            (self.run_dir / "snapshots" / f"{old}.pt").unlink(missing_ok=True)

    # the loop ------------------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import configure

        from mancala_envs.agents.policy import PolicyAgent

        from mancala_envs.agents.features import OBSERVATION_TRANSFORMS
        from .selfplay import SelfPlayVecEnv

        cfg = self.config
        pool = self._build_pool()
        env = SelfPlayVecEnv(cfg.env_id, cfg.num_envs, opponents=pool, seed=cfg.seed + self.state.steps, **cfg.options)
        ppo = dict(cfg.ppo.__dict__)
        policy_kwargs: dict[str, Any] = {"net_arch": list(ppo.pop("net_arch"))}
        extractor = OBSERVATION_TRANSFORMS[ppo.pop("observation_transform")]
        if extractor is not None:
            policy_kwargs["features_extractor_class"] = extractor
        if self.checkpoint.exists():
            model = MaskablePPO.load(str(self.checkpoint), env=env, device="cpu")
            self.echo(f"resumed from {self.checkpoint} at step {model.num_timesteps}")
        else:
            model = MaskablePPO("MlpPolicy", env, seed=cfg.seed, device="cpu", verbose=0,
                                policy_kwargs=policy_kwargs, **ppo)
        for name in self.state.snapshots:
            env.pool.add(self._snapshot_policy(model, name), cfg.pool.snapshot_weight, name=name)
        model.set_logger(configure(str(self.run_dir / "tb"), ["tensorboard"]))

        if not self.state.ladder_pairs and cfg.eval.ladder_games > 0:
            self.echo(f"rating the ladder: {', '.join(cfg.eval.ladder)} ({cfg.eval.ladder_games} games per pair)")
            self.state.ladder_pairs = ladder_results(self.game, cfg.eval.ladder, cfg.eval.ladder_games, cfg.seed)

        steps = int(model.num_timesteps)
        callback = _ProgressCallback(cfg.total_timesteps, steps, self.echo)
        started = time.perf_counter()
        spent_before = self.state.seconds
        while steps < cfg.total_timesteps:
            marks = [cfg.total_timesteps]
            for every in (cfg.pool.snapshot_every, cfg.eval.every, cfg.checkpoint_every):
                marks.append((steps // every + 1) * every)
            target = min(marks)
            model.learn(total_timesteps=target - steps, reset_num_timesteps=False, callback=callback)
            previous, steps = steps, int(model.num_timesteps)
            self.state.steps = steps
            self.state.seconds = spent_before + time.perf_counter() - started
            self.state.curve.extend(callback.take_curve(steps))
            if steps // cfg.pool.snapshot_every > previous // cfg.pool.snapshot_every:
                self._take_snapshot(model, env)
            if steps // cfg.eval.every > previous // cfg.eval.every or steps >= cfg.total_timesteps:
                self._evaluate(model, steps, cfg.eval.games)
            if steps // cfg.checkpoint_every > previous // cfg.checkpoint_every or steps >= cfg.total_timesteps:
                self._save_model(model, self.checkpoint)
                self._save_state()
        callback.close()

        self._save_model(model, self.run_dir / "final_model.zip")
        self.echo(f"final evaluation: {cfg.eval.final_games} games against each of {', '.join(cfg.eval.ladder)}")
        learner = PolicyAgent(model, name="learner")
        final_rows = evaluate(self.game, learner, cfg.eval.ladder, cfg.eval.final_games, cfg.seed + 99, steps)
        ratings = learner_ratings(self.state.ladder_pairs, final_rows, intervals=True)
        report = build_report(cfg, self.state, final_rows, ratings, self.run_dir)
        write_report(report, self.run_dir)
        return report

    def _evaluate(self, model, steps: int, games: int) -> None:
        from mancala_envs.agents.policy import PolicyAgent

        learner = PolicyAgent(model, name="learner")
        rows = evaluate(self.game, learner, self.config.eval.ladder, games, self.config.seed + steps, steps)
        elo = float(learner_ratings(self.state.ladder_pairs, rows).as_dict()["learner"]["elo"])
        for row in rows:
            row["learner_elo"] = elo
            model.logger.record(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"])
        model.logger.record("eval/learner_elo", elo)
        model.logger.dump(steps)
        self.state.evals.extend(rows)
        self._write_evals_csv()
        summary = ", ".join(f"{r['opponent']} {r['win_rate']:.0%}" for r in rows)
        self.echo(f"step {steps}: win rates {summary}; learner Elo {elo:+.0f}")


class _ProgressCallback:
    """A rich progress bar over the whole run, and the learner's returns for the learning curve."""

    def __new__(cls, *args, **kwargs):
        from stable_baselines3.common.callbacks import BaseCallback

        class Callback(BaseCallback):
            def __init__(self, total: int, start: int, echo):
                super().__init__()
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

                self.progress = Progress(TextColumn("training"), BarColumn(), MofNCompleteColumn(),
                                         TimeRemainingColumn(), disable=not sys.stderr.isatty(), transient=True)
                self.task = self.progress.add_task("steps", total=total, completed=start)
                self.progress.start()
                self.returns: list[float] = []

            def _on_step(self) -> bool:
                self.progress.update(self.task, completed=self.num_timesteps)
                for info in self.locals.get("infos", []):
                    result = info.get("episode_result")
                    if result is not None:
                        self.returns.append(result["return"])
                return True

            def take_curve(self, step: int) -> list[list[float]]:
                if not self.returns:
                    return []
                point = [[float(step), float(np.mean(self.returns)), float(len(self.returns))]]
                self.returns = []
                return point

            def close(self) -> None:
                self.progress.stop()

        return Callback(*args, **kwargs)


# -- report --------------------------------------------------------------------------------------------------
def build_report(cfg: TrainConfig, state: RunState, rows: list[dict[str, Any]], ratings, run_dir: Path) -> dict[str, Any]:
    return {
        "env_id": cfg.env_id,
        "options": cfg.options,
        "steps": state.steps,
        "training_seconds": round(state.seconds, 1),
        "final_evaluation": rows,
        "ratings": ratings.as_dict(),
        "ladder_pairs": state.ladder_pairs,
        "history": state.evals,
        "learning_curve": state.curve,
        "run_dir": str(run_dir),
    }


def results_table(rows: list[dict[str, Any]], ratings: dict[str, dict[str, Any]] | None = None) -> str:
    """The final table, as Markdown (readable as plain text too)."""
    lines = [
        "| opponent | games | learner wins | draws | losses | win rate (95% CI) | as player_0 | as player_1 | opponent Elo |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        elo = ratings.get(r["opponent"], {}).get("elo") if ratings else None
        lines.append(
            f"| {r['opponent']} | {r['games']} | {r['wins']} | {r['draws']} | {r['losses']} | "
            f"{r['win_rate']:.1%} ({r['win_rate_low']:.1%}-{r['win_rate_high']:.1%}) | "
            f"{r['wins_as_player_0']}/{r['games_as_player_0']} | {r['wins_as_player_1']}/{r['games_as_player_1']} | "
            f"{'' if elo is None else f'{elo:+.0f}'} |"
        )
    if ratings and "learner" in ratings:
        learner = ratings["learner"]
        interval = "" if learner.get("low") is None else f" (95% CI {learner['low']:+.0f} to {learner['high']:+.0f})"
        lines.append("")
        lines.append(f"Learner Elo: {learner['elo']:+.0f}{interval}, random = 0")
    return "\n".join(lines)


def write_report(report: dict[str, Any], run_dir: Path) -> None:
    table = results_table(report["final_evaluation"], report["ratings"])
    markdown = (
        f"# Training report: {report['env_id']}\n\n"
        f"{report['steps']} learner steps in {report['training_seconds']} s of training. Options: {report['options'] or 'preset'}.\n\n"
        f"## Final evaluation (seats swapped every game)\n\n{table}\n\n"
        f"![learning curve](learning_curve.png)\n\n![win rates](win_rates.png)\n"
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
        rate = [r["win_rate"] for r in rows]
        low = [r["win_rate_low"] for r in rows]
        high = [r["win_rate_high"] for r in rows]
        ax.plot(steps, rate, marker="o", label=opponent)
        ax.fill_between(steps, low, high, alpha=0.15)
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("learner win rate (95% Wilson interval)")
    ax.set_title(f"{report['env_id']}: win rate against the ladder")
    ax.legend()
    ax.grid(alpha=0.3)
    _save_figure(fig, run_dir / "win_rates.png")


def _save_figure(fig, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    with atomic_output(path, suffix=".png") as tmp:  # matplotlib picks the format by extension
        fig.savefig(tmp, dpi=100)
    plt.close(fig)


# -- entry points -----------------------------------------------------------------------------------------
def start_run(config: TrainConfig, command: str) -> Path:
    import yaml

    import mancala_envs

    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    run_dir = Path(config.runs_dir) / f"{config.name or config.env_id}-{stamp}"
    suffix = 1
    while run_dir.exists():
        suffix += 1
        run_dir = Path(config.runs_dir) / f"{config.name or config.env_id}-{stamp}-{suffix}"
    run_dir.mkdir(parents=True)
    write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    write_text_atomic(run_dir / "command.txt", command + "\n")
    meta = {"package": "mancala-envs", "version": mancala_envs.__version__, "created": stamp,
            "python": sys.version.split()[0]}
    try:
        import torch

        meta["torch"] = torch.__version__
    except ImportError:  # pragma: no cover
        pass
    write_text_atomic(run_dir / "meta.json", json.dumps(meta, indent=1) + "\n")
    return run_dir


def resume_run(run_dir: Path) -> tuple[TrainConfig, RunState]:
    import yaml

    config_file = run_dir / "config.yaml"
    if not config_file.is_file():
        raise ConfigError(f"{str(run_dir)!r} is not a run folder: it has no config.yaml")
    config = config_from_dict(yaml.safe_load(config_file.read_text(encoding="utf-8")))
    state_file = run_dir / "checkpoints" / "state.json"
    state = RunState()
    if state_file.is_file():
        try:
            state = RunState(**json.loads(state_file.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, TypeError) as err:
            raise ConfigError(f"{str(state_file)!r} is corrupt ({err}); the run cannot resume") from None
    if state.steps and not (run_dir / "checkpoints" / "latest.zip").is_file():
        raise ConfigError(f"{str(run_dir)!r} has a checkpoint state but no checkpoints/latest.zip")
    remove_stale_temporaries(run_dir)  # a writer killed mid-file (the run being resumed) leaves one
    return config, state
