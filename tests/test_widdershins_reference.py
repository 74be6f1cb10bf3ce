"""The Widdershins kernel against the plain-Python reference (``tests/reference/widdershins_ref.py``).

Seeded random games on both side by side: at every ply the legal actions, the full
``to_json`` (repetition record included), the player to move, the scores and the returns
must agree. Hand-made positions (random stacks, single cards, Aces) reach what random games
rarely do. Every message names the seed, game, ply and actions so far.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

import mancala_envs
from reference.widdershins_ref import RING, WiddershinsReference

IDS = ["widdershins-v0", "widdershins-parlett-v0"]
GAMES_PER_ID = 300
RANDOM_POSITIONS = 600
EVENTS: Counter = Counter()


def snapshot(state) -> dict:
    return {"json": state.to_json(), "legal": state.legal_actions(), "player": state.current_player,
            "scores": state.scores(), "returns": state.returns()}


def ref_snapshot(ref, r) -> dict:
    return {"json": ref.to_json(r), "legal": ref.legal(r), "player": ref.current_player(r),
            "scores": ref.scores(r), "returns": ref.returns(r)}


def diff(k: dict, r: dict) -> str:
    return "\n".join(f"  {key}: kernel {k[key]!r}\n  {' ' * len(key)}  ref    {r[key]!r}" for key in k if k[key] != r[key])


def play_and_compare(game, seed: int, rng, label: str) -> int:
    ref = WiddershinsReference(game.options)
    state = game.new_state(seed)
    r = ref.initial(seed)
    history = []
    while True:
        k, rr = snapshot(state), ref_snapshot(ref, r)
        assert k == rr, f"{label} deal seed={seed}: differ at ply {len(history)} after {history}\n{diff(k, rr)}"
        if state.is_terminal() or state.plies >= game.max_plies:
            break
        action = k["legal"][int(rng.integers(len(k["legal"])))]
        state.apply(action)
        r = ref.apply(r, action)
        history.append(action)
    EVENTS.update(ref.events)
    return len(history)


def test_registered_ids_match_reference():
    for index, env_id in enumerate(IDS):
        game = mancala_envs.make_game(env_id)
        rng = np.random.default_rng(600 + index)
        for g in range(GAMES_PER_ID):
            play_and_compare(game, 30_000 + g, rng, f"{env_id} game {g}")


def random_position(rng) -> dict:
    cards = [rank + suit for suit in "CDHS" for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    rng.shuffle(cards)
    keep = cards[: int(rng.integers(14, 53))]
    stacks = [[] for _ in range(12)]
    for card in keep:  # a skewed spread: some tall stacks, some singles, some vacant
        stacks[int(min(rng.integers(0, 12), rng.integers(0, 12)) if rng.random() < 0.5 else rng.integers(0, 12))].append(card)
    return {"stacks": stacks, "to_move": int(rng.integers(2)), "south_colour": ["red", "black"][int(rng.integers(2))],
            "first_move": False, "plies": int(rng.integers(0, 40)), "last_mover": None}


def test_random_positions_every_action_matches_reference():
    rng = np.random.default_rng(5)
    compared = 0
    for p in range(RANDOM_POSITIONS):
        game = mancala_envs.make_game(IDS[p % 2])
        payload = random_position(rng)
        state = game.state_from_json(payload)
        if state.is_terminal():
            continue
        ref = WiddershinsReference(game.options)
        r = ref.from_json(payload)
        k, rr = snapshot(state), ref_snapshot(ref, r)
        assert k == rr, f"position {p}: {payload}\n{diff(k, rr)}"
        for action in k["legal"]:
            child = state.clone()
            child.apply(action)
            rchild = ref.apply(r, action)
            k2, r2 = snapshot(child), ref_snapshot(ref, rchild)
            assert k2 == r2, f"position {p}, action {action}: {payload}\n{diff(k2, r2)}"
            compared += 1
        EVENTS.update(ref.events)
    assert compared > RANDOM_POSITIONS


def test_comparisons_cover_every_rule():
    print(f"\nrule events: {dict(EVENTS)}")
    for event in ("pass", "resign", "ace_clockwise", "ace_counterclockwise", "court_across", "number_move",
                  "continuation", "land_vacant", "land_opponent_on_opponent", "capture_same_rank", "capture_higher",
                  "capture_higher_ace", "capture_ace_low", "capture_lower", "sow_round_the_ring",
                  "end_few_cards", "end_repetition", "end_colour_gone", "end_singletons"):
        assert EVENTS[event] >= 3, f"rule event {event!r} happened only {EVENTS[event]} times: {dict(EVENTS)}"
