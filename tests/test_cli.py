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
    assert result["games"] == 6
    assert result["wins_a"] + result["wins_b"] + result["draws"] + result["truncated"] == 6
    assert result["games_a_by_seat"] == [3, 3]


def test_match_is_reproducible(capsys):
    main(["match", "kalah-bidirectional-v0", "random", "random", "--games", "4", "--json"])
    first = capsys.readouterr().out
    main(["match", "kalah-bidirectional-v0", "random", "random", "--games", "4", "--json"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "args, message",
    [
        (["show", "kalah-v7"], "unknown env id 'kalah-v7'"),
        (["show", "kalah-v0", "pits=zero"], "pits must be an integer from 1 to 16"),
        (["show", "kalah-v0", "holes=3"], "unknown option 'holes'; valid options are: pits"),
        (["match", "kalah-v0", "wizard", "random"], "unknown agent 'wizard'; known agents: alphabeta, greedy, human"),
        (["match", "kalah-v0", "random", "random", "--games", "0"], "--games must be at least 1"),
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
