"""The Afrika kernel against the plain-Python reference (``tests/reference/afrika_ref.py``).

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
from reference.afrika_ref import AfrikaReference

GAMES_DEFAULT = 1000
OPTION_CHUNKS = 4
GAMES_PER_CHUNK = 600
RANDOM_POSITIONS = 4000
PLY_LIMIT = 400  # the default max_plies; small boards may cycle without a capture


def random_options(rng: np.random.Generator) -> dict:
    holes = int(rng.integers(2, 11))
    stones = int(rng.integers(1, 11))  # total >= 4, so a komi above it is cut to 4
    total = 2 * holes * stones
    opts = {
        "holes": holes,
        "stones": stones,
        "komi": min(float(rng.choice([0.0, 0.5, 2.5, 3.0, 7.5])), float(total)),
        "giveaway": bool(rng.random() < 0.3),
        "target": None,
    }
    if not opts["giveaway"] and rng.random() < 0.4:
        opts["target"] = int(rng.integers(1, total + 1))
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


def ref_snapshot(ref: AfrikaReference, rstate, num_actions: int) -> dict:
    legal = ref.legal(rstate)
    mask = [0] * num_actions
    for a in legal:
        mask[a] = 1
    payload = ref.to_json(rstate)
    return {
        "json": payload,
        "legal": legal,
        "mask": mask,
        "player": ref.current_player(rstate),
        "terminal": ref.is_terminal(rstate),
        "scores": payload["captured"],
        "returns": ref.returns(rstate),
    }


def diff(kernel: dict, ref: dict) -> str:
    return "\n".join(
        f"  {key}: kernel {kernel[key]!r}\n  {' ' * len(key)}  ref    {ref[key]!r}"
        for key in kernel
        if kernel[key] != ref[key]
    )


def play_and_compare(game, rng, label: str, events: Counter | None = None) -> int:
    ref = AfrikaReference(game.options)
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
    if events is not None:
        events.update(ref.events)
    return len(history)


def test_registered_id_matches_reference():
    seed = 1100
    rng = np.random.default_rng(seed)
    game = mancala_envs.make_game("afrika-v0")
    plies = [play_and_compare(game, rng, f"afrika-v0 seed={seed} game={g}") for g in range(GAMES_DEFAULT)]
    assert min(plies) >= 10


@pytest.mark.parametrize("chunk", range(OPTION_CHUNKS))
def test_random_option_combos_match_reference(chunk):
    seed = 2100 + chunk
    rng = np.random.default_rng(seed)
    seen: dict[str, set] = {}
    for g in range(GAMES_PER_CHUNK):
        opts = random_options(rng)
        for key, value in opts.items():
            seen.setdefault(key, set()).add(value if key != "target" else value is None)
        game = mancala_envs.make_game("afrika-v0", **opts)
        play_and_compare(game, rng, f"afrika-v0 seed={seed} game={g} options={opts}")
    assert seen["giveaway"] == {False, True}
    assert seen["target"] == {False, True}
    assert {0.0, 0.5, 2.5, 3.0, 7.5} <= seen["komi"]
    assert seen["holes"] == set(range(2, 11))


def random_position(rng: np.random.Generator, opts: dict) -> dict:
    """A position with the right stone total: random holes, the rest split as captures."""
    n, total = opts["holes"], 2 * opts["holes"] * opts["stones"]
    board = [0] * (2 * n)
    on_board = int(rng.integers(1, total + 1))
    heavy = rng.random() < 0.3  # one big hole: sowings that lap the ring
    for _ in range(on_board):
        k = 0 if heavy and rng.random() < 0.7 else int(rng.integers(2 * n))
        board[k] += 1
    if heavy:
        shift = int(rng.integers(2 * n))
        board = board[shift:] + board[:shift]
    # empty a few holes so that captures (and ties) are common
    for _ in range(int(rng.integers(0, n))):
        k = int(rng.integers(2 * n))
        j = (k + 1 + int(rng.integers(2 * n - 1))) % (2 * n)
        board[j] += board[k]
        board[k] = 0
    rest = total - sum(board)
    cap0 = int(rng.integers(0, rest + 1))
    return {
        "holes": [board[:n], board[n:]],
        "captured": [cap0, rest - cap0],
        "to_move": int(rng.integers(2)),
        "plies": int(rng.integers(0, 60)),
        "last_action": None,
        "last_player": None,
        "last_capture": None,
    }


def compare_positions(seed: int, count: int, events: Counter | None = None) -> int:
    rng = np.random.default_rng(seed)
    compared = 0
    loaded = 0
    while loaded < count:
        opts = random_options(rng)
        game = mancala_envs.make_game("afrika-v0", **opts)
        payload = random_position(rng, opts)
        if opts["giveaway"] and max(payload["captured"]) * 2 > game.total_stones:
            continue  # already decided
        if opts["target"] is not None and min(payload["captured"]) >= opts["target"]:
            continue  # both past the target: refused by state_from_json
        loaded += 1
        ref = AfrikaReference(game.options)
        state = game.state_from_json(payload)
        rstate = ref.from_json(payload)
        k, r = snapshot(state), ref_snapshot(ref, rstate, game.num_actions)
        assert k == r, f"seed={seed}: loading {payload} options {opts}\n{diff(k, r)}"
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            rchild = ref.apply(rstate, action)
            k, r = snapshot(child), ref_snapshot(ref, rchild, game.num_actions)
            assert k == r, f"seed={seed}: action {action} from {payload}\noptions {opts}\n{diff(k, r)}"
            compared += 1
        if events is not None:
            events.update(ref.events)
    return compared


def test_random_positions_every_action_matches_reference():
    assert compare_positions(3100, RANDOM_POSITIONS) > RANDOM_POSITIONS


def test_comparisons_cover_every_rule():
    """A fresh seeded batch must exercise every rule, or agreeing would prove little."""
    events: Counter = Counter()
    rng = np.random.default_rng(4100)
    for g in range(150):
        opts = random_options(rng)
        play_and_compare(mancala_envs.make_game("afrika-v0", **opts), rng, f"seed=4100 game={g} {opts}", events)
    compare_positions(4101, 300, events)
    for event in (
        "sow",
        "capture",
        "capture_tie_choice",
        "capture_larger_refused",
        "origin_skipped",
        "end_empty_board",
        "end_giveaway",
        "end_target",
    ):
        assert events[event] >= 5, f"rule event {event!r} happened only {events[event]} times: {dict(events)}"
