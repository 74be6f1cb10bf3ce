"""Specs, the arena on several processes, ratings, tournaments and the solve/tournament commands."""

from __future__ import annotations

import argparse
import io
import json

import numpy as np
import pytest

import mancala_envs
from mancala_envs.core.errors import InvalidOptionError
from mancala_envs.agents import AGENT_FACTORIES, AgentSpecError, HumanAgent, RandomAgent, make_agent
from mancala_envs.evaluation import PlayedGame, play_game, play_match
from mancala_envs.evaluation.openings import OpeningError, opening_suite
from mancala_envs.evaluation.paired_results import LOSS, TRUNCATED, WIN, PairedResult
from mancala_envs.cli import solve as solve_command
from mancala_envs.cli import tournament as tournament_command
from mancala_envs.evaluation.ratings import PairResult, bootstrap, bradley_terry
from mancala_envs.evaluation.tournament import round_robin
from mancala_envs.core.errors import MancalaError


def test_specs_build_the_search_agents():
    ab = make_agent("alphabeta:depth=6", seed=0)
    assert ab.depth == 6 and ab.time is None and ab.name == "alphabeta:depth=6"
    assert make_agent("alphabeta:time=0.5").time == 0.5
    m = make_agent("mcts:sims=2000,c=1.4", seed=0)
    assert m.sims == 2000 and m.c == 1.4
    assert make_agent("mcts:time=0.25").time == 0.25
    assert make_agent("alphabeta:depth=2,key=obs").key == "obs"


def test_spec_errors_name_agents_and_keys():
    with pytest.raises(AgentSpecError, match="known agents: alphabeta, greedy, human, hybrid, mcts, policy, random, solver"):
        make_agent("minimax:depth=3")
    with pytest.raises(AgentSpecError, match=r"alphabeta takes depth=<int>, time=<float>, tt_bits=<int>, key=<state\|obs>"):
        make_agent("alphabeta:sims=3")
    with pytest.raises(AgentSpecError, match=r"mcts takes sims=<int>, c=<float>, time=<float>, max_nodes=<int>"):
        make_agent("mcts:depth=3")
    with pytest.raises(AgentSpecError, match="is not a valid int"):
        make_agent("alphabeta:depth=deep")
    with pytest.raises(AgentSpecError, match="depth must be at least 1"):
        make_agent("alphabeta:depth=0")
    with pytest.raises(MancalaError, match="issue 9|no model at"):
        make_agent("policy:runs/no-such-model.zip")
    with pytest.raises(AgentSpecError, match="needs a path"):
        make_agent("policy")
    assert set(AGENT_FACTORIES) >= {"random", "greedy", "alphabeta", "mcts", "solver", "human", "policy"}


def test_human_agent_reads_notation_and_retries():
    game = mancala_envs.make_game("kalah-v0")
    state = game.new_state(0)
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO("?\n9\nfoo\n3\n"), stdout=out)
    action = agent.act(state)
    assert action == game.string_to_action(state, "3")
    text = out.getvalue()
    assert "legal moves: 6, 5, 4, 3, 2, 1" in text and text.count("not a legal move") == 2
    with pytest.raises(EOFError):
        HumanAgent(stdin=io.StringIO(""), stdout=io.StringIO()).act(state)


def test_play_game_reports_the_game_it_played():
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    played = play_game(game, (RandomAgent(1), RandomAgent(2)), seed=0)
    assert isinstance(played, PlayedGame) and played.state.is_terminal() and not played.truncated
    replayed = game.new_state(0)
    for action in played.actions:
        replayed.apply(action)
    assert replayed.scores() == played.scores and replayed.returns() == played.returns
    # a ply cap stops the game as a truncation: zero returns, the points taken so far
    capped = mancala_envs.make_game("kalah-v0", pits=3, seeds=2, max_plies=3)
    cut = play_game(capped, (RandomAgent(1), RandomAgent(2)), seed=0)
    assert cut.truncated and cut.returns == [0.0, 0.0] and len(cut.actions) == 3


def test_play_game_names_an_agent_that_plays_an_illegal_move():
    class Stubborn:
        name = "stubborn"

        def act(self, state):
            return 99

    with pytest.raises(MancalaError, match="agent 'stubborn' chose action 99"):
        play_game(mancala_envs.make_game("kalah-v0"), (Stubborn(), RandomAgent(0)), seed=0)


def test_match_on_two_processes_equals_one():
    game = mancala_envs.make_game("kalah-v0", pits=4)
    one = play_match(game, make_agent("greedy", seed=1), RandomAgent(seed=2), openings=6, seed=3, workers=1)
    two = play_match(game, make_agent("greedy", seed=1), RandomAgent(seed=2), openings=6, seed=3, workers=2)
    assert one.games_played == two.games_played and one.report() == two.report()
    assert [one.counts(seat)[0] for seat in (0, 1)] == [6, 6]
    games, wins, draws, losses = one.counts()
    assert [sum(one.counts(seat)[k] for seat in (0, 1)) for k in range(4)] == [games, wins, draws, losses]
    assert wins + draws + losses + int((one.outcomes == TRUNCATED).sum()) == 12


def test_each_opening_is_played_from_both_seats():
    suite = opening_suite("rondell-v0", 4, seed=5)
    result = play_match("rondell-v0", RandomAgent(), RandomAgent(), suite, workers=1)
    for i, opening in enumerate(suite.openings):
        for seat in (0, 1):
            deal, actions = result.games_played[2 * i + seat]
            assert deal == opening.deal_seed and actions[:len(opening.actions)] == opening.actions


def test_match_rejects_bad_counts():
    with pytest.raises(OpeningError, match="openings"):
        play_match("kalah-v0", RandomAgent(), RandomAgent(), openings=0)
    with pytest.raises(ValueError, match="workers"):
        play_match("kalah-v0", RandomAgent(), RandomAgent(), openings=2, workers=0)
    with pytest.raises(InvalidOptionError, match=r"options can only be given with an env id, not with a Game object \(got games\)"):
        play_match(mancala_envs.make_game("kalah-v0"), RandomAgent(), RandomAgent(), games=4)
    with pytest.raises(ValueError, match="suite is of kalah-v0"):
        play_match(mancala_envs.make_game("kalah-v0", pits=4), RandomAgent(), RandomAgent(),
                   opening_suite("kalah-v0", 2))


def synthetic_match(a: str, b: str, p_win: float, suite, rng) -> PairedResult:
    """A's results over ``suite``: each game won with probability ``p_win``."""
    outcomes = np.where(rng.random((len(suite), 2)) < p_win, WIN, LOSS).astype(np.int8)
    return PairedResult(a, b, suite, outcomes, np.zeros((len(suite), 2)))


def test_bradley_terry_recovers_a_known_ordering():
    # true Elo: random 0, weak 200, mid 500, strong 900; 400 games per pair over 200 openings
    true = {"random": 0.0, "weak": 200.0, "mid": 500.0, "strong": 900.0}
    names = list(true)
    rng = np.random.default_rng(0)
    suite = opening_suite("kalah-v0", 200, plies=(2, 6))
    matches = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
            matches.append(synthetic_match(a, b, p, suite, rng))
    r = bootstrap(matches, names, samples=100, seed=1)
    elo = dict(zip(r.names, r.elo))
    assert elo["random"] == 0.0
    assert elo["random"] < elo["weak"] < elo["mid"] < elo["strong"]
    for name in names[1:]:
        assert abs(elo[name] - true[name]) < 80, (name, elo[name])
        k = r.names.index(name)
        assert r.low[k] <= elo[name] <= r.high[k]
    # the anchor falls back to the first agent when random is absent
    assert bradley_terry([PairResult("x", "y", 30, 10, 0)]).anchor == "x"


def test_bradley_terry_stays_finite_on_a_clean_sweep():
    r = bradley_terry([PairResult("random", "ab", 0, 50, 0)])
    assert np.isfinite(r.elo).all() and r.elo[1] > 400


def _run(add_parser, argv):
    parser = argparse.ArgumentParser(prog="mancala")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args, extra = parser.parse_known_args(argv)
    args.options = extra
    return args.func(args)


def test_solve_command_json(capsys):
    assert _run(solve_command.add_parser, ["solve", "kalah-irving2000-v0", "pits=3", "seeds=3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 2 and out["exact"] is True
    assert {"value", "best_action", "nodes", "seconds"} <= set(out)
    assert _run(solve_command.add_parser, ["solve", "kalah-v0", "pits=2", "seeds=2"]) == 0
    assert "value (player_0 - player_1 under perfect play)" in capsys.readouterr().out
    with pytest.raises(MancalaError, match="unknown option 'pots'"):
        _run(solve_command.add_parser, ["solve", "kalah-v0", "pots=3"])


def test_tournament_command_writes_table_and_files(tmp_path, capsys):
    argv = ["tournament", "kalah-v0", "--agents", "random", "greedy", "alphabeta:depth=2", "pits=3",
            "--games", "6", "--out", str(tmp_path), "--bootstrap", "20", "--workers", "1"]
    assert _run(tournament_command.add_parser, argv) == 0
    captured = capsys.readouterr()
    assert "Elo" in captured.out and "alphabeta:depth=2" in captured.out
    assert "18/18 games" in captured.err  # the progress bar
    data = json.loads((tmp_path / "tournament-kalah-v0.json").read_text())
    assert data["options"]["pits"] == 3 and data["ratings"]["random"]["elo"] == 0.0
    csv_lines = (tmp_path / "tournament-kalah-v0.csv").read_text().splitlines()
    assert csv_lines[0].startswith("agent,elo,elo_low,elo_high") and len(csv_lines) == 4
    assert (tmp_path / "tournament-kalah-v0.png").stat().st_size > 1000
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    with pytest.raises(MancalaError, match="at least 2 agent specs"):
        _run(tournament_command.add_parser, ["tournament", "kalah-v0", "--agents", "random"])
    with pytest.raises(AgentSpecError, match="known agents"):
        _run(tournament_command.add_parser, ["tournament", "kalah-v0", "--agents", "random", "nobody"])


def test_round_robin_per_seat_counts():
    result = round_robin("kalah-v0", ["random", "greedy"], openings=5, seed=2, workers=1, bootstrap_samples=10, pits=3)
    rows = {r.name: r for r in result.rows}
    for r in rows.values():
        assert [seat["games"] for seat in r.by_seat] == [5, 5] and r.results["games"] == 10
        for key in ("wins", "draws", "losses"):
            assert r.results[key] == sum(seat[key] for seat in r.by_seat)
        for block in (r.results, *r.by_seat):
            lo, hi = block["score_ci"]
            assert lo <= block["score"] <= hi
    assert rows["random"].results["wins"] == rows["greedy"].results["losses"]
    assert rows["random"].by_seat[0]["wins"] == result.matches[0].counts(0)[1]
    assert "random vs greedy" in result.table() and "10 of 10 games distinct" in result.table()
    assert result.to_dict()["results"][0]["games"] == 10
