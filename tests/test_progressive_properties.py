"""Property tests of Progressive Mancala over random options, random games and random positions.

Hypothesis draws the options (both registered presets, holes 1..13, stones 1..6, skip_origin
on and off) and a list of choices; ``play`` turns the choices into a legal game (once the list
runs out, a fixed rule picks the moves) capped at ``MAX_PLIES``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import IllegalActionError
from mancala_envs.records import GameRecord, load_json, save_json
from reference.progressive_ref import ProgressiveReference

EXAMPLES = 150
MAX_PLIES = 400
IDS = ["progressive-v0", "progressive-expert-v0"]


@st.composite
def progressive_options(draw) -> dict:
    return {
        "holes": draw(st.integers(1, 13)),
        "stones": draw(st.integers(1, 6)),
        "skip_origin": draw(st.booleans()),
    }


games = st.one_of(
    st.sampled_from(IDS).map(lambda e: (e, {})),
    progressive_options().map(lambda o: ("progressive-v0", o)),
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


def stones(payload) -> int:
    return sum(payload["holes"]) + payload["goal"] + sum(payload["captured"])


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_stones_are_conserved_and_never_negative(spec, choices):
    game = make(spec)
    total = game.options["holes"] * game.options["stones"]
    captured_before = [0, 0]
    for ply, state, _ in play(game, choices):
        payload = state.to_json()
        assert min(payload["holes"] + [payload["goal"]] + payload["captured"]) >= 0, payload
        assert stones(payload) == total == game.conserved_total(state), f"ply {ply}: {payload}"
        # captured totals only grow
        assert all(a >= b for a, b in zip(payload["captured"], captured_before)), f"ply {ply}"
        captured_before = payload["captured"]
        # a position that is not over has a stone in the row (so the mover has a move)
        assert state.is_terminal() == (sum(payload["holes"]) + payload["goal"] == 0)
        if not state.is_terminal():
            assert sum(payload["holes"]) > 0


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_turns_are_one_plus_the_opponents_empty_endings(spec, choices):
    """Rebuild the turns from the sequence of movers and the last_end of each move."""
    game = make(spec)
    turns: list[tuple[int, list]] = []  # (player, [ended in an empty hole?])
    for ply, state, action in play(game, choices):
        payload = state.to_json()
        if ply > 0:
            mover = payload["last_player"]
            empty = payload["last_end"] != "goal"
            if not turns or turns[-1][0] != mover:
                turns.append((mover, []))
            turns[-1][1].append(empty)
            # the open turn: moves played + moves left == 1 + the previous turn's empty endings
            if not state.is_terminal() and payload["to_move"] == mover:
                allowed = 1 + (sum(turns[-2][1]) if len(turns) > 1 else 0)
                assert len(turns[-1][1]) + payload["moves_left"] == allowed, f"ply {ply}: {payload}"
                assert payload["bonus"] == sum(turns[-1][1])
    assert not turns or turns[0][0] == 0, "East (player_0) moves first"
    finished = state.is_terminal()
    for k, (player, ends) in enumerate(turns):
        if k > 0:
            assert player != turns[k - 1][0]
        allowed = 1 + (sum(turns[k - 1][1]) if k > 0 else 0)
        last = k == len(turns) - 1
        if not last:
            assert len(ends) == allowed, f"turn {k}: {turns}"
        elif finished:
            assert len(ends) <= allowed
            assert len(ends) + state.to_json()["moves_left"] == allowed


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_action_mask_equals_legal_actions_and_non_empty_holes(spec, choices):
    game = make(spec)
    n = game.options["holes"]
    for ply, state, _ in play(game, choices):
        mask = state.action_mask()
        assert mask.dtype == np.int8 and mask.shape == (n,)
        legal = state.legal_actions()
        assert np.flatnonzero(mask).tolist() == legal
        holes = state.to_json()["holes"]
        if not state.is_terminal():
            mover = state.current_player
            assert legal == [a for a in range(n) if holes[game.hole_of(mover, a) - 1] > 0]
        else:
            assert legal == []
        illegal = [a for a in range(n) if a not in legal]
        if illegal:
            before = state.to_json()
            with pytest.raises(IllegalActionError):
                state.apply(illegal[(ply * 31) % len(illegal)])
            assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, st.integers(0, 2**32 - 1))
def test_same_seed_same_game(spec, choices, seed):
    game = make(spec)
    twin = make(spec).new_state(seed=seed)
    # nothing is dealt at random: the start does not depend on the seed
    assert twin.to_json() == game.new_state(seed=seed ^ 0x5A5A).to_json()
    for ply, state, action in play(game, choices, seed=seed):
        assert state.to_json() == twin.to_json(), f"ply {ply}"
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
        assert again == state
        assert again.legal_actions() == state.legal_actions()
        assert again.returns() == state.returns() and again.scores() == state.scores()
        for p in (0, 1):
            assert np.array_equal(again.observation(p), state.observation(p))


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_clone_is_independent(spec, choices):
    game = make(spec)
    state = game.new_state(seed=0)
    ply = 0
    while not state.is_terminal() and ply < MAX_PLIES:
        before = state.to_json()
        twin = state.clone()
        action = pick(state, choices, ply)
        twin.apply(action)
        assert state.to_json() == before, f"ply {ply}"
        probe = state.clone()
        probe_twin = probe.clone()
        legal = state.legal_actions()
        probe.apply(legal[(ply * 17 + 5) % len(legal)])
        assert probe_twin.to_json() == before
        state.apply(action)
        assert twin.to_json() == state.to_json()
        ply += 1


def mirror(payload: dict, n: int) -> dict:
    """The same position with East and West exchanged: the row reversed, the seats swapped."""
    out = dict(payload)
    out["holes"] = list(reversed(payload["holes"]))
    out["captured"] = [payload["captured"][1], payload["captured"][0]]
    out["to_move"] = 1 - payload["to_move"]
    if payload["last_player"] is not None:
        out["last_player"] = 1 - payload["last_player"]
    if isinstance(payload["last_end"], int):
        out["last_end"] = n + 1 - payload["last_end"]
    return out


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_observation_is_mover_relative(spec, choices):
    game = make(spec)
    n = game.options["holes"]
    low, high = game.observation_bounds()
    for ply, state, action in play(game, choices):
        payload = state.to_json()
        for p in (0, 1):
            obs = state.observation(p)
            assert obs.shape == (n + 6,) and obs.dtype == np.float32
            assert obs.min() >= low and obs.max() <= high
            assert obs[:n].tolist() == [payload["holes"][game.hole_of(p, i) - 1] for i in range(n)]
            assert obs[n] == payload["goal"]
            assert obs[n + 1] == payload["captured"][p] and obs[n + 2] == payload["captured"][1 - p]
            assert obs[n + 3] == float(state.current_player == p)
            if not state.is_terminal():
                assert obs[n + 4] == payload["moves_left"] and obs[n + 5] == payload["bonus"]
        twin = game.state_from_json(mirror(payload, n))
        assert twin.legal_actions() == state.legal_actions()
        for p in (0, 1):
            assert np.array_equal(state.observation(p), twin.observation(1 - p)), f"ply {ply}: {payload}"
        if action is not None:  # the same action from the mirror gives the mirrored result
            twin.apply(action)
            after = state.clone()
            after.apply(action)
            assert twin.to_json() == mirror(after.to_json(), n), f"ply {ply} action {action}"


@settings(max_examples=EXAMPLES)
@given(games, choices)
def test_returns_zero_until_terminal_then_the_sign_of_the_difference(spec, choices):
    game = make(spec)
    total = game.options["holes"] * game.options["stones"]
    for ply, state, action in play(game, choices):
        if action is not None:
            assert state.returns() == [0.0, 0.0], f"ply {ply}"
    if state.is_terminal():
        a, b = state.scores()
        assert a + b == total
        assert state.returns() == [float(np.sign(a - b)), float(np.sign(b - a))]
        if total % 2 == 1:
            assert a != b, "an odd total cannot be shared equally"


@settings(max_examples=60)
@given(progressive_options(), st.integers(0, 2**32 - 1))
def test_one_move_stays_within_the_proven_bound(opts, seed):
    """The reference counts the steps of every move from random positions: never over (n+1)*H + n."""
    game = mancala_envs.make_game("progressive-v0", **opts)
    n = opts["holes"]
    ref = ProgressiveReference(game.options)
    rng = np.random.default_rng(seed)
    total = game.total_stones
    for _ in range(5):
        counts = rng.multinomial(total, rng.dirichlet(np.ones(n + 1) * 0.3))
        if counts[:n].sum() == 0:
            continue
        payload = {"holes": counts[:n].tolist(), "goal": int(counts[n]), "captured": [0, 0], "to_move": 0}
        rstate = ref.from_json(payload)
        row = sum(payload["holes"])
        for action in ref.legal(rstate):
            ref.apply(rstate, action)
            assert ref.last_steps <= (n + 1) * row + n, (payload, action, ref.last_steps)


@pytest.mark.parametrize("env_id", IDS)
def test_generic_json_record_round_trips_and_replays(env_id, tmp_path):
    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(17)
    state = game.new_state(seed=3)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
    record = GameRecord.from_game(game, actions, seed=3)
    assert record.result == {"scores": state.scores(), "returns": state.returns(), "plies": len(actions),
                             "terminal": True}
    path = tmp_path / "game.json"
    save_json(record, path)
    loaded = load_json(path)
    assert loaded == record and loaded.env_id == env_id and loaded.options == {}
    positions = loaded.replay()
    assert positions[-1].to_json() == state.to_json()
    # consecutive moves of one player (bonus moves) replay as they were played
    movers = [p.current_player for p in positions[:-1]]
    assert any(a == b for a, b in zip(movers, movers[1:])), "this game has bonus moves"
    # a record with options (skip_origin, a smaller board) keeps them and replays too
    small = mancala_envs.make_game(env_id, holes=7, skip_origin=True)
    s = small.new_state(0)
    acts = []
    while not s.is_terminal() and len(acts) < 1000:
        acts.append(s.legal_actions()[len(acts) % len(s.legal_actions())])
        s.apply(acts[-1])
    rec = GameRecord.from_json(json.loads(json.dumps(GameRecord.from_game(small, acts).to_json())))
    assert rec.options == {"holes": 7, "skip_origin": True}
    assert rec.replay()[-1].to_json() == s.to_json()
