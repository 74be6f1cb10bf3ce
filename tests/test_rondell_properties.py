"""Property tests of Rondell over its presets, custom decks and variants (hypothesis).

Hypothesis draws the game (a registered id, or a custom valid deck with random variants), the
deal seed and a list of choices; ``play`` turns the choices into a legal game (after the list
runs out a fixed rule picks the moves) that stops at the end or at ``MAX_PLIES``.
"""

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
IDS = [e for e in mancala_envs.list_envs() if e.startswith("rondell")]
DECKS = [(2, 3, 1, 2), (8, 3, 5, 7), (5, 6, 7, 8), (9, 6, 13, 14), (7, 8, 13, 15), (16, 7, 27, 29)]


@st.composite
def custom(draw):
    P, c, red, blue = draw(st.sampled_from(DECKS))
    opts = dict(piles=P, cards_per_pile=c, red_pairs=red, blue_pairs=blue, bottom_up=draw(st.booleans()))
    variant = draw(st.sampled_from(["none", "reservation", "partial"]))
    if variant == "reservation":
        opts["reservation"] = True
    elif variant == "partial" and P % 2 == 0:
        opts["partial"] = True
    return ("rondell-v0", opts)


games = st.one_of(st.sampled_from(IDS).map(lambda e: (e, {})), custom())
choices = st.lists(st.integers(0, 10_000), max_size=120)
seeds = st.integers(0, 2**32 - 1)


def make(spec):
    env_id, opts = spec
    return mancala_envs.make_game(env_id, **opts)


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
def test_cards_are_conserved(spec, choices, seed):
    game = make(spec)
    o = game.options
    for ply, state, _ in play(game, choices, seed):
        payload = state.to_json()
        board = "".join(payload["piles"])
        pairs = payload["pairs"]
        assert game.conserved_total(state) == o["piles"] * o["cards_per_pile"], f"ply {ply}"
        assert board.count("R") + 2 * (pairs[0][0] + pairs[1][0]) == 2 * o["red_pairs"]
        assert board.count("B") + 2 * (pairs[0][1] + pairs[1][1]) == 2 * o["blue_pairs"]


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_action_mask_equals_legal_actions(spec, choices, seed):
    game = make(spec)
    for ply, state, _ in play(game, choices, seed):
        mask = state.action_mask()
        legal = state.legal_actions()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        assert np.flatnonzero(mask).tolist() == legal
        assert (len(legal) == 0) == state.is_terminal()
        payload = state.to_json()
        if payload["phase"] == "move" and not state.is_terminal():
            # a move is legal exactly on a pile of >= 2 cards that is not reserved (own area if partial)
            P = game.options["piles"]
            rot = state.current_player * (P // 2) if game.options["partial"] else 0
            want = [a for a in range(P) if len(payload["piles"][(a + rot) % P]) >= 2
                    and (a + rot) % P != payload["reserved"] and (not game.options["partial"] or a < P // 2)]
            assert legal == want
        illegal = [a for a in range(game.num_actions) if a not in legal]
        if illegal and not state.is_terminal():
            before = state.to_json()
            with pytest.raises(IllegalActionError):
                state.apply(illegal[ply % len(illegal)])
            assert state.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_same_seed_same_game(spec, choices, seed):
    game = make(spec)
    twin = make(spec).new_state(seed)
    assert twin.to_json() == game.new_state(seed).to_json()
    for ply, state, action in play(game, choices, seed):
        assert state.to_json() == twin.to_json(), f"ply {ply}"
        if action is not None:
            twin.apply(action)


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_json_round_trip_at_every_ply(spec, choices, seed):
    game = make(spec)
    for ply, state, _ in play(game, choices, seed):
        payload = state.to_json()
        again = game.state_from_json(json.loads(json.dumps(payload)))
        assert again == state and again.to_json() == payload, f"ply {ply}"
        # without the history the position is the same, with a fresh record
        bare = {k: v for k, v in payload.items() if k not in ("history", "terminal", "end", "leftover_to")}
        if not state.is_terminal():
            fresh = game.state_from_json(bare)
            assert fresh.legal_actions() == state.legal_actions()
            assert np.array_equal(fresh.observation(0), state.observation(0))


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_clone_is_independent(spec, choices, seed):
    game = make(spec)
    for ply, state, action in play(game, choices, seed):
        if action is None:
            break
        before = state.to_json()
        twin = state.clone()
        twin.apply(action)
        assert state.to_json() == before
        probe = state.clone()
        keep = probe.clone()
        probe.apply(state.legal_actions()[-1])
        assert keep.to_json() == before


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_observation_is_mover_relative(spec, choices, seed):
    game = make(spec)
    P = game.options["piles"]
    T = P * game.options["cards_per_pile"]
    partial = game.options["partial"]
    for ply, state, _ in play(game, choices, seed):
        payload = state.to_json()
        scores = state.scores()
        for p in (0, 1):
            obs = state.observation(p)
            rot = p * (P // 2) if partial else 0
            for v in range(P):
                pile = payload["piles"][(v + rot) % P]
                top_first = [1.0 if ch == "R" else 2.0 for ch in reversed(pile)]
                assert obs[v * T : v * T + len(pile)].tolist() == top_first
                assert not obs[v * T + len(pile) : (v + 1) * T].any()
                assert obs[P * T + v] == len(pile)
            assert obs[P * T + P + 1] == scores[p] and obs[P * T + P + 2] == scores[1 - p]
            assert obs[P * T + P + 3] == float(state.current_player == p)
        if partial and not state.is_terminal():
            # swapping the two areas and the seats gives the same observation to the other seat
            half = P // 2
            mirror = dict(payload)
            mirror["piles"] = payload["piles"][half:] + payload["piles"][:half]
            mirror["to_move"] = 1 - payload["to_move"]
            mirror["pairs"] = [payload["pairs"][1], payload["pairs"][0]]
            mirror["last_mover"] = None if payload["last_mover"] is None else 1 - payload["last_mover"]
            for key in ("history", "terminal", "end", "leftover_to"):
                mirror.pop(key)
            twin = game.state_from_json(mirror)
            assert twin.legal_actions() == state.legal_actions()
            for p in (0, 1):
                assert np.array_equal(twin.observation(1 - p), state.observation(p))


@settings(max_examples=EXAMPLES)
@given(games, choices, seeds)
def test_returns_zero_until_the_end_then_follow_the_points(spec, choices, seed):
    game = make(spec)
    for ply, state, action in play(game, choices, seed):
        if action is not None:
            assert state.returns() == [0.0, 0.0]
    if state.is_terminal():
        a, b = state.scores()
        assert a + b == game.total_points()  # the leftovers went to somebody: every point is won
        assert a != b and state.returns() == [float(np.sign(a - b)), float(np.sign(b - a))]
