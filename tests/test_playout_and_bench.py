"""random_playouts (the numba playout loop over the kernel contract), and smoke runs of
benchmarks/run.py and benchmarks/soak.py. No timing is asserted anywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from numba import njit

import mancala_envs
from mancala_envs.core import playout
from mancala_envs.core.game import Kernel, State
from mancala_envs.core.jit_helpers import nth_set_bit, random_legal_action, random_legal_action_of_bits
from mancala_envs.core.playout import InvariantViolation, random_playouts

ROOT = Path(__file__).resolve().parent.parent
ENV_IDS = mancala_envs.list_envs()


def _counts(totals):
    """The totals without the fields that may differ between equal runs."""
    d = totals.to_dict()
    for key in ("seconds", "checked"):
        d.pop(key)
    return d


# -- determinism and consistency -------------------------------------------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_totals(env_id):
    game = mancala_envs.make_game(env_id)
    a = random_playouts(game, 300, seed=11, return_lengths=True)
    b = random_playouts(game, 300, seed=11, return_lengths=True)
    c = random_playouts(game, 300, seed=11, check_invariants=True, return_lengths=True)
    assert _counts(a) == _counts(b) == _counts(c)  # checking must not change the games
    assert np.array_equal(a.lengths, b.lengths) and np.array_equal(a.lengths, c.lengths)
    d = random_playouts(game, 300, seed=12, return_lengths=True)
    assert not np.array_equal(a.lengths, d.lengths)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_invariants_hold_for_every_id(env_id):
    game = mancala_envs.make_game(env_id)
    totals = random_playouts(game, 3000, seed=5, check_invariants=True)
    assert totals.ok and totals.violation is None
    assert totals.games == totals.n_games == 3000


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_totals_are_consistent(env_id):
    game = mancala_envs.make_game(env_id)
    n = 500
    t = random_playouts(game, n, seed=3, return_lengths=True)
    assert t.lengths.shape == (n,)
    assert t.moves == int(t.lengths.sum())
    assert t.finished + t.truncated == t.games == n
    assert t.wins[0] + t.wins[1] + t.draws == t.finished
    assert t.longest == int(t.lengths.max()) and t.shortest == int(t.lengths.min())
    assert t.max_plies == game.max_plies
    assert random_playouts(game, 0, seed=3).games == 0


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_truncation_at_max_plies(env_id):
    game = mancala_envs.make_game(env_id)
    t = random_playouts(game, 200, seed=1, max_plies=5, return_lengths=True, check_invariants=True)
    assert t.finished + t.truncated == 200
    assert t.lengths.max() <= 5
    # every game that did not finish stopped exactly at the cap
    assert (t.lengths == 5).sum() >= t.truncated
    assert (t.lengths < 5).sum() <= t.finished
    assert t.moves == int(t.lengths.sum())


def _splitmix64(s: int) -> tuple[int, int]:
    mask = 2**64 - 1
    s = (s + 0x9E3779B97F4A7C15) & mask
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return s, z ^ (z >> 31)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_matches_a_python_replay_through_the_state_api(env_id):
    """The numba loop plays exactly the games its documented PRNG describes."""
    game = mancala_envs.make_game(env_id)
    n, seed = 40, 2024
    t = random_playouts(game, n, seed, return_lengths=True)
    rng = np.random.default_rng(seed)  # the Generator given to init, as random_playouts does
    s = seed
    lengths, wins, draws = [], [0, 0], 0
    for _ in range(n):
        array = np.zeros(game.state_size, dtype=np.int32)
        game.kernel.init(array, game.params, rng)
        state = State(game, array)
        moves = 0
        while not state.is_terminal() and (game.max_plies is None or state.plies < game.max_plies):
            legal = state.legal_actions()
            s, bits = _splitmix64(s)
            state.apply(legal[((bits >> 32) * len(legal)) >> 32])
            moves += 1
        lengths.append(moves)
        if state.is_terminal():
            r = state.returns()
            if r[0] > r[1]:
                wins[0] += 1
            elif r[1] > r[0]:
                wins[1] += 1
            else:
                draws += 1
    assert t.lengths.tolist() == lengths
    assert list(t.wins) == wins and t.draws == draws


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["kalah-v0", "rondell-v0"])
def test_specialised_loop_plays_the_same_games(env_id):
    game = mancala_envs.make_game(env_id)
    generic = random_playouts(game, 200, seed=21, return_lengths=True)
    fixed = random_playouts(game, 200, seed=21, return_lengths=True, specialise=True)
    assert _counts(generic) == _counts(fixed)
    assert np.array_equal(generic.lengths, fixed.lengths)


def test_kalah_only_benchmark_loop_plays_the_same_games():
    """benchmarks/kalah_only.py, the generic kernel's measuring stick, plays kalah-v0's games."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import kalah_only
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    totals = random_playouts(mancala_envs.make_game("kalah-v0"), 500, seed=8)
    moves, finished, truncated, _ = kalah_only.kalah_only_playouts(500, 8)
    assert (moves, finished, truncated) == (totals.moves, totals.finished, totals.truncated)
    plain_moves, plain_games, _ = kalah_only.plain_python_kalah_playouts(0.05)
    assert plain_games >= 1 and plain_moves > 0


def test_bad_arguments():
    game = mancala_envs.make_game("kalah-v0")
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError):
            random_playouts(game, bad, seed=0)
    with pytest.raises(ValueError):
        random_playouts(game, 10, seed=-1)
    with pytest.raises(ValueError):
        random_playouts(game, 10, seed=0, max_plies=-3)


# -- a deliberately broken kernel is caught ---------------------------------------------------
# One set of wrappers around a real kernel; the fault to inject is the last entry of params
# (the inner kernel gets the params without it), so one compilation covers every fault.
NO_FAULT = 0
FAULTS = {
    "mask count too high": (1, playout.V_MASK_COUNT),
    "mask entries not written": (2, playout.V_MASK_VALUES),
    "no legal move while not over": (3, playout.V_NO_LEGAL_MOVE),
    "legal_mask writes the state": (4, playout.V_READ_ONLY),
    "current_player out of range": (5, playout.V_PLAYER_RANGE),
    "plies not 0 at the start": (6, playout.V_INIT_PLIES),
    "plies grows by 2": (7, playout.V_PLIES_STEP),
    "returns before the end": (8, playout.V_RETURNS_BEFORE_END),
    "final returns do not sum to 0": (9, playout.V_RETURNS_SUM),
    "final return out of range": (10, playout.V_RETURNS_RANGE),
    "finished position has moves": (11, playout.V_TERMINAL_HAS_MOVES),
}


def _faulty_kernel(real: Kernel) -> Kernel:
    r_init, r_mask, r_apply, r_player = real.init, real.legal_mask, real.apply, real.current_player
    r_scores, r_returns, r_observe, r_plies = real.scores, real.returns, real.observe, real.plies

    @njit
    def split(params):
        n = params.shape[0] - 1
        return params[:n].copy(), params[n]

    @njit
    def init(state, params, rng):
        p, _ = split(params)
        r_init(state, p, rng)

    @njit
    def legal_mask(state, params, mask):
        p, fault = split(params)
        count = r_mask(state, p, mask)
        if fault == 1 and count > 0:
            return count + 1
        if fault == 2:
            for a in range(mask.shape[0]):
                if mask[a] == 0:
                    mask[a] = 2
        if fault == 3 and r_player(state, p) >= 0 and r_plies(state, p) == 4:
            for a in range(mask.shape[0]):
                mask[a] = 0
            return 0
        if fault == 4 and r_plies(state, p) == 3:
            state[0] += 1
        if fault == 11 and r_player(state, p) < 0:
            mask[0] = 1
            return 1
        return count

    @njit
    def apply(state, params, action):
        p, _ = split(params)
        r_apply(state, p, action)

    @njit
    def current_player(state, params):
        p, fault = split(params)
        if fault == 5 and r_plies(state, p) == 3:
            return 2
        return r_player(state, p)

    @njit
    def scores(state, params, out):
        p, _ = split(params)
        r_scores(state, p, out)

    @njit
    def returns(state, params, out):
        p, fault = split(params)
        r_returns(state, p, out)
        if fault == 8 and r_plies(state, p) == 2:
            out[0] = 0.5
        if fault == 9 and out[0] != 0.0:
            out[1] = out[0]
        if fault == 10 and out[0] != 0.0:
            out[0] *= 2.0
            out[1] *= 2.0

    @njit
    def observe(state, params, player, out):
        p, _ = split(params)
        r_observe(state, p, player, out)

    @njit
    def plies(state, params):
        p, fault = split(params)
        value = r_plies(state, p)
        if fault == 6:
            return value + 1
        if fault == 7:
            return 2 * value
        return value

    return Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)


@pytest.fixture(scope="module")
def faulty():
    real = mancala_envs.make_game("kalah-v0")  # any registered game would do
    kernel = _faulty_kernel(real.kernel)

    def make(fault: int):
        return SimpleNamespace(
            env_id=f"faulty-{fault}",
            kernel=kernel,
            params=np.append(real.params, np.int64(fault)),
            state_size=real.state_size,
            num_actions=real.num_actions,
            max_plies=real.max_plies,
        )

    return make


@pytest.mark.slow
def test_faulty_wrapper_without_fault_passes(faulty):
    real = mancala_envs.make_game("kalah-v0")
    wrapped = random_playouts(faulty(NO_FAULT), 200, seed=9, check_invariants=True)
    assert wrapped.ok
    assert _counts(wrapped) | {"env_id": "x"} == _counts(random_playouts(real, 200, seed=9)) | {"env_id": "x"}


@pytest.mark.parametrize("name", list(FAULTS))
def test_broken_kernel_is_caught(faulty, name):
    fault, code = FAULTS[name]
    with pytest.raises(InvariantViolation) as caught:
        random_playouts(faulty(fault), 500, seed=4, check_invariants=True)
    assert caught.value.violation.code == code, str(caught.value)
    assert playout.VIOLATION_MESSAGES[code] in str(caught.value)
    # without raising, the totals so far come back with the violation
    totals = random_playouts(faulty(fault), 500, seed=4, check_invariants=True, raise_on_violation=False)
    assert not totals.ok and totals.violation.code == code
    assert totals.games == totals.violation.game < 500


def test_unchecked_run_trusts_the_kernel(faulty):
    """Without check_invariants the same broken kernel is not inspected (the checks cost nothing)."""
    fault, _ = FAULTS["returns before the end"]
    assert random_playouts(faulty(fault), 100, seed=4).ok


# -- the legal_bits hook (Game.legal_bits) ---------------------------------------------------
@njit
def _nth_set_bit(bits, n):
    return nth_set_bit(bits, n)


@njit
def _draws(seed, bits_list, masks):
    """The moves random_legal_action_of_bits and random_legal_action draw, from one seed each."""
    out = np.zeros((bits_list.shape[0], 2), np.int64)
    for i in range(bits_list.shape[0]):
        s1, out[i, 0] = random_legal_action_of_bits(np.uint64(seed + i), bits_list[i])
        s2, out[i, 1] = random_legal_action(np.uint64(seed + i), masks[i], masks[i].sum())
    return out


def test_nth_set_bit_matches_a_scan():
    rng = np.random.default_rng(5)
    words = [0, 1, 2**63, 2**64 - 1] + [int(w) for w in rng.integers(0, 2**63, 300, dtype=np.int64)]
    words += [w & int(m) for w, m in zip(words[4:], rng.integers(0, 2**63, 300, dtype=np.int64))]
    for word in words:
        positions = [i for i in range(64) if word >> i & 1]
        for n in range(min(64, len(positions) + 2)):
            assert _nth_set_bit(np.uint64(word), n) == (positions[n] if n < len(positions) else -1), (word, n)


def test_random_legal_action_of_bits_draws_as_the_mask():
    rng = np.random.default_rng(6)
    bits = rng.integers(1, 2**26, 2000, dtype=np.int64)
    masks = ((bits[:, None] >> np.arange(26)) & 1).astype(np.int8)
    drawn = _draws(77, bits, masks)
    assert (drawn[:, 0] == drawn[:, 1]).all()


@pytest.mark.parametrize("env_id", ["widdershins-v0", "widdershins-parlett-v0"])
def test_legal_bits_hook_gives_the_same_games(env_id):
    """The loop with the hook (the bits) and without it (legal_mask's mask) play the same games;
    the checked loop also checks the two agree at every position."""
    game = mancala_envs.make_game(env_id)
    assert game.legal_bits is not None
    without = SimpleNamespace(env_id=env_id, kernel=game.kernel, params=game.params, state_size=game.state_size,
                              num_actions=game.num_actions, max_plies=game.max_plies)
    with_hook = random_playouts(game, 150, seed=12, return_lengths=True)
    assert random_playouts(game, 150, seed=12, check_invariants=True).ok
    plain = random_playouts(without, 150, seed=12, return_lengths=True)
    assert _counts(with_hook) == _counts(plain)
    assert (with_hook.lengths == plain.lengths).all()


@njit
def _no_moves(state, params):
    return 0


@pytest.mark.slow
def test_a_hook_that_disagrees_with_legal_mask_is_caught():
    real = mancala_envs.make_game("kalah-v0")
    wrong = SimpleNamespace(env_id="wrong-bits", kernel=real.kernel, params=real.params, state_size=real.state_size,
                            num_actions=real.num_actions, max_plies=real.max_plies, legal_bits=_no_moves)
    with pytest.raises(InvariantViolation) as caught:
        random_playouts(wrong, 5, seed=1, check_invariants=True)
    assert caught.value.violation.code == playout.V_LEGAL_BITS


# -- smoke runs of the scripts ----------------------------------------------------------------
def _run(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


@pytest.mark.slow
def test_benchmark_smoke_run(tmp_path):
    out = tmp_path / "nested" / "bench.json"
    proc = _run(["benchmarks/run.py", "--smoke", "--out", str(out)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert not list(out.parent.glob("*.tmp"))
    assert {"schema", "created", "mode", "machine", "targets", "figures", "ratios", "total_seconds"} <= set(report)
    assert report["mode"] == "smoke"
    assert {"python", "numba", "cpu_count", "numba_threads"} <= set(report["machine"])
    assert report["machine"]["numba_threads"] == 1
    assert set(report["targets"]) == {
        "kernel_moves_per_s", "kernel_vs_kalah_only", "aec_vs_tictactoe", "batch_steps_per_s", "batch_vs_openspiel",
        "ppo_vs_trivial", "mcts_vs_openspiel", "cold_start_seconds", "cards_vs_baseline",
    }
    assert report["targets"]["kernel_vs_kalah_only"]["value"] == 0.9
    assert report["targets"]["cold_start_seconds"]["value"] == 1.0
    limit = report["figures"]["kernel_limit"]
    assert limit["status"] == "ok" and limit["same_games"] is True, limit
    assert limit["ratio_generic"] > 0 and limit["ratio_specialised"] > 0
    assert report["figures"]["plain_python"]["status"] == "ok"
    assert "load_average" in report
    assert report["targets"]["mcts_vs_openspiel"]["value"] == 2.0
    assert report["targets"]["batch_vs_openspiel"]["value"] == 20.0
    assert report["targets"]["ppo_vs_trivial"]["value"] == 0.8
    assert report["targets"]["kernel_moves_per_s"]["value"] == 10_000_000
    assert report["targets"]["aec_vs_tictactoe"]["value"] == 3.0
    figures = report["figures"]
    assert {"kernel", "kernel_by_id", "aec", "tictactoe", "openspiel", "state_api"} <= set(figures)
    assert set(figures["kernel_by_id"]) == set(ENV_IDS)
    assert set(figures["aec_by_id"]) == set(ENV_IDS)
    assert set(figures["batch_by_id"]) == set(ENV_IDS)
    for fig in list(figures["batch_by_id"].values()) + [figures["batch"]]:
        assert fig["status"] == "ok" and fig["value"] > 0, fig
    assert figures["ppo_selfplay"]["status"] in ("ok", "not installed"), figures["ppo_selfplay"]
    if figures["ppo_selfplay"]["status"] == "ok":
        assert figures["ppo_selfplay"]["cpu_ratio"] > 0 and 0 < figures["ppo_selfplay"]["env_cpu_share"] < 1
    modes = figures["batch_modes"]
    for mode in ("serial", "parallel", "busy_core_chosen", "busy_core_serial", "busy_core_parallel"):
        assert modes[mode]["status"] == "ok" and modes[mode]["value"] > 0, modes
    assert list(figures["ppo_selfplay_by_envs"]) == ["4"] and "ppo_selfplay_vs_trivial_env_by_envs" in report["ratios"]
    for name in ("kernel", "aec", "state_api"):
        assert figures[name]["status"] == "ok", figures[name]
        assert figures[name]["value"] > 0
    for fig in figures["kernel_by_id"].values():
        assert fig["status"] == "ok" and fig["value"] > 0
    assert figures["mcts"]["status"] == "ok" and figures["mcts"]["value"] > 0, figures["mcts"]
    assert figures["mcts"]["sims"] == 200 and figures["mcts"]["unit"] == "sims/s"
    for name in ("tictactoe", "openspiel", "openspiel_mcts"):  # optional peers
        assert figures[name]["status"] in ("ok", "not installed"), figures[name]
    rounds = figures["batch_vs_openspiel_rounds"]  # the 20x target's figure: interleaved rounds
    assert rounds["status"] in ("ok", "not installed"), rounds
    if rounds["status"] == "ok":
        assert len(rounds["samples"]) == 1 and rounds["worst"] <= rounds["value"] <= rounds["best"]
        assert rounds["parallel_share_by_round"] == []  # 64 games: the serial step only, no chooser
        assert report["ratios"]["batch_vs_openspiel_interleaved"] == rounds["value"]
    aec_rounds = figures["aec_vs_tictactoe_rounds"]  # the 3x AEC target's figure: interleaved rounds
    assert aec_rounds["status"] in ("ok", "not installed"), aec_rounds
    if aec_rounds["status"] == "ok":
        assert len(aec_rounds["samples"]) == 1 and aec_rounds["aec"]["value"] > 0
        assert report["targets"]["aec_vs_tictactoe"]["measured"] == aec_rounds["value"]
    assert {
        "kernel_vs_openspiel_moves",
        "aec_vs_tictactoe_steps",
        "aec_vs_openspiel_moves",
        "batch_vs_openspiel_moves",
        "ppo_selfplay_vs_trivial_env",
        "mcts_vs_openspiel_sims",
    } <= set(report["ratios"])
    assert "targets" in proc.stdout and "kernel random playouts" in proc.stdout


@pytest.mark.slow
def test_soak_smoke():
    proc = _run(["benchmarks/soak.py", "--games", "100", "--sample", "20"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for env_id in ENV_IDS:
        assert env_id in proc.stdout
    assert "OK: no violation" in proc.stdout


def test_soak_rejects_unknown_id():
    proc = _run(["benchmarks/soak.py", "--games", "10", "--ids", "no-such-game-v0"])
    assert proc.returncode == 2
    assert "no-such-game-v0" in proc.stderr


def test_bit_count_counts_the_set_bits():
    """``core.jit_helpers.bit_count`` (Widdershins' singleton ending counts the stacks with a card
    with it): compiled and as plain Python, on int32 and int64 values."""
    from mancala_envs.core.jit_helpers import bit_count

    compiled = njit(lambda x: bit_count(x))
    rng = np.random.default_rng(1)
    values = [0, 1, 0xFFF, 0x5A5, 2**31 - 1, 2**62 - 1] + [int(v) for v in rng.integers(0, 2**62, 200)]
    for v in values:
        assert compiled(v) == bin(v).count("1") == bit_count(v)
        assert compiled(np.int32(v & 0x7FFFFFFF)) == bin(v & 0x7FFFFFFF).count("1")
