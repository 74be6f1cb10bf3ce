"""The repetition record of ``mancala_envs.core.repetition``: push, clear, find, hashing."""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.repetition import (
    NOT_A_CHECKPOINT,
    hash_finish,
    hash_mix,
    hash_start,
    rep_action,
    rep_block_size,
    rep_clear,
    rep_count,
    rep_find,
    rep_hash,
    rep_push,
)


def test_push_find_and_clear_keep_unused_entries_zero():
    cap = 4
    off = 3
    state = np.zeros(off + rep_block_size(cap) + 2, dtype=np.int32)
    assert rep_block_size(cap) == 1 + 2 * cap
    assert rep_push(state, off, cap, 7, -1)
    assert rep_push(state, off, cap, NOT_A_CHECKPOINT, 5)
    assert rep_push(state, off, cap, 9, 2)
    assert rep_push(state, off, cap, 7, 1)
    assert not rep_push(state, off, cap, 11, 0)  # full: nothing written
    assert rep_count(state, off) == 4
    assert [rep_hash(state, off, cap, i) for i in range(4)] == [7, NOT_A_CHECKPOINT, 9, 7]
    assert [rep_action(state, off, cap, i) for i in range(4)] == [-1, 5, 2, 1]
    assert rep_find(state, off, cap, 7, 0) == 0
    assert rep_find(state, off, cap, 7, 1) == 3
    assert rep_find(state, off, cap, 9, 3) == -1
    assert rep_find(state, off, cap, 11, 0) == -1
    assert state[:off].tolist() == [0, 0, 0] and state[-2:].tolist() == [0, 0]
    rep_clear(state, off, cap)
    assert not state.any()


def test_hash_is_deterministic_order_sensitive_and_non_negative():
    @njit
    def _digest(words):
        h = hash_start()
        for w in words:
            h = hash_mix(h, w)
        return hash_finish(h)

    def digest(words):  # the helpers are meant for jitted code: call them from there
        return int(_digest(np.asarray(words, dtype=np.int64)))

    assert digest([1, 2, 3]) == digest([1, 2, 3])
    assert digest([1, 2, 3]) != digest([3, 2, 1])
    assert digest([1, 2]) != digest([1, 2, 0])
    values = {digest([i, j]) for i in range(40) for j in range(40)}
    assert len(values) == 1600 and min(values) >= 0 and max(values) < 2**31
    assert digest([-1]) != digest([0])


def test_rondell_record_holds_the_stretch_since_the_last_capture():
    import mancala_envs
    from mancala_envs.games import rondell as r

    game = mancala_envs.make_game("rondell-v0", max_plies=50)
    params = game.params
    off, cap = int(params[r.P_O_REP]), int(params[r.P_CAP])
    assert cap == 51
    state = game.new_state(4)
    rng = np.random.default_rng(0)
    captures_before = sum(sum(row) for row in state.to_json()["pairs"])
    since = 0
    while not state.is_terminal() and state.plies < 50:
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        pairs = sum(sum(row) for row in state.to_json()["pairs"])
        since = 0 if pairs != captures_before else since + 1
        captures_before = pairs
        assert rep_count(state.array, off) == since + 1
        assert len(state.to_json()["history"]["actions"]) == since
        # the snapshot position is entry 0 and is never compared with itself as a stale copy
        assert not state.array[off + 1 + since + 1 : off + 1 + cap].any()


def test_a_full_record_restarts_at_the_current_position_past_the_ply_cap():
    import mancala_envs

    game = mancala_envs.make_game("rondell-v0", max_plies=2)  # a record of 3 entries
    rng = np.random.default_rng(1)
    restarts = 0
    for seed in range(20):
        state = game.new_state(seed)
        taken = 0
        length = 0
        while not state.is_terminal() and state.plies < 200:  # the State API plays on past the cap
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            payload = state.to_json()
            now = sum(sum(row) for row in payload["pairs"])
            actions = payload["history"]["actions"]
            assert len(actions) <= 2
            if now == taken and not actions and length == 2:
                restarts += 1
                assert payload["history"]["piles"] == payload["piles"]
            taken, length = now, len(actions)
            assert game.state_from_json(payload) == state
    assert restarts >= 3
