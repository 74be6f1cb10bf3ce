"""The ``mancala`` command, run as a user runs it (a subprocess of the installed script)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

import mancala_envs
from mancala_envs.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("mancala") or f"{sys.executable} -m mancala_envs.cli"
    command = exe.split() + list(args)
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_list_prints_every_id_with_a_description():
    out = run("list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == mancala_envs.list_envs()
    assert all(len(line.split()) > 3 for line in lines)


def test_show_prints_options_spaces_and_overrides(capsys):
    assert main(["show", "kalah-v0", "pits=4", "seeds=3"]) == 0
    text = capsys.readouterr().out
    assert "pits                     4" in text and "<- overridden" in text
    assert "observation: Box(0, 24, (11,), float32)" in text
    assert "actions:     Discrete(4)" in text


def test_match_json(capsys):
    assert main(["match", "kalah-v0", "greedy", "random", "pits=4", "--games", "6", "--seed", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    keys = {"games", "distinct_games", "score", "score_ci", "wins", "draws", "losses"}
    assert set(result) == keys | {"by_seat", "openings"}
    assert [set(seat) for seat in result["by_seat"]] == [keys, keys]
    assert result["games"] == 6 and [seat["games"] for seat in result["by_seat"]] == [3, 3]
    assert result["wins"] + result["draws"] + result["losses"] <= 6
    assert result["score_ci"][0] <= result["score"] <= result["score_ci"][1]
    assert result["openings"]["n"] == 3 and len(result["openings"]["openings"]) == 3


def test_deterministic_agents_over_openings_play_distinct_games(capsys):
    assert main(["match", "kalah-v0", "alphabeta:depth=3", "greedy", "--games", "100", "--seed", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 100 and result["distinct_games"] >= 90


def test_a_saved_suite_replays_the_same_evaluation(tmp_path, capsys):
    argv = ["match", "kalah-v0", "greedy", "alphabeta:depth=2", "pits=4", "--openings", "5", "--seed", "2", "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    (tmp_path / "report.json").write_text(first)
    assert main(argv[:5] + ["--suite", str(tmp_path / "report.json"), "--seed", "2", "--json"]) == 0
    assert capsys.readouterr().out == first
    assert main(["match", "kalah-v0", "greedy", "random", "--suite", str(tmp_path / "report.json")]) == 2
    assert "not of kalah-v0 with these options" in capsys.readouterr().err


def test_evaluating_commands_take_the_suite_options(tmp_path, capsys):
    suite_flags = ["pits=3", "--openings", "3", "--opening-plies", "1-2"]
    assert main(["match", "kalah-v0", "greedy", "random", *suite_flags, "--json"]) == 0
    match = json.loads(capsys.readouterr().out)
    assert main(["tournament", "kalah-v0", "--agents", "greedy", "random", *suite_flags, "--out", str(tmp_path),
                 "--no-plot", "--no-progress", "--json"]) == 0
    tournament = json.loads(capsys.readouterr().out)
    for suite in (match["openings"], tournament["openings"]):
        assert suite["n"] == 3 and suite["plies"] == [1, 2]
    (pair,) = tournament["results"]
    assert set(pair) == {"agent_a", "agent_b"} | set(match) - {"openings"}
    assert (pair["agent_a"], pair["agent_b"]) == ("greedy", "random") and pair["games"] == 6


@pytest.mark.parametrize(
    "args, message",
    [
        (["show", "kalah-v7"], "unknown env id 'kalah-v7'"),
        (["show", "kalah-v0", "pits=zero"], "pits must be an integer from 1 to 16"),
        (["show", "kalah-v0", "holes=3"], "unknown option 'holes'; valid options are: pits"),
        (["match", "kalah-v0", "wizard", "random"], "unknown agent 'wizard'; known agents: alphabeta, greedy, human"),
        (["match", "kalah-v0", "random", "random", "--games", "0"], "--games must be at least 1"),
        (["match", "kalah-v0", "random", "random", "--games", "7"], "--games must be even"),
        (["match", "kalah-v0", "random", "random", "--openings", "0", "--games", "3"], "--games must be even"),
        (["match", "kalah-v0", "random", "random", "--games", "8", "--openings", "5"], "disagree"),
        (["match", "kalah-v0", "random", "random", "--opening-plies", "two"], "--opening-plies must be LO-HI"),
        (["match", "kalah-v0", "random", "random", "--openings", "-1"], "--openings must be 0"),
    ],
)
def test_bad_input_exits_2_with_a_message(args, message):
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_stray_argument_is_refused():
    out = run("list", "extra")
    assert out.returncode == 2 and "unrecognized arguments: extra" in out.stderr


@pytest.mark.parametrize("command", [["match", "kalah-v0", "a", "b"], ["tournament", "kalah-v0", "--agents", "a", "b"],
                                     ["eval", "run"]])
def test_every_evaluating_command_takes_openings_and_opening_plies(command):
    from mancala_envs.cli import build_parser

    args = build_parser().parse_args(command + ["--openings", "7", "--opening-plies", "1-3", "--balanced", "2"])
    assert (args.openings, args.opening_plies, args.balanced) == (7, "1-3", 2)


def test_version():
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"mancala-envs {mancala_envs.__version__}"


def test_a_closed_pipe_ends_quietly():
    exe = shutil.which("mancala") or f"{sys.executable} -m mancala_envs.cli"
    # `head -1` closes the pipe after one line; the listing is longer than the pipe's first read
    out = subprocess.run(f"{exe} list | head -1; {exe} show widdershins-v0 | head -1", shell=True,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr, out.stderr
    assert len(out.stdout.splitlines()) == 2


@pytest.mark.parametrize("suite_flags", [[], ["--openings", "0", "--games", "2"], ["--balanced", "2", "--openings", "2"]])
def test_match_json_keeps_the_game_options_given(suite_flags, tmp_path, capsys):
    argv = ["match", "kalah-v0", "greedy", "random", "pits=4", "seeds=3", "max_plies=500", "--json", "--no-progress"]
    assert main(argv + (suite_flags or ["--openings", "2"])) == 0
    report = json.loads(capsys.readouterr().out)
    options = report["openings"]["options"]
    assert (options["pits"], options["seeds"], options["max_plies"]) == (4, 3, 500)
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(argv + ["--suite", str(tmp_path / "r.json")]) == 0  # replays on the same game
    assert json.loads(capsys.readouterr().out)["openings"] == report["openings"]


def test_the_sample_afrika_record_replays(capsys):
    from pathlib import Path

    from mancala_envs import make_game, notation

    sample = Path(__file__).resolve().parents[1] / "docs" / "records" / "afrika-v0-sample.txt"
    assert main(["replay", "afrika-v0", str(sample), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["plies"] > 20 and summary["terminal"] is True
    game = make_game("afrika-v0")
    text = sample.read_text()
    assert notation.format(game, notation.parse(game, text).actions) + "\n" == text
