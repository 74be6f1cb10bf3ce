"""BatchEnv: rows equal scalar kernel runs move for move; the auto-reset contract; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import config

import mancala_envs
from mancala_envs import IllegalActionError, InvalidOptionError
from mancala_envs.core.game import State
from mancala_envs.registry import game_of
from mancala_envs.vector import BatchEnv

ENV_IDS = mancala_envs.list_envs()


def scalar_twin(game, seed):
    """A scalar re-enactment of the batch's dealing: one Generator, new games in slot order."""
    root = np.random.SeedSequence(seed)
    deal_seq, _ = root.spawn(2)
    rng = np.random.default_rng(deal_seq)

    def deal():
        array = np.zeros(game.state_size, dtype=np.int32)
        game.kernel.init(array, game.params, rng)
        return State(game, array)

    return deal


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rows_equal_scalar_runs_move_for_move(env_id):
    B = 16
    batch = BatchEnv(env_id, B, seed=3, max_plies=60)
    game = batch.game
    deal = scalar_twin(game, 3)
    states = [deal() for _ in range(B)]
    finished = 0
    for _ in range(400):
        for i, state in enumerate(states):
            assert np.array_equal(batch.states[i], state.array), f"slot {i} differs from its scalar twin"
            assert batch.players[i] == state.current_player
            np.testing.assert_array_equal(batch.masks[i], state.action_mask())
            np.testing.assert_array_equal(batch.obs[i], state.observation(state.current_player))
        actions = batch.sample_actions()
        for i in range(B):
            assert states[i].is_legal(int(actions[i]))
        result = batch.step(actions)
        for i in range(B):
            states[i].apply(int(actions[i]))
            ended_by_rules = states[i].is_terminal()
            capped = not ended_by_rules and states[i].plies >= 60
            assert result.terminated[i] == ended_by_rules
            assert result.truncated[i] == capped
            if ended_by_rules or capped:
                finished += 1
                np.testing.assert_array_equal(result.final_obs[i, 0], states[i].observation(0))
                np.testing.assert_array_equal(result.final_obs[i, 1], states[i].observation(1))
                assert result.final_scores[i].tolist() == states[i].scores()
                expected = states[i].returns() if ended_by_rules else [0.0, 0.0]
                assert result.rewards[i].tolist() == expected
            else:
                assert result.rewards[i].tolist() == [0.0, 0.0]
        for i in range(B):  # the batch deals the new games in slot order, and so does the twin
            if result.terminated[i] or result.truncated[i]:
                states[i] = deal()
    assert finished > B, "the run should cover many auto-resets"


def test_same_seed_same_games_and_different_seed_differs():
    def run(seed):
        batch = BatchEnv("kalah-chosen-start-v0", 8, seed=seed)
        trace = []
        for _ in range(100):
            actions = batch.sample_actions()
            batch.step(actions)
            trace.append(batch.states.copy())
        return np.stack(trace)

    assert np.array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["kalah-v0", "progressive-v0"])
def test_serial_and_parallel_steps_give_the_same_games(env_id):
    from mancala_envs.vector import ThreadChooser

    def run(parallel, mixed=False):
        batch = BatchEnv(env_id, 8, seed=4, parallel=True)
        batch.threads = ThreadChooser(every=3, trials=1) if mixed else ThreadChooser.always(parallel)
        trace = []
        for _ in range(120):
            batch.step(batch.sample_actions())
            trace.append(batch.states.copy())
        return np.stack(trace)

    serial = run(False)
    assert np.array_equal(serial, run(True))
    assert np.array_equal(serial, run(False, mixed=True))


def test_step_takes_read_only_and_foreign_action_arrays():
    # after its first call the step runs through the compiled entry, which does not check types
    # (vector._entry_point): step() hands it contiguous int64 actions and bool flags only
    one, other = BatchEnv("kalah-v0", 16, seed=2), BatchEnv("kalah-v0", 16, seed=2)
    for k in range(30):
        actions = one.sample_actions()
        other.sample_actions()
        foreign = actions.astype(np.int32)[::-1].copy()[::-1] if k % 3 == 0 else actions.copy()
        foreign.flags.writeable = k % 2 == 1
        active = np.arange(16) % 4 != k % 4
        one.step(actions, active)
        other.step(foreign, list(active) if k % 5 == 0 else active)
        assert np.array_equal(one.states, other.states) and np.array_equal(one.obs, other.obs)


@pytest.mark.parametrize("num_envs", [13, 64])
def test_serial_and_parallel_steps_fill_the_same_arrays(num_envs):
    # Every array a step fills, not only the states: numba's parallel loop drops a write it
    # believes dead, and the step's arrays are views it cannot see through (core.inline.unowned).
    # 13 games: the flags' padding to whole words (the parallel step reads them 8 at a time).
    from mancala_envs.vector import ThreadChooser

    def run(parallel):
        batch = BatchEnv("kalah-v0", num_envs, seed=5, parallel=True, max_plies=40)
        batch.threads = ThreadChooser.always(parallel)
        trace = []
        for step in range(150):
            active = None if step % 7 else np.arange(num_envs) % 3 != 0  # some steps partial
            result = batch.step(batch.sample_actions(), active)
            trace.append([a.copy() for a in (result.obs, result.players, result.rewards, result.terminated,
                                             result.truncated, result.final_obs, result.final_scores,
                                             result.movers, batch.masks, batch.states, batch.episodes)])
        return trace

    serial, parallel = run(False), run(True)
    assert any(row[3].any() for row in serial) and any(row[4].any() for row in serial)
    for step, (one, other) in enumerate(zip(serial, parallel)):
        for k, (a, b) in enumerate(zip(one, other)):
            assert np.array_equal(a, b), f"step {step}: array {k} differs between the serial and parallel steps"


@pytest.mark.slow
def test_progressive_parallel_step_runs_its_loop_in_parallel():
    # Progressive's guard raises inside its kernel; inside the prange loop that raise gave the
    # loop a second exit and numba ran it serially, saying so in a NumbaPerformanceWarning at
    # compile time. The step is cached on disk, so compile a fresh copy of it here.
    import warnings

    import numba
    from numba.core.errors import NumbaPerformanceWarning

    batch = BatchEnv("progressive-v0", 4, seed=1, parallel=True)
    cached = batch._parallel_step
    options = {k: v for k, v in cached.targetoptions.items() if k != "nopython"}  # njit sets it already
    fresh = numba.njit(**options)(cached.py_func)
    head, tail = batch._step_arguments
    arguments = (*head, batch.sample_actions(), batch._all, *tail, False, *batch._draw_arguments)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh(*arguments)
    slow = [str(w.message) for w in caught if issubclass(w.category, NumbaPerformanceWarning)]
    assert not slow, slow


def test_progressive_guard_error_reaches_the_caller_from_both_steps():
    from mancala_envs.games.progressive import P_STEP_LIMIT, SowingBoundError
    from mancala_envs.vector import ThreadChooser

    messages = []
    for parallel in (False, True):
        game = game_of("progressive-v0")
        game.params = game.params.copy()
        game.params[P_STEP_LIMIT] = 3  # lowered so that the guard fires (its real bound is never met)
        batch = BatchEnv(game, 8, seed=5, parallel=True)
        batch.threads = ThreadChooser.always(parallel)
        # a step that moves nothing: the next steps go through the compiled entry
        # (vector._entry_point), and so does the error
        batch.step(batch.sample_actions(), np.zeros(8, dtype=bool))
        assert config.DISABLE_JIT or batch._entries[parallel] is not None
        with pytest.raises(SowingBoundError) as error:
            for _ in range(50):
                batch.step(batch.sample_actions())
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert "more than the proven bound of 3" in messages[0]


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["kalah-bidirectional-v0", "widdershins-v0"])
def test_specialised_step_gives_the_same_games(env_id):
    batches = [BatchEnv(env_id, 6, seed=2, specialise=specialise) for specialise in (False, True)]
    for _ in range(80):
        actions = batches[0].sample_actions()
        assert np.array_equal(actions, batches[1].sample_actions())
        results = [batch.step(actions) for batch in batches]
        for name in ("obs", "players", "rewards", "terminated", "truncated", "final_scores"):
            assert np.array_equal(getattr(results[0], name), getattr(results[1], name)), name
        assert np.array_equal(batches[0].states, batches[1].states)
        assert np.array_equal(batches[0].masks, batches[1].masks)


def test_reset_without_seed_deals_the_generators_next_games():
    batch = BatchEnv("rondell-v0", 8, seed=4)
    for _ in range(40):
        batch.step(batch.sample_actions())
    dealt = int(batch.episodes.sum())
    batch.reset()
    deal = scalar_twin(batch.game, 4)
    games = [deal().array for _ in range(dealt + 8)]
    assert np.array_equal(batch.states, np.stack(games[dealt:]))
    assert batch.episodes.tolist() == [1] * 8


def test_inactive_games_are_untouched_and_movers_reported():
    batch = BatchEnv("kalah-v0", 4, seed=0)
    before = batch.states.copy()
    active = np.array([True, False, True, False])
    result = batch.step(batch.sample_actions(), active)
    assert np.array_equal(batch.states[1], before[1]) and np.array_equal(batch.states[3], before[3])
    assert not np.array_equal(batch.states[0], before[0])
    assert result.movers.tolist() == [0, -1, 0, -1]


def test_extra_turn_keeps_the_same_player():
    batch = BatchEnv("kalah-v0", 2, seed=0)
    result = batch.step(np.array([2, 0]))  # Pratt's hole 4 ends in the store: extra turn
    assert result.players.tolist() == [0, 1]


def test_illegal_action_changes_nothing_and_names_the_game():
    batch = BatchEnv("kalah-v0", 3, seed=0)
    batch.step(np.array([2, 2, 2]))  # the three games' hole 4 is now empty, player 0 moves again
    before = batch.states.copy()
    with pytest.raises(IllegalActionError, match=r"game 1: action 2 is not legal for player 0; legal actions are \[0, 1, 3, 4, 5\]"):
        batch.step(np.array([0, 2, 0]))
    assert np.array_equal(batch.states, before)
    with pytest.raises(IllegalActionError, match="out of range|not legal"):
        batch.step(np.array([0, 6, 0]))
    with pytest.raises(IllegalActionError, match=r"shape \(3,\)"):
        batch.step(np.array([0, 1]))


def test_bad_construction():
    with pytest.raises(InvalidOptionError, match="num_envs must be a positive integer"):
        BatchEnv("kalah-v0", 0)
    with pytest.raises(mancala_envs.UnknownEnvError):
        BatchEnv("kalah-v9", 2)
    with pytest.raises(InvalidOptionError, match="pits"):
        BatchEnv("kalah-v0", 2, pits=0)


def test_actions_drawn_ahead_by_the_step_equal_a_fresh_draw():
    """The step draws the next random actions while sample_actions is in use; the draw is the
    one sample_actions itself would make (one stream per game), and a second call draws anew."""
    ahead, fresh = (BatchEnv("kalah-v0", 8, seed=9) for _ in range(2))
    for _ in range(60):
        actions = ahead.sample_actions()
        assert np.array_equal(actions, fresh.sample_actions())
        ahead.step(actions)
        fresh._draw_next = False  # this step does not draw ahead: the next sample_actions draws itself
        fresh.step(actions)
        assert np.array_equal(ahead.states, fresh.states)
    first, second = ahead.sample_actions(), ahead.sample_actions()
    assert not np.array_equal(first, second)  # 8 games, each with several legal actions
    for actions in (first, second):
        assert all(ahead.masks[i, a] == 1 for i, a in enumerate(actions))


@pytest.mark.slow
def test_batch_threads_benchmark_runs_and_writes_its_file(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "batch_threads.json"
    cmd = [sys.executable, "benchmarks/batch_threads.py", "--rounds", "1", "--steps", "5", "--out", str(out)]
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    (row,) = figures["rounds"]  # no timing is asserted, only that every figure was measured
    assert set(row) == {"pair_cores", "serial_us", "parallel_us", "parallel_speedup",
                        "first_parallel_us", "second_parallel_us"}
    assert all(value > 0 for value in row.values())
    assert figures["batch_size"] == 1024 and "pair_cores" in done.stdout


# -- the thread chooser's decisions, from injected step times (no timing is measured) -------------


def _run_chooser(chooser, steps, serial_seconds, parallel_seconds):
    """Feed ``chooser`` ``steps`` steps; ``parallel_seconds(k)`` is the k-th parallel step's time
    (counted from 0 over this call). Returns whether each step ran in parallel."""
    used, parallel_count = [], 0
    for _ in range(steps):
        parallel = chooser.next_choice()
        used.append(parallel)
        if parallel:
            chooser.record(True, parallel_seconds(parallel_count))
            parallel_count += 1
        else:
            chooser.record(False, serial_seconds)
    return used


def test_thread_chooser_probes_in_blocks_and_ignores_the_worker_wake_up():
    from mancala_envs.vector import ThreadChooser

    chooser = ThreadChooser(every=10, trials=3)
    # the first parallel step after serial ones waits for the worker thread (50x), the rest are 2x faster
    used = _run_chooser(chooser, 8, 0.001, lambda k: 0.050 if k == 0 else 0.0005)
    assert used == [False] * 4 + [True] * 4  # a block of serial steps, then one of parallel steps
    assert chooser.current and chooser.gap == 10 and chooser.serial_median == 0.001
    # with one compared step per block: the first serial step (after parallel ones, it reads back the
    # games the worker wrote) and the first parallel one are not compared
    chooser = ThreadChooser(every=10, trials=1)
    for parallel, seconds in ((False, 0.005), (False, 0.001), (True, 0.050), (True, 0.0008)):
        assert chooser.next_choice() == parallel
        chooser.record(parallel, seconds)
    assert chooser.current and chooser.serial_median == 0.001


def test_thread_chooser_gives_up_on_a_slow_parallel_step_and_bounds_its_backoff():
    from mancala_envs.vector import ThreadChooser

    every, trials = 20, 2
    chooser = ThreadChooser(every=every, trials=trials)
    # a busy core: the wake-up step and the first compared one wait 4.5 ms, which ends the probe
    used = _run_chooser(chooser, 5, 0.001, lambda k: 0.0045)
    assert used == [False] * 3 + [True] * 2 and not chooser.current
    # the next probe waits until those two steps' 2 x 3.5 ms over the serial one are 5% of the time
    assert chooser.gap == math.ceil(2 * 0.0035 / (ThreadChooser.PROBE_SHARE * 0.001)) == 140
    _run_chooser(chooser, chooser.until_probe, 0.001, None)
    # lost again: 2.5% of the time, the gap doubled, but a lost probe holds the serial step for at
    # most MAX_HOLD_SECONDS (0.2 s: 200 serial steps of 1 ms)
    _run_chooser(chooser, 5, 0.001, lambda k: 0.0045)
    assert not chooser.current and chooser.gap == math.ceil(ThreadChooser.MAX_HOLD_SECONDS / 0.001) == 200
    # a parallel step slightly slower than the serial one: lost narrowly, the gap doubles up to MAX_BACKOFF
    gaps = []
    for _ in range(6):
        _run_chooser(chooser, chooser.until_probe, 0.001, None)
        used = _run_chooser(chooser, 2 * (trials + 1), 0.001, lambda k: 0.00101)
        assert used == [False] * (trials + 1) + [True] * (trials + 1)
        gaps.append(chooser.gap)
    assert gaps == [every * 2 ** k for k in (2, 3, 3, 3, 3, 3)] and ThreadChooser.MAX_BACKOFF == 8
    # one stall of the worker thread (2 s) holds the serial step for at most MAX_HOLD_SECONDS
    _run_chooser(chooser, chooser.until_probe + trials + 1, 0.001, None)
    _run_chooser(chooser, 2, None, lambda k: 2.0)
    assert not chooser.current and chooser.gap == 200
    # with faster serial steps the hold is as long in time, so longer in steps
    fast = ThreadChooser(every=every, trials=trials)
    _run_chooser(fast, 5, 0.0001, lambda k: 2.0)
    assert not fast.current and fast.gap == math.ceil(ThreadChooser.MAX_HOLD_SECONDS / 0.0001) == 2000
    # the machine got quiet: the next probe takes the parallel step, and the gap is `every` again
    _run_chooser(chooser, chooser.until_probe, 0.001, None)
    _run_chooser(chooser, 2 * (trials + 1), 0.002, lambda k: 0.001)
    assert chooser.current and chooser.gap == every and chooser.next_choice()


def test_thread_chooser_leaves_a_parallel_step_that_stays_slow():
    from mancala_envs.vector import ThreadChooser

    chooser = ThreadChooser(every=100, trials=2)
    _run_chooser(chooser, 6, 0.001, lambda k: 0.0005)  # a probe won by the parallel step (a quiet moment)
    assert chooser.current and chooser.serial_median == 0.001
    _run_chooser(chooser, 10, None, lambda k: 0.0005)  # parallel steps at their probed speed: kept
    chooser.record(True, 0.020)  # one slow step: the worker's wake-up after a pause of the caller's
    assert chooser.current
    chooser.record(True, 0.0005)
    chooser.record(True, 0.008)  # the busy core is back: two steps in a row 8x the serial median
    chooser.record(True, 0.008)
    assert not chooser.current and not chooser.next_choice()  # serial from the next step on
    # the next probe waits until the last step's 7 ms over the serial one are 5% of the time
    assert chooser.until_probe == math.ceil(0.007 / (ThreadChooser.PROBE_SHARE * 0.001)) == 140
    assert chooser.steps_run == {False: 3, True: 17} and chooser.parallel_share() == 17 / 20
    assert chooser.probes_won == {False: 1, True: 1}  # the probe, then the switch back
    assert ThreadChooser().parallel_share() is None


def test_thread_chooser_wants_a_clear_parallel_win_and_forced_modes_never_switch():
    from mancala_envs.vector import ThreadChooser

    chooser = ThreadChooser(every=10, trials=2)
    _run_chooser(chooser, 6, 0.001, lambda k: 0.00095)  # 0.95x: within a probe's noise, not worth the risk
    assert not chooser.current
    won = ThreadChooser(every=10, trials=2)
    _run_chooser(won, 6, 0.001, lambda k: 0.00085)  # 0.85x: taken (a quiet machine's, measured 0.73-0.88x)
    assert won.current
    for parallel in (False, True):
        always = ThreadChooser.always(parallel)
        assert _run_chooser(always, 30, 1.0, lambda k: 1.0) == [parallel] * 30
    with pytest.raises(ValueError, match="trials >= 1"):
        ThreadChooser(trials=0)


def test_a_steps_first_call_is_not_timed_by_the_chooser():
    batch = BatchEnv("kalah-v0", 8, seed=0, parallel=True)
    batch.step(batch.sample_actions())  # loads the serial step: not a probe sample
    assert batch.threads.steps_run == {False: 0, True: 0} and not batch.threads.next_choice()
    for _ in range(batch.threads.trials + 2):  # the serial block, then the parallel step's first call
        batch.step(batch.sample_actions())
    assert batch.threads.steps_run == {False: batch.threads.trials + 1, True: 0}
    assert batch.threads.next_choice()
