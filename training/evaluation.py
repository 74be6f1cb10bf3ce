"""Evaluation of a learner over opening suites: rows per opponent, the ladder, Elo ratings.

Every evaluation plays the learner against each ladder agent over an opening suite
(``mancala_envs.evaluation.openings``), each opening from both seats, and reports the score (win
1, draw 1/2) with a 95% interval bootstrapped over openings, per seat too, and the number of
distinct games (``mancala_envs.evaluation.paired_results``).

* ``evaluate`` gives one row per opponent (the columns of ``EVAL_FIELDS``); a row says
  whether the opponent was in the training pool (``pool.baselines``): beating an opponent
  you trained against is not general strength.
* ``ladder_results`` has the ladder agents play each other over their own suite, the fixed
  part of the rating table; ``learner_ratings`` fits Bradley-Terry Elo over both (random = 0),
  with intervals bootstrapped over the openings of each suite.
* ``evaluate_saved_model`` is ``mancala eval``: a model file or run folder against any
  agents, with the rows and ratings written as ``eval-<time>.csv`` and ``.json`` (the suites
  included), atomically. A value-trainer run (``algo: search-bootstrap``) plays its search
  agent ``alphabeta:depth=value.eval_depth,eval=RUN_DIR`` (the agent its own report
  measures), or with ``bare=True`` its bare policy network ``policy:RUN_DIR``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mancala_envs.agents import make_agent
from mancala_envs.evaluation import play_match
from mancala_envs.evaluation.openings import OpeningSuite
from mancala_envs.evaluation.paired_results import PairedResult
from mancala_envs.agents.learned.learned_eval import EVAL_FILE, LearnedPolicyAgent
from mancala_envs.agents.learned.policy import PolicyAgent, resolve_model_path
from mancala_envs.agents.search import AlphaBetaAgent
from mancala_envs.evaluation.progress import Progress
from mancala_envs.evaluation.ratings import Ratings, bootstrap, bradley_terry
from mancala_envs.core.files import write_text_atomic
from mancala_envs.core.game import Game
from mancala_envs.registry import make_game, parse_options

from .config import ConfigError
from .run_folder import read_saved_config, run_folder_of

EVAL_FIELDS = [
    "step", "opponent", "in_training_pool", "games", "distinct_games", "wins", "draws", "losses", "truncated",
    "score", "score_low", "score_high", "score_as_player_0", "score_as_player_1", "learner_elo",
]

LEARNER = "learner"  # the learner's name in the rows' ratings


def evaluate(game: Game, learner, specs: list[str], suite: OpeningSuite, step: int,
             pool: list[str] = (), progress: Progress | None = None, backend: str = "local",
             address: str | None = None) -> tuple[list[dict[str, Any]], list[PairedResult]]:
    """The learner against every ladder agent over ``suite``: one row per opponent, and the matches.

    ``pool``: the specs the learner trained against, marked in the rows. ``progress`` counts the games.
    ``backend``/``address``: where the games are played (``play_match``: local processes or Ray).
    """
    rows, matches = [], []
    for k, spec in enumerate(specs):  # a spec, or an agent object (make_agent takes both)
        opponent = make_agent(spec, seed=suite.seed + k)
        base = progress.done if progress else 0
        tick = (lambda done: progress.update(base + done, f"against {opponent.name}")) if progress else None
        result = play_match(game, learner, opponent, suite, workers=None, progress=tick, backend=backend,
                            address=address)
        matches.append(result)
        rows.append(evaluation_row(result, opponent.name, step, opponent.name in pool))
    return rows, matches


def evaluation_row(result: PairedResult, opponent: str, step: int, in_training_pool: bool) -> dict[str, Any]:
    """One row of ``evals.csv`` from a match of the learner (agent A) against ``opponent``."""
    report = result.report()
    games, wins, draws, losses = result.counts()
    low, high = report["score_ci"]
    return {
        "step": step, "opponent": opponent, "in_training_pool": in_training_pool, "games": games,
        "distinct_games": report["distinct_games"], "wins": wins, "draws": draws, "losses": losses,
        "truncated": games - wins - draws - losses, "score": report["score"], "score_low": low, "score_high": high,
        "score_as_player_0": report["by_seat"][0]["score"], "score_as_player_1": report["by_seat"][1]["score"],
    }


def ladder_results(game: Game, specs: list[str], suite: OpeningSuite, backend: str = "local",
                   address: str | None = None) -> list[PairedResult]:
    """Every pair of ladder agents over ``suite``: the fixed part of the rating table."""
    return [play_match(game, make_agent(a, seed=suite.seed + i), make_agent(b, seed=suite.seed + j), suite,
                       workers=None, backend=backend, address=address)
            for i, a in enumerate(specs) for j, b in enumerate(specs) if i < j]


def learner_ratings(ladder: list[PairedResult], matches: list[PairedResult], intervals: bool = False) -> Ratings:
    """Bradley-Terry Elo of the ladder plus the learner, random = 0 (intervals over openings)."""
    if intervals:
        return bootstrap(ladder + matches, samples=200)
    return bradley_terry([m.pair_result() for m in ladder + matches])


def ladder_to_json(ladder: list[PairedResult]) -> list[dict[str, Any]]:
    """The ladder's outcomes, for a checkpoint: ``ladder_from_json`` rebuilds it over the same suite."""
    return [{"a": m.agent_a, "b": m.agent_b, "outcomes": m.outcomes.tolist(), "score_diff": m.score_diff.tolist()}
            for m in ladder]


def ladder_from_json(saved: list[dict[str, Any]], suite: OpeningSuite) -> list[PairedResult]:
    return [PairedResult(m["a"], m["b"], suite, np.array(m["outcomes"], np.int8), np.array(m["score_diff"]),
                         seed=suite.seed) for m in saved]


def evals_csv(rows: list[dict[str, Any]]) -> str:
    """``rows`` as CSV text with the columns of ``EVAL_FIELDS`` (a missing value left empty)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EVAL_FIELDS)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: row.get(k, "") for k in EVAL_FIELDS})
    return buffer.getvalue()


def record_evaluation(rows: list[dict[str, Any]], matches: list[PairedResult], ladder: list[PairedResult],
                      evals: list[dict[str, Any]], csv_path: Path,
                      log: Callable[[str, float], None]) -> tuple[float, str]:
    """A periodic evaluation's bookkeeping, the same for every trainer: the learner's Elo from
    ``ladder`` and ``matches`` on each row, the scores sent to ``log(tag, value)`` (TensorBoard),
    the rows appended to ``evals`` and the whole list rewritten to ``csv_path``. Returns the Elo
    and a one-line summary of the scores."""
    elo = float(learner_ratings(ladder, matches).as_dict()[LEARNER]["elo"])
    for row in rows:
        row["learner_elo"] = elo
        log(f"eval/score_vs_{row['opponent']}", row["score"])
    log("eval/learner_elo", elo)
    evals.extend(rows)
    write_text_atomic(csv_path, evals_csv(evals))
    return elo, ", ".join(f"{r['opponent']} {r['score']:.0%}" for r in rows)


# -- mancala eval ----------------------------------------------------------------------------------
@dataclass
class SavedModelEvaluation:
    """The outcome of ``evaluate_saved_model`` and the files it wrote."""

    rows: list[dict[str, Any]]
    matches: list[PairedResult]  # the learner (agent A) against each opponent, in the rows' order
    ratings: dict[str, dict[str, Any]]  # Ratings.as_dict(), the learner's included
    csv_path: Path
    json_path: Path


def game_of_model(model: str | Path, run_dir: Path | None, env_id: str | None,
                  game_options: list[str]) -> tuple[str, dict[str, Any]]:
    """The game to evaluate ``model`` on: ``env_id`` with ``key=value`` options, else its run folder's."""
    if env_id:
        return env_id, parse_options(env_id, game_options)
    if run_dir is None:
        raise ConfigError(f"{str(model)!r} is not inside a run folder; give the game with --env ID [key=value ...]")
    if game_options:
        raise ConfigError("the game comes from the run's config.yaml; give --env ID to evaluate on another one")
    saved = read_saved_config(run_dir)
    return saved["env_id"], dict(saved.get("options") or {})


def _saved_learner(model: str | Path, run_dir: Path | None, bare: bool):
    """(the agent a saved model plays, the file it plays from, its name for the output): a PPO
    model's policy, an RLlib run's exported policy network, or a value-trainer run's search
    agent (its bare policy network with ``bare``)."""
    saved = read_saved_config(run_dir) if run_dir is not None else {}
    if saved.get("algo") == "search-bootstrap":
        if bare:
            learner, label = LearnedPolicyAgent(run_dir, seed=0), f"policy:{run_dir}"
        else:
            depth = int((saved.get("value") or {}).get("eval_depth", 4))
            learner = AlphaBetaAgent(seed=0, depth=depth, eval=run_dir)
            label = f"alphabeta:depth={depth},eval={run_dir}"
        learner.name = LEARNER
        return learner, run_dir / EVAL_FILE, label
    if saved.get("algo") == "rllib_ppo":  # an RLlib run's network is exported as its evaluation file
        learner = LearnedPolicyAgent(run_dir, seed=0)
        learner.name = LEARNER
        return learner, run_dir / EVAL_FILE, f"policy:{run_dir}"
    if bare:
        raise ConfigError(f"--bare plays the policy network of a value-trainer run (algo: search-bootstrap); "
                          f"{str(model)!r} is a PPO model, whose agent is already its bare policy")
    model_path = resolve_model_path(model)
    return PolicyAgent(model_path, name=LEARNER), model_path, str(model_path)


def evaluate_saved_model(model: str | Path, against: list[str], suite_for: Callable[[Game], OpeningSuite],
                         ladder_openings: int, env_id: str | None = None, game_options: list[str] | None = None,
                         out_dir: Path | None = None, echo: Callable[[str], None] = print,
                         progress: bool = False, backend: str = "local",
                         address: str | None = None, bare: bool = False) -> SavedModelEvaluation:
    """A model file or run folder against the ``against`` agents (``random`` always among them).

    ``suite_for(game)`` gives the opening suite (each opening played from both seats against
    every opponent); the opponents play each other over the first ``ladder_openings`` openings
    of it for their ratings (0: none). Writes ``eval-<time>.csv`` (the columns of
    ``EVAL_FIELDS``) and ``.json`` (rows, per-opponent reports, ratings, the suite) to
    ``out_dir``, by default the run folder or the model's folder. When the model comes from a
    run folder, opponents that were among its ``pool.baselines`` are marked as trained against.
    ``progress`` shows the games played (``mancala_envs.evaluation.progress``) on stderr.
    ``backend``/``address``: where the games are played (local processes or Ray). A
    value-trainer run plays its search agent, or its bare network with ``bare`` (module docstring).
    """
    run_dir = run_folder_of(Path(model))
    learner, model_path, label = _saved_learner(model, run_dir, bare)
    env_id, options = game_of_model(model, run_dir, env_id, game_options or [])
    game = make_game(env_id, **options)
    if isinstance(learner, PolicyAgent):
        learner.check_game(game)
    else:  # a learned evaluation plays only the game and board it was trained on
        learner.evaluation.check_game(game)
    suite = suite_for(game)
    specs = list(dict.fromkeys(["random", *against]))  # random anchors the ratings
    saved = read_saved_config(run_dir) if run_dir else {}
    # a value-trainer run plays no training opponents (its pool section is unused)
    pool = [] if saved.get("algo") == "search-bootstrap" else list(saved.get("pool", {}).get("baselines", {}))
    echo(f"evaluating {label} on {env_id} over {suite.label()} against each of {', '.join(specs)}")
    with Progress(len(specs) * 2 * len(suite), "games", "evaluation", enabled=progress) as bar:
        rows, matches = evaluate(game, learner, specs, suite, step=0, pool=pool, progress=bar, backend=backend,
                                 address=address)
    ladder = ladder_results(game, specs, suite.head(ladder_openings), backend, address) if ladder_openings else []
    ratings = learner_ratings(ladder, matches, intervals=True).as_dict()

    out_dir = out_dir or run_dir or model_path.parent
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    csv_path, json_path = out_dir / f"eval-{stamp}.csv", out_dir / f"eval-{stamp}.json"
    write_text_atomic(csv_path, evals_csv(rows))
    payload = {"model": str(model_path), "env_id": env_id, "options": options, "rows": rows,
               "reports": {row["opponent"]: m.report() for row, m in zip(rows, matches)}, "ratings": ratings,
               "ladder": ladder_to_json(ladder)}
    write_text_atomic(json_path, json.dumps(payload, indent=1) + "\n")
    return SavedModelEvaluation(rows, matches, ratings, csv_path, json_path)
