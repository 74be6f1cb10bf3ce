"""Yes/no options and number options refuse each other's values alike, in Python and on the command line."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.cli import main
from mancala_envs.core.errors import InvalidOptionError


@pytest.mark.parametrize("value", [0, 1, 1.0, np.int64(1), "yes", "1", None])
def test_a_yes_no_option_takes_only_true_or_false(value):
    with pytest.raises(InvalidOptionError, match=r"capture must be true or false"):
        mancala_envs.make_game("kalah-v0", capture=value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_a_number_option_refuses_true_and_false(value):
    with pytest.raises(InvalidOptionError, match=r"pits must be an integer from 1 to 16"):
        mancala_envs.make_game("kalah-v0", pits=value)


def test_numbers_given_to_a_yes_no_option_say_why():
    with pytest.raises(InvalidOptionError, match=r"takes True or False, not the number 1"):
        mancala_envs.make_game("kalah-v0", capture=1)


def test_true_and_false_and_numpy_bools_are_kept_as_bools():
    assert mancala_envs.make_game("kalah-v0", capture=False).options["capture"] is False
    assert mancala_envs.make_game("kalah-v0", capture=np.bool_(False)).options["capture"] is False


@pytest.mark.parametrize("word, value", [("true", True), ("no", False), ("off", False), ("True", True)])
def test_the_command_line_reads_yes_no_words(word, value, capsys):
    assert main(["show", "kalah-v0", f"capture={word}"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("capture "))
    assert line.split()[1] == str(value)


@pytest.mark.parametrize("argv, message", [
    (["show", "kalah-v0", "capture=1"], "capture must be true or false"),
    (["show", "kalah-v0", "pits=true"], "pits must be an integer from 1 to 16"),
])
def test_the_command_line_refuses_the_other_kind(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err
