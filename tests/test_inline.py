"""core.inline: kernels inlined into a loop play the same games; unowned views share memory; borrowed
bundles carry no reference counts."""

from __future__ import annotations

from typing import NamedTuple

import sys

import numpy as np
import pytest
from numba import njit, typeof

import mancala_envs
from mancala_envs.core.inline import _counts_references, borrowed_bundle, inline_kernel, unowned

IDS = mancala_envs.list_envs()


def _replay_loop(kernel):
    """A jitted loop, built like agents.mcts builds its search, that replays moves."""
    k = inline_kernel(kernel)
    legal_mask, apply, current_player, plies = k.legal_mask, k.apply, k.current_player, k.plies

    @njit
    def replay(params_owned, state_owned, mask_owned, actions, masks_out):
        params = unowned(params_owned)
        state = unowned(state_owned)
        mask = unowned(mask_owned)
        for i in range(actions.shape[0]):
            legal_mask(state, params, mask)
            for a in range(mask.shape[0]):
                masks_out[i, a] = mask[a]
            apply(state, params, actions[i])
        return current_player(state, params), plies(state, params)

    return replay


@pytest.mark.parametrize("env_id", IDS)
def test_an_inlined_kernel_plays_the_same_game_as_the_state_api(env_id):
    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(7)
    state = game.new_state(3)
    start = state.array.copy()
    actions, masks = [], []
    while not state.is_terminal() and len(actions) < 300:
        mask = state.action_mask()
        masks.append(mask.copy())
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        state.apply(action)
    work = start.copy()
    masks_out = np.zeros((len(actions), game.num_actions), np.int8)
    player, plies = _replay_loop(game.kernel)(
        game.params, work, np.zeros(game.num_actions, np.int8), np.array(actions, np.int64), masks_out
    )
    np.testing.assert_array_equal(work, state.array)
    np.testing.assert_array_equal(masks_out, np.array(masks, np.int8).reshape(masks_out.shape))
    assert (player, plies) == (state.current_player, len(actions))


def test_inline_kernel_is_memoised_per_kernel():
    kernel = mancala_envs.make_game("kalah-v0").kernel
    assert inline_kernel(kernel) is inline_kernel(kernel)
    chosen = mancala_envs.make_game("kalah-chosen-start-v0").kernel
    assert inline_kernel(chosen) is not inline_kernel(kernel)


@njit
def _through_view(owner):
    view = unowned(owner)
    view[1] = 7
    row = view[1:]  # a slice of the view is a view too
    row[0] += 1
    return view.shape[0], view[1], owner[1]


def test_an_unowned_view_shares_its_owners_memory():
    owner = np.zeros(4, np.int32)
    assert _through_view(owner) == (4, 8, 8)
    assert owner.tolist() == [0, 8, 0, 0]


class _Bundle(NamedTuple):
    counts: np.ndarray  # int64[3]
    flags: np.ndarray  # int8[2]
    limit: int


@njit
def _through_bundle(owner):
    bundle = unowned(owner)
    bundle.counts[0] += bundle.limit
    bundle.flags[1] = 1
    return bundle.counts.shape[0], bundle.limit


def test_an_unowned_bundle_shares_every_arrays_memory():
    owner = _Bundle(np.zeros(3, np.int64), np.zeros(2, np.int8), 5)
    assert _through_bundle(owner) == (3, 5)
    assert owner.counts.tolist() == [5, 0, 0] and owner.flags.tolist() == [0, 1]


@borrowed_bundle
class _BorrowedBundle(NamedTuple):
    counts: np.ndarray  # int64[3]
    flags: np.ndarray  # int64[3]


@njit(inline="always")
def _add_flag(bundle, k):
    bundle.counts[k] += bundle.flags[k]


@njit
def _add_flags(bundle):
    """The bundle through an inlined helper (a copy of the variable) and an unowned view."""
    for k in range(bundle.counts.shape[0]):
        _add_flag(bundle, k)
    view = unowned(bundle)
    _add_flag(view, 0)
    return view.counts.sum()


def test_a_borrowed_bundle_is_not_counted_and_leaves_its_arrays_as_they_were():
    """Only a declared bundle's type skips reference counts; its arrays are neither kept (a
    count never given back would hold a reference to them) nor lost, and the code computes
    as before."""
    assert _counts_references(typeof(_Bundle(np.zeros(3, np.int64), np.zeros(2, np.int8), 5)))
    owner = _BorrowedBundle(np.zeros(3, np.int64), np.arange(1, 4, dtype=np.int64))
    assert not _counts_references(typeof(owner))
    before = sys.getrefcount(owner.counts), sys.getrefcount(owner.flags)
    assert [_add_flags(owner) for _ in range(3)] == [7, 14, 21]
    assert owner.counts.tolist() == [6, 6, 9]
    assert (sys.getrefcount(owner.counts), sys.getrefcount(owner.flags)) == before
