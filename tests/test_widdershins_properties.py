"""Property tests of Widdershins over both endings (hypothesis): conservation, mask, seeds,
JSON round trips, clones, mover-relative observation, returns."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import IllegalActionError

EXAMPLES = 40
MAX_PLIES = 300
games = st.sampled_from(["widdershins-v0", "widdershins-parlett-v0"])
choices = st.lists(st.integers(0, 10_000), max_size=120)
seeds = st.integers(0, 2**32 - 1)


def play(game, choices, seed):
    state = game.new_state(seed)
    ply = 0
    while not state.is_terminal() and ply < MAX_PLIES:
        legal = state.legal_actions()
        k = choices[ply] if ply < len(choices) else ply * 7919 + 13
        action = legal[k % len(legal)]
        yield ply, state, action
        state.apply(action)
        ply += 1
    yield ply, state, None


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_cards_are_conserved_and_unique(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, _ in play(game, choices, seed):
        assert game.conserved_total(state) == 52
        cards = [c for s in state.to_json()["stacks"] for c in s]
        assert len(cards) == len(set(cards))
        reds = sum(c[-1] in "DH" for c in cards)
        south = state.to_json()["south_colour"]
        assert game.cards_in_play(state) == ([reds, len(cards) - reds] if south == "red" else [len(cards) - reds, reds])


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_action_mask_equals_legal_actions(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, _ in play(game, choices, seed):
        mask = state.action_mask()
        legal = state.legal_actions()
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        assert (len(legal) == 0) == state.is_terminal()
        assert (24 in legal) == (not any(a < 24 for a in legal)) or state.is_terminal()
        illegal = [a for a in range(game.num_actions) if a not in legal]
        if illegal and not state.is_terminal():
            before = state.to_json()
            with pytest.raises(IllegalActionError):
                state.apply(illegal[ply % len(illegal)])
            assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_same_seed_same_game(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    twin = mancala_envs.make_game(env_id).new_state(seed)
    for ply, state, action in play(game, choices, seed):
        assert state.to_json() == twin.to_json(), f"ply {ply}"
        if action is not None:
            twin.apply(action)


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_json_round_trip_at_every_ply(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, _ in play(game, choices, seed):
        payload = state.to_json()
        again = game.state_from_json(json.loads(json.dumps(payload)))
        assert again == state and again.to_json() == payload, f"ply {ply}"


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_clone_is_independent(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, action in play(game, choices, seed):
        if action is None:
            break
        before = state.to_json()
        twin = state.clone()
        twin.apply(action)
        assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_observation_is_mover_relative(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, _ in play(game, choices, seed):
        payload = state.to_json()
        if state.is_terminal() or payload["first_move"]:
            continue
        # the mirror: rows swapped, seats swapped, colours swapped
        mirror = {
            "stacks": payload["stacks"][6:] + payload["stacks"][:6],
            "to_move": 1 - payload["to_move"],
            "south_colour": "black" if payload["south_colour"] == "red" else "red",
            "first_move": False,
        }
        twin = game.state_from_json(mirror)
        assert twin.legal_actions() == state.legal_actions()
        for p in (0, 1):
            assert np.array_equal(twin.observation(1 - p), state.observation(p)), f"ply {ply} player {p}"


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_returns_zero_until_the_end_then_follow_the_scores(env_id, choices, seed):
    game = mancala_envs.make_game(env_id)
    for ply, state, action in play(game, choices, seed):
        if action is not None:
            assert state.returns() == [0.0, 0.0]
    if state.is_terminal():
        a, b = state.scores()
        assert min(a, b) == 0 and state.returns() == [float(np.sign(a - b)), float(np.sign(b - a))]
