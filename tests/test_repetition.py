"""The repetition record of ``mancala_envs.core.repetition``: push, clear, find, hashing."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from mancala_envs.core.repetition import (
    HASH_BITS,
    NOT_A_CHECKPOINT,
    cell_key,
    rep_action,
    rep_actions,
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
    assert rep_block_size(cap) == 1 + cap // 2  # two entries a word
    assert rep_push(state, off, cap, 7, -1)
    assert rep_push(state, off, cap, NOT_A_CHECKPOINT, 5)
    assert rep_push(state, off, cap, 9, 2)
    assert rep_push(state, off, cap, 7, 1)
    assert not rep_push(state, off, cap, 11, 0)  # full: nothing written
    assert rep_count(state, off) == 4
    not_a_checkpoint_bits = 2**HASH_BITS - 1
    assert [rep_hash(state, off, cap, i) for i in range(4)] == [7, not_a_checkpoint_bits, 9, 7]
    assert [rep_action(state, off, cap, i) for i in range(4)] == [-1, 5, 2, 1]
    assert rep_actions(state, off) == [5, 2, 1]
    assert rep_find(state, off, cap, 7, 0) == 0
    assert rep_find(state, off, cap, 7, 1) == 3
    assert rep_find(state, off, cap, 9, 3) == -1
    assert rep_find(state, off, cap, 11, 0) == -1
    assert rep_find(state, off, cap, 7 + 2**HASH_BITS, 0) == 0  # an entry keeps the low hash bits only
    assert state[:off].tolist() == [0, 0, 0] and state[-2:].tolist() == [0, 0]
    rep_clear(state, off, cap)
    assert not state.any()


def test_cell_keys_are_deterministic_distinct_and_31_bit():
    @njit
    def _key(index, value):
        return cell_key(index, value)

    def key(index, value):  # the helpers are meant for jitted code: call them from there
        return int(_key(index, value))

    assert key(5, 2) == key(5, 2)
    values = {key(i, v) for i in range(2000) for v in range(-1, 60)}
    # 122,000 random 31-bit keys share about 3.5 values by chance (the birthday bound)
    assert len(values) >= 2000 * 61 - 12 and min(values) >= 0 and max(values) < 2**31
    assert key(0, -1) != key(0, 0) and key(1, 0) != key(0, 1)


@pytest.mark.parametrize("env_id", ["rondell-v0", "rondell-reservation-v0", "rondell-partial-v0",
                                    "rondell-bottom-up-v0", "widdershins-v0"])  # Parlett's ending: no record, no hash
def test_the_hash_kept_move_by_move_equals_the_hash_from_scratch(env_id):
    """The card games update their position hash card by card; recomputing it over the whole
    board after every ply must give the same value (else a repetition could go unnoticed)."""
    import mancala_envs
    from mancala_envs.core.repetition import stacks_hash
    from mancala_envs.games import rondell, widdershins

    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(3)
    if env_id.startswith("rondell"):  # its piles are bit strings: its own from-scratch hash
        p = game.params

        def kept(a):
            return int(rondell._position_hash(a, p))

        def from_scratch(a):
            return int(rondell._hash_from_scratch(a, p))
    else:
        where = (widdershins.N_POS, widdershins.CAP, widdershins.O_H, widdershins.O_HEAD)

        def kept(a):
            return int(widdershins._position_hash(a))

        def from_scratch(a):
            return int(stacks_hash(a, *where, widdershins.POSITION_FIELDS))
    plies = 0
    for seed in range(15):
        state = game.new_state(seed)
        while True:
            assert kept(state.array) == from_scratch(state.array), (env_id, seed, state.plies)
            if state.is_terminal() or state.plies >= 300:
                break
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
            plies += 1
    assert plies > 200


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
        # two entries a word: the words and the half past the last entry are zero
        count = since + 1
        words = state.array[off + 1 : off + rep_block_size(cap)].astype(np.int64) & 0xFFFFFFFF
        assert not words[(count + 1) // 2 :].any() and off + rep_block_size(cap) == game.state_size
        assert count % 2 == 0 or words[count // 2] >> 16 == 0


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


def test_snapshot_block_copies_keep_the_cells_past_the_cards_zero_and_restore_the_board():
    """``snapshot_take`` copies whole blocks of cells past each stack's cards (heights vary from
    stack to stack, and at the end of the deck a block reads past the cells): the snapshot must
    still hold exactly the cards, zeros after them, and give the board back."""
    from mancala_envs.core.repetition import SNAPSHOT_BLOCK, snapshot_restore, snapshot_size, snapshot_take

    stacks, cells, head, fields = 5, 20, 120, (0, 2)
    heights = stacks * cells
    snap = head + 4
    rng = np.random.default_rng(5)
    state = np.zeros(snap + snapshot_size(stacks, cells, len(fields)) + 3, dtype=np.int32)
    state[-3:] = 99  # whatever follows the snapshot (the record) must be left alone
    for trial in range(200):
        board = state.copy()
        board[: stacks * cells + stacks] = 0
        # the cards: heights summing to at most `cells`, one stack possibly full to its last cell
        left = cells - int(rng.integers(0, 2 * trial % 7 + 1))
        for i in rng.permutation(stacks):
            n = int(rng.integers(0, left + 1)) if i != stacks - 1 else left
            n = min(n, left)
            board[i * cells : i * cells + n] = rng.integers(1, 3, n)
            board[heights + i] = n
            left -= n
        board[head : head + 3] = rng.integers(-1, 5, 3)
        snapshot_take(board, stacks, cells, heights, head, fields, snap)
        total = int(board[heights : heights + stacks].sum())
        packed = np.concatenate([board[i * cells : i * cells + board[heights + i]] for i in range(stacks)])
        cards = board[snap + stacks : snap + stacks + cells + SNAPSHOT_BLOCK]
        assert (cards[:total] == packed).all() and not cards[total:].any(), trial
        assert board[snap : snap + stacks].tolist() == board[heights : heights + stacks].tolist()
        assert board[-3:].tolist() == [99, 99, 99]
        restored = board.copy()
        restored[: stacks * cells + stacks] = 7
        restored[head : head + 3] = 0
        snapshot_restore(restored, stacks, cells, heights, head, fields, snap)
        assert (restored[: stacks * cells + stacks] == board[: stacks * cells + stacks]).all(), trial
        assert [restored[head + f] for f in fields] == [board[head + f] for f in fields]
        state = board  # the next snapshot overwrites this one (more or fewer cards)
