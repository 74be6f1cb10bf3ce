"""Evaluation of a learner: seat-swapped games against agent specs, the ladder, Elo ratings.

``evaluate`` plays the learner against every agent of a list (one row per opponent, the
columns of ``EVAL_FIELDS``); ``ladder_results`` has the agents play each other, the fixed
part of the rating table; ``learner_ratings`` fits Bradley-Terry Elo over both (random = 0).
Training evaluates this way at every ``eval.every`` steps; ``evaluate_saved_model`` is
``mancala eval``: a model file or run folder against any agents, with the rows and ratings
written as ``eval-<time>.csv`` and ``.json`` (atomically).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from mancala_envs.agents import make_agent, play_match
from mancala_envs.agents.policy import PolicyAgent, resolve_model_path
from mancala_envs.agents.ratings import PairResult, Ratings, bootstrap, bradley_terry, wilson_interval
from mancala_envs.core.files import write_text_atomic
from mancala_envs.core.game import Game
from mancala_envs.registry import make_game, parse_options

from .config import ConfigError
from .run_folder import read_saved_config, run_folder_of

EVAL_FIELDS = [
    "step", "opponent", "games", "wins", "draws", "losses", "truncated", "win_rate", "win_rate_low",
    "win_rate_high", "wins_as_player_0", "games_as_player_0", "wins_as_player_1", "games_as_player_1",
    "learner_elo",
]

LEARNER = "learner"  # the learner's name in the rows' ratings


def evaluate(game: Game, learner, specs: list[str], games: int, seed: int, step: int) -> list[dict[str, Any]]:
    """Seat-swapped games of the learner against every ladder agent; one row per opponent."""
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


def ladder_results(game: Game, specs: list[str], games: int, seed: int) -> list[list[Any]]:
    """Every pair of ladder agents plays ``games`` games: the fixed part of the rating table."""
    if games < 1:
        return []
    pairs = []
    for i, a in enumerate(specs):
        for j in range(i + 1, len(specs)):
            b = specs[j]
            result = play_match(game, make_agent(a, seed=seed + i), make_agent(b, seed=seed + j), games=games,
                                seed=seed + 31 * i + j, workers=None)
            pairs.append([a, b, result.wins_a, result.wins_b, result.draws])
    return pairs


def learner_ratings(ladder_pairs: list[list[Any]], rows: list[dict[str, Any]], intervals: bool = False) -> Ratings:
    """Bradley-Terry Elo of the ladder plus the learner (from ``rows``), random = 0."""
    pairs = [PairResult(*p) for p in ladder_pairs]
    pairs += [PairResult(LEARNER, r["opponent"], r["wins"], r["losses"], r["draws"]) for r in rows]
    return bootstrap(pairs, samples=200) if intervals else bradley_terry(pairs)


def evals_csv(rows: list[dict[str, Any]]) -> str:
    """``rows`` as CSV text with the columns of ``EVAL_FIELDS`` (a missing value left empty)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EVAL_FIELDS)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: row.get(k, "") for k in EVAL_FIELDS})
    return buffer.getvalue()


# -- mancala eval ----------------------------------------------------------------------------------
@dataclass
class SavedModelEvaluation:
    """The outcome of ``evaluate_saved_model`` and the files it wrote."""

    rows: list[dict[str, Any]]
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


def evaluate_saved_model(model: str | Path, against: list[str], games: int, seed: int, ladder_games: int,
                         env_id: str | None = None, game_options: list[str] | None = None,
                         out_dir: Path | None = None, echo: Callable[[str], None] = print) -> SavedModelEvaluation:
    """A model file or run folder against the ``against`` agents (``random`` always among them).

    ``games`` seat-swapped games per opponent; the opponents play each other ``ladder_games``
    games per pair for their ratings. Writes ``eval-<time>.csv`` (the columns of
    ``EVAL_FIELDS``) and ``.json`` (rows, ratings, ladder) to ``out_dir``, by default the run
    folder or the model's folder. ``echo`` gets a line before the games start.
    """
    model_path = resolve_model_path(model)
    run_dir = run_folder_of(Path(model))
    env_id, options = game_of_model(model, run_dir, env_id, game_options or [])
    game = make_game(env_id, **options)
    learner = PolicyAgent(model_path, name=LEARNER)
    learner.check_game(game)
    specs = list(dict.fromkeys(["random", *against]))  # random anchors the ratings
    echo(f"evaluating {model_path} on {env_id}: {games} games against each of {', '.join(specs)}")
    rows = evaluate(game, learner, specs, games, seed, step=0)
    ladder = ladder_results(game, specs, ladder_games, seed + 5)
    ratings = learner_ratings(ladder, rows, intervals=True).as_dict()

    out_dir = out_dir or run_dir or model_path.parent
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    csv_path, json_path = out_dir / f"eval-{stamp}.csv", out_dir / f"eval-{stamp}.json"
    write_text_atomic(csv_path, evals_csv(rows))
    payload = {"model": str(model_path), "env_id": env_id, "options": options, "games": games,
               "seed": seed, "rows": rows, "ratings": ratings, "ladder_pairs": ladder}
    write_text_atomic(json_path, json.dumps(payload, indent=1) + "\n")
    return SavedModelEvaluation(rows, ratings, csv_path, json_path)
