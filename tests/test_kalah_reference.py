"""The Kalah kernel against the plain-Python reference (``tests/reference/kalah_ref.py``).

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
from reference.kalah_ref import KalahReference

KALAH_IDS = [e for e in mancala_envs.list_envs() if e.startswith("kalah")]

GAMES_PER_ID = 800
OPTION_CHUNKS = 8
GAMES_PER_CHUNK = 1500
RANDOM_POSITIONS = 5000
# Bidirectional play with min_sow=1 can shuffle one seed to and fro; random games still end
# (the longest seen is under 500 plies), but stop comparing there rather than loop forever.
PLY_LIMIT = 4000

# Totals over the module, printed by the coverage test (run with -s to see them).
TOTALS: Counter = Counter()


def random_options(rng: np.random.Generator) -> dict:
    """One random option combination within the ranges the brief asks for."""
    opts = {
        "pits": int(rng.integers(1, 9)),
        "seeds": int(rng.integers(1, 7)),
        "extra_turn": bool(rng.integers(2)),
        "capture": bool(rng.integers(2)),
        "capture_needs_opposite": bool(rng.integers(2)),
        "skip_origin": bool(rng.integers(2)),
        "end": ["mover_empty", "side_empty"][int(rng.integers(2))],
        "leftover": ["owner", "discard"][int(rng.integers(2))],
        "directions": int(rng.integers(1, 3)),
        "chosen_start": bool(rng.random() < 0.3),
    }
    if opts["chosen_start"]:
        opts["max_setup_seeds"] = int(rng.integers(1, 5))
        opts["min_sow"] = int(rng.integers(1, 4))  # may exceed seeds with a chosen start
    else:
        opts["min_sow"] = int(rng.integers(1, min(3, opts["seeds"]) + 1))
    return opts


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


def ref_snapshot(ref: KalahReference, rstate, num_actions: int) -> dict:
    legal = ref.legal(rstate)
    mask = [0] * num_actions
    for a in legal:
        mask[a] = 1
    return {
        "json": ref.to_json(rstate),
        "legal": legal,
        "mask": mask,
        "player": ref.current_player(rstate),
        "terminal": ref.is_terminal(rstate),
        "scores": list(rstate.stores),
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
    ref = KalahReference(game.options)
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


@pytest.mark.parametrize("env_id", KALAH_IDS)
def test_registered_id_matches_reference(env_id):
    seed = 1000 + KALAH_IDS.index(env_id)
    rng = np.random.default_rng(seed)
    game = mancala_envs.make_game(env_id)
    plies = [play_and_compare(game, rng, f"{env_id} seed={seed} game={g}") for g in range(GAMES_PER_ID)]
    assert len(plies) == GAMES_PER_ID and min(plies) >= 1


@pytest.mark.parametrize("chunk", range(OPTION_CHUNKS))
def test_random_option_combos_match_reference(chunk):
    seed = 2000 + chunk
    rng = np.random.default_rng(seed)
    seen: dict[str, set] = {}
    for g in range(GAMES_PER_CHUNK):
        opts = random_options(rng)
        for key, value in opts.items():
            seen.setdefault(key, set()).add(value)
        game = mancala_envs.make_game("kalah-v0", **opts)
        play_and_compare(game, rng, f"kalah-v0 seed={seed} game={g} options={opts}")
    # The sampler reaches every value of every boolean/choice option in each chunk.
    for key in ("extra_turn", "capture", "capture_needs_opposite", "skip_origin", "chosen_start"):
        assert seen[key] == {False, True}, key
    assert seen["end"] == {"mover_empty", "side_empty"}
    assert seen["leftover"] == {"owner", "discard"}
    assert seen["directions"] == {1, 2}
    assert seen["min_sow"] == {1, 2, 3}
    assert seen["pits"] == set(range(1, 9))
    assert seen["seeds"] == set(range(1, 7))


def random_position(rng: np.random.Generator, opts: dict) -> dict:
    """A play-phase position, often with one heavy hole (multi-lap sowing)."""
    n = opts["pits"]
    rows = [[int(v) for v in rng.integers(0, 4, n)] for _ in range(2)]
    for _ in range(int(rng.integers(0, 3))):
        side, hole = int(rng.integers(2)), int(rng.integers(n))
        rows[side][hole] = int(rng.integers(2 * n, 6 * n + 3))
    mover = int(rng.integers(2))
    # the mover needs a playable hole, so that loading the position changes nothing
    if max(rows[mover]) < opts["min_sow"]:
        rows[mover][int(rng.integers(n))] = opts["min_sow"] + int(rng.integers(0, 3))
    if opts["end"] == "side_empty" and sum(rows[1 - mover]) == 0:
        rows[1 - mover][int(rng.integers(n))] = 1
    return {
        "pits": rows,
        "stores": [int(v) for v in rng.integers(0, 20, 2)],
        "to_move": mover,
        "terminal": False,
        "plies": int(rng.integers(0, 50)),
        "phase": "play",
        "setup_index": 0,
        "last_action": None,
        "last_player": None,
    }


def compare_positions(seed: int, count: int, events: Counter | None = None) -> int:
    """Every legal action of ``count`` random positions; returns the moves compared."""
    rng = np.random.default_rng(seed)
    compared = 0
    for p in range(count):
        opts = random_options(rng)
        opts.pop("max_setup_seeds", None)
        opts["chosen_start"] = False
        opts["min_sow"] = int(rng.integers(1, min(3, opts["seeds"]) + 1))
        game = mancala_envs.make_game("kalah-v0", **opts)
        ref = KalahReference(game.options)
        payload = random_position(rng, opts)
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


@pytest.mark.parametrize("chunk", range(2))
def test_random_positions_every_action_matches_reference(chunk):
    """Hand-made positions reach what random play rarely does: big multi-lap sowings."""
    count = RANDOM_POSITIONS // 2
    assert compare_positions(3000 + chunk, count) > count


def test_comparisons_cover_every_rule():
    """A fresh seeded batch must exercise every rule, or agreeing would prove little."""
    events: Counter = Counter()
    rng = np.random.default_rng(4000)
    for g in range(400):
        opts = random_options(rng)
        play_and_compare(mancala_envs.make_game("kalah-v0", **opts), rng, f"seed=4000 game={g} {opts}", events)
    compare_positions(4001, 400, events)
    print(f"\nreference comparison totals in this process: {dict(TOTALS)}\nrule events: {dict(events)}")
    for event in (
        "counterclockwise",
        "clockwise",
        "extra_turn",
        "capture",
        "empty_capture",
        "no_capture_opposite_empty",
        "empty_opponent_hole",
        "lap",
        "origin_skipped",
        "origin_capture",
        "landing_filled_earlier",
        "end_mover_stuck",
        "end_side_empty_early",
        "leftover_owner",
        "leftover_discard",
    ):
        assert events[event] >= 5, f"rule event {event!r} happened only {events[event]} times: {dict(events)}"
