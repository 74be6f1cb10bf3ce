"""Property tests of Afrika over random option combinations and random games.

Hypothesis draws the options (holes 2..10, stones 1..8, komi, giveaway, target) and a list
of choices; ``play`` turns the choices into a legal game that always stops (once the list
runs out a fixed rule picks the moves; small boards that cycle stop at ``MAX_PLIES``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import IllegalActionError

EXAMPLES = 120
MAX_PLIES = 400


@st.composite
def afrika_options(draw) -> dict:
    holes = draw(st.integers(2, 10))
    stones = draw(st.integers(1, 8))
    total = 2 * holes * stones
    opts = {
        "holes": holes,
        "stones": stones,
        "komi": draw(st.integers(0, min(2 * total, 16))) / 2,
        "giveaway": draw(st.booleans()),
    }
    if not opts["giveaway"] and draw(st.booleans()):
        opts["target"] = draw(st.integers(1, total))
    return opts


games = st.one_of(st.just({}), afrika_options())
choices = st.lists(st.integers(0, 10_000), max_size=200)


def make(opts):
    return mancala_envs.make_game("afrika-v0", **opts)


def pick(state, choices, ply) -> int:
    legal = state.legal_actions()
    k = choices[ply] if ply < len(choices) else ply * 7919 + 13
    return legal[k % len(legal)]


def play(game, choices, seed=0):
    """Yield (ply, state, action or None) along one game; the state is live, don't keep it."""
    state = game.new_state(seed=seed)
    ply = 0
    while not state.is_terminal() and ply < MAX_PLIES:
        action = pick(state, choices, ply)
        yield ply, state, action
        state.apply(action)
        ply += 1
    yield ply, state, None


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_stones_are_conserved(opts, choices):
    game = make(opts)
    total = 2 * game.options["holes"] * game.options["stones"]
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        assert min(payload["holes"][0] + payload["holes"][1] + payload["captured"]) >= 0, payload
        on_board = sum(payload["holes"][0]) + sum(payload["holes"][1])
        assert on_board + sum(payload["captured"]) == total == game.conserved_total(state), f"ply {ply}: {payload}"
        if state.is_terminal() and not game.options["giveaway"] and game.options["target"] is None:
            assert on_board == 0


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_action_mask_equals_legal_actions(opts, choices):
    game = make(opts)
    for ply, state, _ in play(game, choices):
        mask = state.action_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        legal = state.legal_actions()
        assert np.flatnonzero(mask).tolist() == legal
        assert (len(legal) == 0) == state.is_terminal()
        # every legal action has a name that reads back to it
        for a in legal:
            assert game.string_to_action(state, game.action_to_string(state, a)) == a
        illegal = [a for a in range(game.num_actions) if a not in legal]
        if illegal:
            before = state.to_json()
            with pytest.raises(IllegalActionError):
                state.apply(illegal[(ply * 31) % len(illegal)])
            assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_captures_are_compulsory_and_smallest(opts, choices):
    game = make(opts)
    n = game.options["holes"]
    for ply, state, _ in play(game, choices):
        if state.is_terminal():
            break
        payload = state.to_json()
        me = payload["to_move"]
        mine, theirs = payload["holes"][me], payload["holes"][1 - me]
        open_captures = {i: theirs[n - 1 - i] for i in range(n) if mine[i] == 0 and theirs[n - 1 - i] > 0}
        assert payload["must_capture"] == bool(open_captures)
        if open_captures:
            smallest = min(open_captures.values())
            assert state.legal_actions() == sorted(i for i, c in open_captures.items() if c == smallest)
        else:
            assert state.legal_actions() == [i for i in range(n) if mine[i] > 0]


@settings(max_examples=EXAMPLES)
@given(games, choices, st.integers(0, 2**32 - 1))
def test_same_seed_same_game(opts, choices, seed):
    game = make(opts)
    twin = make(opts).new_state(seed=seed)
    assert twin.to_json() == game.new_state(seed=seed ^ 0x5A5A).to_json()  # nothing is dealt at random
    for ply, state, action in play(game, choices, seed=seed):
        assert state.to_json() == twin.to_json(), f"ply {ply}"
        assert np.array_equal(state.observation(0), twin.observation(0))
        if action is not None:
            twin.apply(action)


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_json_round_trip_at_every_ply(opts, choices):
    game = make(opts)
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        again = game.state_from_json(json.loads(json.dumps(payload)))
        assert again == state and again.to_json() == payload, f"ply {ply}"
        assert again.legal_actions() == state.legal_actions()
        assert again.returns() == state.returns() and again.scores() == state.scores()
        for p in (0, 1):
            assert np.array_equal(again.observation(p), state.observation(p))


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_clone_is_independent(opts, choices):
    game = make(opts)
    state = game.new_state(seed=0)
    ply = 0
    while not state.is_terminal() and ply < 150:
        before = state.to_json()
        twin = state.clone()
        action = pick(state, choices, ply)
        twin.apply(action)
        assert state.to_json() == before, f"ply {ply}"
        after = twin.to_json()
        state.apply(action)
        assert twin.to_json() == after == state.to_json()
        ply += 1


def swap_seats(payload: dict) -> dict:
    out = dict(payload)
    out["holes"] = [list(payload["holes"][1]), list(payload["holes"][0])]
    out["captured"] = [payload["captured"][1], payload["captured"][0]]
    out["to_move"] = 1 - payload["to_move"]
    if payload["last_player"] is not None:
        out["last_player"] = 1 - payload["last_player"]
    return out


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_observation_is_mover_relative(opts, choices):
    game = make(opts)
    n = game.options["holes"]
    north_flag = 2 * n + 4
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        for p in (0, 1):
            obs = state.observation(p)
            assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
            assert obs[:n].tolist() == payload["holes"][p]
            assert obs[n : 2 * n].tolist() == payload["holes"][1 - p]
            assert obs[2 * n : 2 * n + 2].tolist() == [payload["captured"][p], payload["captured"][1 - p]]
            assert obs[2 * n + 2] == float(state.current_player == p)
            assert obs[2 * n + 3] == float(payload["must_capture"])
            assert obs[north_flag] == float(p == 0) and obs[2 * n + 5] == game.options["komi"]
        if game.options["target"] is not None and max(payload["captured"]) >= game.options["target"]:
            continue
        mirror = game.state_from_json(swap_seats(payload))
        assert mirror.legal_actions() == state.legal_actions()
        keep = np.arange(game.observation_size) != north_flag  # the seat flag follows the seat
        for p in (0, 1):
            assert np.array_equal(state.observation(p)[keep], mirror.observation(1 - p)[keep]), f"ply {ply}"


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_returns_follow_the_result(opts, choices):
    game = make(opts)
    o = game.options
    for ply, state, action in play(game, choices):
        if action is not None:
            assert state.returns() == [0.0, 0.0] and game.info(state)["result"] is None
    if not state.is_terminal():
        return
    north, south = state.scores()
    total = 2 * o["holes"] * o["stones"]
    if o["giveaway"]:
        expected = 0 if 2 * north == total else (-1 if 2 * north > total else 1)
    elif o["target"] is not None and max(north, south) >= o["target"]:
        expected = 1 if north >= o["target"] else -1
    else:
        expected = int(np.sign((north - o["komi"]) - (south + o["komi"])))
    assert state.returns() == [float(expected), float(-expected)]
    assert game.info(state)["result"] == {1: "north", -1: "south", 0: "draw"}[expected]
    assert game.info(state)["margin"] >= 0
