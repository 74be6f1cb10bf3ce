"""The Rondell kernel against the plain-Python reference (``tests/reference/rondell_ref.py``).

Seeded random games are played on both side by side; at every ply the legal actions, the
mask, the full ``to_json`` (repetition record included), the player to move, the scores and
the returns must agree. Hand-made positions (long piles, few piles) reach multi-lap moves
that random games rarely do. Every message names the seed, options, game, ply and actions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import mancala_envs
from reference.rondell_ref import RondellReference

RONDELL_IDS = [e for e in mancala_envs.list_envs() if e.startswith("rondell")]
GAMES_PER_ID = 30
CUSTOM_GAMES = 80
RANDOM_POSITIONS = 300

# every valid custom deck with at most 12 piles (piles, cards_per_pile, red_pairs, blue_pairs)
DECKS = [(2, 3, 1, 2), (8, 3, 5, 7), (10, 3, 7, 8), (5, 6, 7, 8), (9, 6, 13, 14), (7, 8, 13, 15),
         (8, 9, 17, 19), (10, 11, 27, 28), (16, 5, 19, 21), (16, 7, 27, 29)]

EVENTS: Counter = Counter()


def snapshot(state) -> dict:
    return {
        "json": state.to_json(),
        "legal": state.legal_actions(),
        "player": state.current_player,
        "terminal": state.is_terminal(),
        "scores": state.scores(),
        "returns": state.returns(),
    }


def ref_snapshot(ref, r) -> dict:
    return {
        "json": ref.to_json(r),
        "legal": ref.legal(r),
        "player": ref.current_player(r),
        "terminal": r.terminal,
        "scores": ref.scores(r),
        "returns": ref.returns(r),
    }


def diff(k: dict, r: dict) -> str:
    return "\n".join(f"  {key}: kernel {k[key]!r}\n  {' ' * len(key)}  ref    {r[key]!r}" for key in k if k[key] != r[key])


def play_and_compare(game, seed: int, rng: np.random.Generator, label: str) -> int:
    ref = RondellReference(game.options)
    state = game.new_state(seed)
    r = ref.initial(seed)
    history: list[int] = []
    while True:
        k, rr = snapshot(state), ref_snapshot(ref, r)
        assert k == rr, f"{label} deal seed={seed}: differ at ply {len(history)} after {history}\n{diff(k, rr)}"
        if k["terminal"] or state.plies >= game.max_plies:
            break
        action = k["legal"][int(rng.integers(len(k["legal"])))]
        state.apply(action)
        r = ref.apply(r, action)
        history.append(action)
    EVENTS.update(ref.events)
    return len(history)


@pytest.mark.parametrize("env_id", RONDELL_IDS)
def test_registered_id_matches_reference(env_id):
    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(500 + RONDELL_IDS.index(env_id))
    lengths = [play_and_compare(game, 10_000 + g, rng, f"{env_id} game {g}") for g in range(GAMES_PER_ID)]
    assert min(lengths) >= 1


def test_custom_decks_and_variants_match_reference():
    rng = np.random.default_rng(77)
    seen = Counter()
    for g in range(CUSTOM_GAMES):
        P, c, red, blue = DECKS[g % len(DECKS)]
        opts = dict(piles=P, cards_per_pile=c, red_pairs=red, blue_pairs=blue,
                    bottom_up=bool(rng.integers(2)), max_plies=400)
        variant = int(rng.integers(3))
        if variant == 1:
            opts["reservation"] = True
        elif variant == 2 and P % 2 == 0:
            opts["partial"] = True
        seen[(opts.get("reservation", False), opts.get("partial", False), opts["bottom_up"])] += 1
        game = mancala_envs.make_game("rondell-v0", **opts)
        play_and_compare(game, 20_000 + g, rng, f"custom game {g} options {opts}")
    assert len(seen) == 6, seen


def random_position(rng: np.random.Generator, opts: dict) -> dict:
    """Cards left after some random captures, dealt into the surviving piles at random heights."""
    P, red, blue = opts["piles"], opts["red_pairs"], opts["blue_pairs"]
    taken_red = int(rng.integers(0, red + 1)) if rng.random() < 0.7 else 0
    taken_blue = int(rng.integers(0, blue))
    cards = ["R"] * 2 * (red - taken_red) + ["B"] * 2 * (blue - taken_blue)
    rng.shuffle(cards)
    alive = sorted(rng.choice(P, size=int(rng.integers(1, min(P, len(cards)) + 1)), replace=False).tolist())
    # random cut points: every surviving pile gets at least one card
    cuts = sorted(rng.choice(np.arange(1, len(cards)), size=len(alive) - 1, replace=False).tolist()) if len(alive) > 1 else []
    bounds = [0, *cuts, len(cards)]
    piles = [""] * P
    for i, number in enumerate(alive):
        piles[number] = "".join(cards[bounds[i] : bounds[i + 1]])
    split_r = int(rng.integers(0, taken_red + 1))
    split_b = int(rng.integers(0, taken_blue + 1))
    return {
        "piles": piles,
        "to_move": int(rng.integers(2)),
        "phase": "move",
        "reserved": None,
        "pairs": [[split_r, split_b], [taken_red - split_r, taken_blue - split_b]],
        "plies": int(rng.integers(0, 50)),
        "last_mover": None,
    }


def test_random_positions_every_action_matches_reference():
    rng = np.random.default_rng(99)
    compared = 0
    for p in range(RANDOM_POSITIONS):
        env_id = RONDELL_IDS[p % len(RONDELL_IDS)]
        game = mancala_envs.make_game(env_id)
        payload = random_position(rng, game.options)
        if game.options["partial"]:
            half = game.options["piles"] // 2
            mover = payload["to_move"]
            if not any(len(payload["piles"][i]) >= 2 for i in range(mover * half, mover * half + half)):
                continue  # the mover would pass: not a position play can stop in
        ref = RondellReference(game.options)
        state = game.state_from_json(payload)
        r = ref.from_json(payload)
        k, rr = snapshot(state), ref_snapshot(ref, r)
        assert k == rr, f"position {p} of {env_id}: {payload}\n{diff(k, rr)}"
        for action in k["legal"]:
            child = state.clone()
            child.apply(action)
            rchild = ref.apply(r, action)
            k2, r2 = snapshot(child), ref_snapshot(ref, rchild)
            assert k2 == r2, f"position {p} of {env_id}, action {action}: {payload}\n{diff(k2, r2)}"
            compared += 1
        EVENTS.update(ref.events)
    assert compared > RANDOM_POSITIONS


def test_comparisons_cover_every_rule():
    """Runs last in this module: the comparisons above must have exercised every rule."""
    print(f"\nrule events: {dict(EVENTS)}")
    for event in ("capture_R", "capture_B", "capture_on_lap_2", "capture_on_lap_3", "pile_leaves_ring",
                  "capture_leaves_one", "no_capture_end", "lap_longer_than_ring", "end_no_move",
                  "end_repetition", "reserve", "reserve_none", "pass"):
        assert EVENTS[event] >= 3, f"rule event {event!r} happened only {EVENTS[event]} times: {dict(EVENTS)}"
