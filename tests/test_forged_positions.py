"""Forged positions: every family's ``state_from_json`` refuses what is impossible.

A real position of every registered id is written with ``to_json`` and then forged: one
count changed (by one, to a negative, to a value past the game's bounds or past the kernel's
32-bit integers), a key added or removed, a value of the wrong type. Each forgery must either
be refused with ``InvalidStateError`` or load as a legal position: its observation inside the
declared observation space for both players, and a random continuation from it keeps the
observation inside that space and the game's conserved total unchanged (a count that wraps
past the integers would leave both).
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import InvalidStateError, make_game

ALL_IDS = mancala_envs.list_envs()

# values a forger writes in place of a count: near the game's bounds and past the kernel's integers
HUGE = [100, 10**6, 2**31 - 1, 2**31, 2**32, 2**63, 2**64]
WRONG_TYPES = [2.5, 2.0, "2", None, True, [], {}, [1, 2]]
UNKNOWN_KEY = "forged_key"


def real_position(game, seed: int, plies: int):
    """A position of ``game`` reached by ``plies`` random moves from the start."""
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    for _ in range(plies):
        if state.is_terminal() or state.is_truncated():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state


def leaves(value, path=()):
    """Every (path, value) of a JSON tree, containers included (the root excluded)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield path + (key,), child
        yield from leaves(child, path + (key,))


def set_at(payload, path, value):
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def delete_at(payload, path):
    target = payload
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]


@st.composite
def forgery(draw, payload: dict):
    """A copy of ``payload`` with one forged change, and a description of it."""
    forged = copy.deepcopy(payload)
    spots = list(leaves(forged))
    path, old = draw(st.sampled_from(spots))
    kind = draw(st.sampled_from(["count", "huge", "type", "add", "remove", "text"]))
    if kind == "count" and isinstance(old, int) and not isinstance(old, bool):
        new = old + draw(st.sampled_from([1, -1, -old - 1, 2, 7]))
    elif kind == "huge":
        new = draw(st.sampled_from(HUGE + [-h for h in HUGE]))
    elif kind == "text" and isinstance(old, str):
        new = old + draw(st.sampled_from(["R", "B", "X", "QH", " "])) if old else draw(st.sampled_from(["R", "X", ""]))
    elif kind == "add":
        if isinstance(old, dict):
            old[UNKNOWN_KEY] = 1
            return forged, f"key {UNKNOWN_KEY!r} added under {path}"
        if isinstance(old, list):
            old.append(draw(st.sampled_from([0, 1, "R", "QH"])))
            return forged, f"entry appended to {path}"
        forged[UNKNOWN_KEY] = old
        return forged, f"key {UNKNOWN_KEY!r} added"
    elif kind == "remove":
        delete_at(forged, path)
        return forged, f"{path} removed"
    else:
        new = draw(st.sampled_from(WRONG_TYPES))
    set_at(forged, path, new)
    return forged, f"{path}: {old!r} -> {new!r}"


def check_legal(game, state, why: str) -> None:
    """``state`` is a position play could continue from without leaving the declared spaces."""
    low, high = game.observation_bounds()
    total = game.conserved_total(state)
    rng = np.random.default_rng(0)
    for ply in range(40):
        for player in (0, 1):
            obs = state.observation(player)
            assert obs.shape == (game.observation_size,), why
            assert np.all(obs >= low) and np.all(obs <= high), f"{why}: observation leaves [{low}, {high}] at ply {ply}"
        assert state.plies >= 0, f"{why}: the ply counter wrapped"
        if total is not None and game.conserved_total(state) is not None:
            assert game.conserved_total(state) == total, f"{why}: the total changed at ply {ply}"
        again = game.state_from_json(json.loads(json.dumps(state.to_json())))
        assert again == state, f"{why}: to_json does not load back as the same position at ply {ply}"
        if state.is_terminal():
            return
        legal = state.legal_actions()
        assert legal, f"{why}: not over, but no legal move"
        state.apply(int(rng.choice(legal)))


@pytest.mark.parametrize("env_id", ALL_IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 3), plies=st.integers(0, 30))
def test_forged_position_is_refused_or_legal(env_id, data, seed, plies):
    game = make_game(env_id)
    payload = json.loads(json.dumps(real_position(game, seed, plies).to_json()))
    forged, why = data.draw(forgery(payload))
    try:
        state = game.state_from_json(forged)
    except InvalidStateError as err:
        assert game.env_id in str(err), f"{why}: the message names the game: {err}"
        return
    check_legal(game, state, f"{env_id}, {why}")
