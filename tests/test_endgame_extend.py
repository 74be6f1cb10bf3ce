"""A larger endgame database built on top of a smaller cached one equals one built from nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import endgame


def test_a_build_extends_the_largest_sound_smaller_table_in_the_cache(tmp_path):
    game = mancala_envs.make_game("kalah-irving2000-v0", pits=3, seeds=3)
    whole = endgame.build(game, 12, threads=2)
    endgame.load_or_build(game, 7, folder=tmp_path)
    endgame.load_or_build(game, 9, folder=tmp_path)
    extended = endgame.load_or_build(game, 12, folder=tmp_path)
    assert not extended.loaded
    assert np.array_equal(extended.tables.values, whole.values)
    meta = json.loads(next(tmp_path.glob("*-12seeds-*.json")).read_text())
    assert meta["extended_from"] == 9
    assert endgame.load_or_build(game, 12, folder=tmp_path).loaded


def test_a_corrupt_smaller_table_is_not_extended(tmp_path):
    game = mancala_envs.make_game("kalah-v0", pits=2, seeds=3)
    endgame.load_or_build(game, 6, folder=tmp_path)
    data = next(tmp_path.glob("*-6seeds-*.npy"))
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0x01  # a flipped value: the checksum no longer matches
    data.write_bytes(bytes(raw))
    extended = endgame.load_or_build(game, 9, folder=tmp_path)
    assert np.array_equal(extended.tables.values, endgame.build(game, 9, threads=1).values)
    assert json.loads(next(tmp_path.glob("*-9seeds-*.json")).read_text())["extended_from"] is None


def test_a_table_only_extends_a_smaller_one_of_its_own_layout():
    game = mancala_envs.make_game("kalah-v0", pits=2, seeds=3)
    small = endgame.build(game, 6, threads=1)
    with pytest.raises(endgame.EndgameError, match="cannot start"):
        endgame.build(game, 6, smaller=small)
    with pytest.raises(endgame.EndgameError, match="cannot start"):
        endgame.build(game, 5, smaller=small)
