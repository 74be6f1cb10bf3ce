"""Opening suites and the paired-results report (mancala_envs.evaluation.openings, .paired_results)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mancala_envs
from mancala_envs.evaluation.openings import OpeningError, OpeningSuite, initial_suite, opening_suite, position_key
from mancala_envs.evaluation.paired_results import (
    DRAW,
    LOSS,
    TRUNCATED,
    WIN,
    PairedResult,
    bootstrap_score_interval,
    score_of,
)
from mancala_envs.agents.search import WIN_BONUS, search


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_a_suite_is_seeded_distinct_and_playable(env_id):
    suite = opening_suite(env_id, 30, seed=3)
    again = opening_suite(env_id, 30, seed=3)
    assert suite.openings == again.openings
    assert opening_suite(env_id, 30, seed=4).openings != suite.openings
    keys = [position_key(suite.start(i)) for i in range(len(suite))]
    assert len(set(keys)) == 30  # no duplicate openings
    dealt = suite.game.new_state(0) != suite.game.new_state(1)
    for i in range(len(suite)):
        state = suite.start(i)
        assert not state.is_terminal() and not state.is_truncated()
        assert len(suite.openings[i].actions) == 0 if dealt else 2 <= len(suite.openings[i].actions) <= 4


def test_dealt_games_draw_a_deal_per_opening():
    suite = opening_suite("rondell-v0", 20, seed=1)  # the default for a dealt game: the deal alone
    assert len({o.deal_seed for o in suite.openings}) == 20
    assert all(o.actions == () for o in suite.openings) and suite.plies == (0, 0)
    assert suite.label().startswith("20 openings of deals")
    with_plies = opening_suite("rondell-v0", 20, plies=(1, 3), seed=1)
    assert all(1 <= len(o.actions) <= 3 for o in with_plies.openings)
    with pytest.raises(OpeningError, match="not dealt"):
        opening_suite("kalah-v0", 5, plies=(0, 0))


def test_the_same_seed_gives_the_same_deal_and_plies_as_a_fresh_replay():
    suite = opening_suite("widdershins-v0", 5, plies=(1, 4), seed=9)
    game = mancala_envs.make_game("widdershins-v0")
    for opening in suite.openings:
        state = game.new_state(opening.deal_seed)
        for action in opening.actions:
            state.apply(action)
        assert state == opening.state(game)


def test_balanced_suites_leave_out_decided_openings():
    game = mancala_envs.make_game("kalah-v0", pits=4, seeds=3)
    suite = opening_suite(game, 20, plies=(3, 6), seed=2, balanced=2, max_margin=3)
    for i in range(len(suite)):
        value = abs(search(suite.start(i), depth=2).value)
        assert value < WIN_BONUS / 2 and value <= 3
    unfiltered = opening_suite(game, 60, plies=(3, 6), seed=2)
    values = [abs(search(unfiltered.start(i), depth=2).value) for i in range(len(unfiltered))]
    assert max(values) > 3  # the filter had something to leave out


def test_a_suite_round_trips_through_json_and_checks_its_positions():
    suite = opening_suite("afrika-v0", 10, seed=5)
    payload = json.loads(json.dumps(suite.to_json()))
    assert {"env_id", "options", "n", "seed", "plies", "balanced", "openings"} <= set(payload)
    assert OpeningSuite.from_json(payload).openings == suite.openings
    payload["openings"][3]["actions"] = payload["openings"][4]["actions"]
    with pytest.raises(OpeningError, match="opening 3"):
        OpeningSuite.from_json(payload)
    with pytest.raises(OpeningError, match="not an opening suite"):
        OpeningSuite.from_json({"env_id": "kalah-v0"})


def test_too_few_distinct_openings_is_a_clear_error():
    with pytest.raises(OpeningError, match="found only .* distinct openings"):
        opening_suite("kalah-v0", 50, plies=(1, 1), pits=2)
    for bad in ({"n": 0}, {"plies": (3, 1)}, {"seed": -1}, {"balanced": 0}):
        with pytest.raises(OpeningError):
            opening_suite("kalah-v0", **{"n": 5, **bad})


def test_the_initial_suite_is_labelled_as_such():
    suite = initial_suite("kalah-v0", pairs=3)
    assert suite.initial_only and len(suite) == 3 and set(suite.openings) == {suite.openings[0]}
    assert suite.openings[0].actions == ()
    assert "initial position only" in suite.label() and suite.spec()["initial_only"] is True
    dealt = initial_suite("rondell-v0", pairs=3, seed=1)
    assert len({o.deal_seed for o in dealt.openings}) == 3 and "new deal" in dealt.label()


# -- the report ------------------------------------------------------------------------------------
def synthetic(rate: float, openings: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.where(rng.random((openings, 2)) < rate, WIN, LOSS).astype(np.int8)


def test_the_bootstrap_interval_covers_the_rate_and_narrows_with_more_openings():
    covered = 0
    for seed in range(40):
        lo, hi = bootstrap_score_interval(synthetic(0.7, 100, seed), seed=seed)
        covered += lo <= 0.7 <= hi
    assert covered >= 34  # a 95% interval: at most a few misses in 40
    narrow = bootstrap_score_interval(synthetic(0.7, 400, 1))
    wide = bootstrap_score_interval(synthetic(0.7, 25, 1))
    assert narrow[1] - narrow[0] < 0.6 * (wide[1] - wide[0])


def test_scores_count_draws_as_halves_and_leave_truncations_out():
    outcomes = np.array([[WIN, DRAW], [LOSS, TRUNCATED]], dtype=np.int8)
    assert score_of(outcomes) == pytest.approx(1.5 / 3)
    assert score_of(np.array([[TRUNCATED, TRUNCATED]])) is None
    assert bootstrap_score_interval(np.array([[TRUNCATED, TRUNCATED]])) == [None, None]


def test_the_report_has_exactly_the_agreed_keys_and_per_seat_counts_add_up():
    suite = opening_suite("kalah-v0", 6, seed=1)
    outcomes = np.array([[WIN, LOSS], [WIN, DRAW], [LOSS, LOSS], [WIN, WIN], [DRAW, TRUNCATED], [WIN, LOSS]],
                        dtype=np.int8)
    games = [(0, (i, seat)) for i in range(6) for seat in (0, 1)]
    result = PairedResult("a", "b", suite, outcomes, np.zeros((6, 2)), games)
    report = result.report()
    keys = {"games", "distinct_games", "score", "score_ci", "wins", "draws", "losses"}
    assert set(report) == keys | {"by_seat", "openings"}
    assert [set(block) for block in report["by_seat"]] == [keys, keys]
    for key in ("games", "wins", "draws", "losses", "distinct_games"):
        assert report[key] == sum(block[key] for block in report["by_seat"])
    assert (report["games"], report["wins"], report["draws"], report["losses"]) == (12, 5, 2, 4)
    assert report["openings"] == suite.to_json()
    assert "score" in result.summary() and "distinct games 12 of 12" in result.summary()
