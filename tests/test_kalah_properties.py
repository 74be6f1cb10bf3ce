"""Property tests of the Kalah family over random option combinations and random games.

Hypothesis draws the options (every registered preset's option, pits 1..8, seeds 1..6,
both directions, min_sow 1..3, chosen start with a small max_setup_seeds) and a list of
choices; ``play`` turns the choices into a legal game that always reaches the end (once the
list runs out, a fixed rule picks the moves).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import IllegalActionError

EXAMPLES = 150  # more than the profile's 60: each example is one whole game, and games are cheap
MAX_PLIES = 600  # a safety net: directions=2 with min_sow=1 can shuffle a seed to and fro


@st.composite
def kalah_options(draw) -> dict:
    opts = {
        "pits": draw(st.integers(1, 8)),
        "seeds": draw(st.integers(1, 6)),
        "extra_turn": draw(st.booleans()),
        "capture": draw(st.booleans()),
        "capture_needs_opposite": draw(st.booleans()),
        "skip_origin": draw(st.booleans()),
        "end": draw(st.sampled_from(["mover_empty", "side_empty"])),
        "leftover": draw(st.sampled_from(["owner", "discard"])),
        "directions": draw(st.sampled_from([1, 2])),
        "chosen_start": draw(st.booleans()),
    }
    if opts["chosen_start"]:
        opts["max_setup_seeds"] = draw(st.integers(1, 4))
        opts["min_sow"] = draw(st.integers(1, 3))
    else:
        opts["min_sow"] = draw(st.integers(1, min(3, opts["seeds"])))
    return opts


games = st.one_of(
    st.sampled_from([e for e in mancala_envs.list_envs() if e.startswith("kalah")]).map(lambda e: (e, {})),
    kalah_options().map(lambda o: ("kalah-v0", o)),
)
choices = st.lists(st.integers(0, 10_000), max_size=200)


def make(spec):
    env_id, opts = spec
    return mancala_envs.make_game(env_id, **opts)


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


def board_total(payload) -> int:
    return sum(payload["pits"][0]) + sum(payload["pits"][1]) + sum(payload["stores"])


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_seeds_are_conserved(spec, choices):
    game = make(spec)
    opts = game.options
    total = None
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        assert min(payload["pits"][0] + payload["pits"][1] + payload["stores"]) >= 0, payload
        if payload["phase"] == "setup":
            assert payload["stores"] == [0, 0]
            continue
        if total is None:
            total = board_total(payload)
            if not opts["chosen_start"]:
                assert total == 2 * opts["pits"] * opts["seeds"]
            else:
                assert 1 <= total <= 2 * opts["pits"] * opts["max_setup_seeds"]
        assert board_total(payload) == total, f"ply {ply}: {payload}"


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_action_mask_equals_legal_actions(spec, choices):
    game = make(spec)
    for ply, state, _ in play(game, choices):
        mask = state.action_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        legal = state.legal_actions()
        assert np.flatnonzero(mask).tolist() == legal
        assert set(mask.tolist()) <= {0, 1}
        assert (len(legal) == 0) == state.is_terminal()
        for a in range(game.num_actions):
            assert state.is_legal(a) == (a in legal)
        illegal = [a for a in range(game.num_actions) if a not in legal]
        if illegal:
            before = state.to_json()
            with pytest.raises(IllegalActionError):
                state.apply(illegal[(ply * 31) % len(illegal)])
            assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, st.integers(0, 2**32 - 1))
def test_same_seed_same_game(spec, choices, seed):
    game = make(spec)
    twin_game = make(spec)
    twin = twin_game.new_state(seed=seed)
    # Kalah deals nothing at random: the start does not depend on the seed at all.
    assert twin.to_json() == game.new_state(seed=seed ^ 0x5A5A).to_json()
    for ply, state, action in play(game, choices, seed=seed):
        assert state.to_json() == twin.to_json(), f"ply {ply}"
        assert state.legal_actions() == twin.legal_actions()
        assert np.array_equal(state.observation(0), twin.observation(0))
        if action is not None:
            twin.apply(action)
    assert twin.is_terminal() == state.is_terminal()


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_json_round_trip_at_every_ply(spec, choices):
    game = make(spec)
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        again = game.state_from_json(json.loads(json.dumps(payload)))
        assert again.to_json() == payload, f"ply {ply}"
        assert again.legal_actions() == state.legal_actions()
        assert again.current_player == state.current_player
        assert again.returns() == state.returns()
        assert again.scores() == state.scores()
        for p in (0, 1):
            assert np.array_equal(again.observation(p), state.observation(p))
        assert again == state


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_clone_is_independent(spec, choices):
    game = make(spec)
    state = game.new_state(seed=0)
    ply = 0
    while not state.is_terminal() and ply < MAX_PLIES:
        before = state.to_json()
        legal_before = state.legal_actions()
        twin = state.clone()
        assert twin == state and twin.to_json() == before
        action = pick(state, choices, ply)
        twin.apply(action)  # mutating the clone leaves the original untouched
        assert state.to_json() == before, f"ply {ply}"
        assert state.legal_actions() == legal_before
        after = twin.to_json()
        # and mutating the original leaves the clone untouched
        other = legal_before[(ply * 17 + 5) % len(legal_before)]
        probe = state.clone()
        probe_twin = probe.clone()
        probe.apply(other)
        assert probe_twin.to_json() == before
        state.apply(action)
        assert twin.to_json() == after and state.to_json() == after
        ply += 1


def swap_rows(payload: dict) -> dict:
    out = dict(payload)
    out["pits"] = [list(payload["pits"][1]), list(payload["pits"][0])]
    out["stores"] = [payload["stores"][1], payload["stores"][0]]
    out["to_move"] = 1 - payload["to_move"]
    if payload["last_player"] is not None:
        out["last_player"] = 1 - payload["last_player"]
    return out


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_observation_is_mover_relative(spec, choices):
    game = make(spec)
    n = game.options["pits"]
    chosen = game.options["chosen_start"]
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        for p in (0, 1):
            obs = state.observation(p)
            assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
            # explicit layout: mine (holes, store), theirs (holes, store), my turn
            assert obs[:n].tolist() == payload["pits"][p]
            assert obs[n] == payload["stores"][p]
            assert obs[n + 1 : 2 * n + 1].tolist() == payload["pits"][1 - p]
            assert obs[2 * n + 1] == payload["stores"][1 - p]
            assert obs[2 * n + 2] == float(state.current_player == p)
            if chosen:
                assert obs[2 * n + 6] == float(p == 0)
        if payload["phase"] != "play":
            continue  # in setup the rows are sides A and B, not the players'
        mirror = game.state_from_json(swap_rows(payload))
        assert mirror.to_json() == swap_rows(payload)
        assert mirror.legal_actions() == state.legal_actions()
        for p in (0, 1):
            mine, theirs = state.observation(p), mirror.observation(1 - p)
            if chosen:  # everything but "I am the chooser", which follows the seat
                keep = np.arange(game.observation_size) != 2 * n + 6
                mine, theirs = mine[keep], theirs[keep]
            assert np.array_equal(mine, theirs), f"ply {ply} player {p}: {payload}"


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_returns_zero_until_terminal_then_zero_sum(spec, choices):
    game = make(spec)
    for ply, state, action in play(game, choices):
        returns = state.returns()
        if action is not None:
            assert not state.is_terminal()
            assert returns == [0.0, 0.0], f"ply {ply}"
    if state.is_terminal():
        a, b = state.scores()
        assert returns[0] + returns[1] == 0.0
        assert returns[0] == float(np.sign(a - b))
        assert state.scores() == state.to_json()["stores"]
