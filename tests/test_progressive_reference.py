"""The Progressive Mancala kernel against the plain-Python reference
(``tests/reference/progressive_ref.py``).

Random games are played on both side by side; at every ply the legal actions, the action
mask, the full ``to_json`` position, the player to move, the scores and the returns must
agree. Every random choice comes from a ``numpy.random.default_rng`` with a fixed seed, and
every assertion message names the seed, the options, the game, the ply and the actions so
far, so a failure can be replayed exactly.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import mancala_envs
from reference.progressive_ref import ProgressiveReference

PROGRESSIVE_IDS = ["progressive-v0", "progressive-expert-v0"]

GAMES_PER_ID = 300
OPTION_CHUNKS = 2
GAMES_PER_CHUNK = 800
RANDOM_POSITIONS = 4000
PLY_LIMIT = 1000  # the default max_plies; random games end far sooner (see the soak figures)

TOTALS: Counter = Counter()


def random_options(rng: np.random.Generator) -> dict:
    return {
        "holes": int(rng.integers(1, 14)),
        "stones": int(rng.integers(1, 7)),
        "skip_origin": bool(rng.integers(2)),
    }


def snapshot(state) -> dict:
    return {
        "json": state.to_json(),
        "legal": state.legal_actions(),
        "mask": state.action_mask().tolist(),
        "player": state.current_player,
        "terminal": state.is_terminal(),
        "scores": state.scores(),
        "returns": state.returns(),
    }


def ref_snapshot(ref: ProgressiveReference, rstate, num_actions: int) -> dict:
    legal = ref.legal(rstate)
    mask = [0] * num_actions
    for a in legal:
        mask[a] = 1
    return {
        "json": ref.to_json(rstate),
        "legal": legal,
        "mask": mask,
        "player": ref.current_player(rstate),
        "terminal": rstate.terminal,
        "scores": list(rstate.captured),
        "returns": ref.returns(rstate),
    }


def diff(kernel: dict, ref: dict) -> str:
    lines = []
    for key in kernel:
        if kernel[key] != ref[key]:
            lines.append(f"  {key}: kernel {kernel[key]!r}\n  {' ' * len(key)}  ref    {ref[key]!r}")
    return "\n".join(lines)


def play_and_compare(game, rng: np.random.Generator, label: str, events: Counter | None = None) -> int:
    """Play one random game on kernel and reference; return the number of plies."""
    ref = ProgressiveReference(game.options)
    state = game.new_state(seed=0)
    rstate = ref.initial()
    history: list[int] = []
    while True:
        k, r = snapshot(state), ref_snapshot(ref, rstate, game.num_actions)
        assert k == r, (
            f"{label}: kernel and reference differ at ply {len(history)} after actions {history}\n"
            f"options {game.options}\n{diff(k, r)}"
        )
        if k["terminal"] or len(history) >= PLY_LIMIT:
            break
        action = int(k["legal"][int(rng.integers(len(k["legal"])))])
        state.apply(action)
        rstate = ref.apply(rstate, action)
        history.append(action)
    TOTALS["games"] += 1
    TOTALS["plies"] += len(history)
    if events is not None:
        events.update(ref.events)
    return len(history)


@pytest.mark.parametrize("env_id", PROGRESSIVE_IDS)
def test_registered_id_matches_reference(env_id):
    seed = 5000 + PROGRESSIVE_IDS.index(env_id)
    rng = np.random.default_rng(seed)
    game = mancala_envs.make_game(env_id)
    plies = [play_and_compare(game, rng, f"{env_id} seed={seed} game={g}") for g in range(GAMES_PER_ID)]
    assert min(plies) >= 1


@pytest.mark.parametrize("chunk", range(OPTION_CHUNKS))
def test_random_option_combos_match_reference(chunk):
    seed = 6000 + chunk
    rng = np.random.default_rng(seed)
    seen: dict[str, set] = {}
    for g in range(GAMES_PER_CHUNK):
        opts = random_options(rng)
        for key, value in opts.items():
            seen.setdefault(key, set()).add(value)
        game = mancala_envs.make_game("progressive-v0", **opts)
        play_and_compare(game, rng, f"progressive-v0 seed={seed} game={g} options={opts}")
    assert seen["skip_origin"] == {False, True}
    assert seen["holes"] == set(range(1, 14))
    assert seen["stones"] == set(range(1, 7))


def random_position(rng: np.random.Generator, game) -> dict:
    """A position with the board's total, often with one heavy hole (long relay sowing)."""
    n = game.options["holes"]
    total = game.total_stones
    weights = rng.random(n + 3)
    weights[rng.random(n + 3) < 0.4] = 0.0  # empty holes, so that moves end in them
    if rng.random() < 0.5:
        weights[int(rng.integers(n))] += 5.0  # one heavy hole: several laps
    if weights[:n].sum() == 0:
        weights[int(rng.integers(n))] = 1.0
    counts = rng.multinomial(total - 1, weights / weights.sum())
    counts[int(rng.integers(n))] += 1  # the row is never empty
    return {
        "holes": [int(v) for v in counts[:n]],
        "goal": int(counts[n]),
        "captured": [int(counts[n + 1]), int(counts[n + 2])],
        "to_move": int(rng.integers(2)),
        "moves_left": int(rng.integers(1, 5)),
        "bonus": int(rng.integers(0, 4)),
        "terminal": False,
        "plies": int(rng.integers(0, 50)),
        "last_action": None,
        "last_player": None,
        "last_end": None,
    }


def compare_positions(seed: int, count: int, events: Counter | None = None) -> int:
    """Every legal action of ``count`` random positions; returns the moves compared."""
    rng = np.random.default_rng(seed)
    compared = 0
    for p in range(count):
        opts = random_options(rng)
        game = mancala_envs.make_game("progressive-v0", **opts)
        ref = ProgressiveReference(game.options)
        payload = random_position(rng, game)
        state = game.state_from_json(payload)
        assert state.to_json() == payload, f"seed={seed} position={p}: loading changed {payload}"
        rstate = ref.from_json(payload)
        assert state.legal_actions() == ref.legal(rstate), f"seed={seed} position={p} {payload} {game.options}"
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            rchild = ref.apply(rstate, action)
            k, r = snapshot(child), ref_snapshot(ref, rchild, game.num_actions)
            assert k == r, (
                f"seed={seed} position={p}: action {action} from {payload}\noptions {game.options}\n{diff(k, r)}"
            )
            compared += 1
        if events is not None:
            events.update(ref.events)
    TOTALS["position_moves"] += compared
    return compared


def test_random_positions_every_action_matches_reference():
    """Hand-made positions reach what random play rarely does: long relays, mid-turn ends."""
    assert compare_positions(7000, RANDOM_POSITIONS) > RANDOM_POSITIONS


def test_comparisons_cover_every_rule():
    """A fresh seeded batch must exercise every rule, or agreeing would prove little."""
    events: Counter = Counter()
    rng = np.random.default_rng(8000)
    for g in range(60):
        opts = random_options(rng)
        game = mancala_envs.make_game("progressive-v0", **opts)
        play_and_compare(game, rng, f"seed=8000 game={g} {opts}", events)
    compare_positions(8001, 200, events)
    print(f"\nreference comparison totals in this process: {dict(TOTALS)}\nrule events: {dict(events)}")
    for event in (
        "east_wrap",
        "west_wrap",
        "relay",
        "three_relays",
        "empty_end",
        "goal_end",
        "origin_skipped",
        "end_in_own_origin",
        "capture_with_stones_dropped_in_passing",
        "bonus_granted",
        "bonus_2_or_more",
        "turn_with_goal_and_empty",
        "game_end",
        "end_mid_turn",
    ):
        assert events[event] >= 5, f"rule event {event!r} happened only {events[event]} times: {dict(events)}"
