"""Uniformly random playouts of any registered game, played entirely inside numba.

``random_playouts(game, n_games, seed)`` plays ``n_games`` games in which every move is
drawn uniformly from the legal ones, and returns a ``PlayoutTotals`` (moves played, games
finished and truncated, the longest and shortest game, wins per player and draws). It knows
nothing of any rules: it only calls the game's ``Kernel`` (see ``mancala_envs.core.game``),
so it works for every id that ``mancala_envs.list_envs()`` returns, now and later. The
kernel's jitted functions are handed as arguments to one jitted loop, so a whole batch of
games runs without returning to Python; numba compiles the loop once per kernel and process
(the Kalah ids share one kernel, hence one compilation, a second or two). Time a warm call
when benchmarking.

Randomness
----------
* Move choice: a splitmix64 generator inlined in the loop, seeded with ``seed``; the ``k``-th
  legal move (in action order) is played with ``k`` uniform over the legal count.
* The kernel's ``init(state, params, rng)`` gets one ``numpy.random.Generator`` made from
  ``seed`` in Python (numba cannot create a Generator), shared by all games of the call.

Same ``game``, ``n_games`` and ``seed`` give the same games and totals, on any machine, with
or without ``check_invariants`` (checking draws no random numbers). The mask handed to
``legal_mask`` is ``int8``, as the contract says.

Truncation
----------
A game that reaches ``game.max_plies`` (``plies(state) >= max_plies`` while the game is not
over, as the env does) is truncated: it counts as neither a win nor a draw. ``max_plies=``
overrides the game's cap; with no cap at all (``None`` in both) a game that never ends
never returns.

Invariant checks (``check_invariants=True``)
-------------------------------------------
At every position of every game the loop checks what any game must satisfy through the
contract alone:

* ``plies`` is 0 at the start position and grows by exactly 1 per move;
* ``current_player`` is -1, 0 or 1;
* ``legal_mask`` writes every entry of the mask (it is pre-filled with a sentinel) as 0 or
  1, and returns the number of entries it set;
* a position that is not over has at least one legal move; a finished one has none;
* the chosen move is in range and legal;
* ``returns`` are all 0 before the end (truncation included); at the end each is -1, 0
  or +1 and they sum to 0;
* the read-only functions (``legal_mask``, ``current_player``, ``plies``, ``returns``) leave
  the state unchanged.

The loop stops at the first violation (a broken kernel may otherwise write out of bounds)
and reports it as a ``Violation`` (which check, game index, ply, action). By default
``random_playouts`` then raises ``InvariantViolation``; with ``raise_on_violation=False`` it
returns the totals of the games played so far with ``totals.violation`` set. Game-specific
invariants (conservation of seeds, notation, JSON round trips) are not checked here; see
``benchmarks/soak.py``. Without ``check_invariants`` the loop trusts the kernel.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from .game import NO_PLY_CAP

__all__ = ["InvariantViolation", "PlayoutTotals", "Violation", "random_playouts", "VIOLATION_MESSAGES"]

# -- violation codes ------------------------------------------------------------------------
V_NONE = 0
V_INIT_PLIES = 1
V_PLAYER_RANGE = 2
V_MASK_VALUES = 3
V_MASK_COUNT = 4
V_NO_LEGAL_MOVE = 5
V_TERMINAL_HAS_MOVES = 6
V_ILLEGAL_CHOICE = 7
V_PLIES_STEP = 8
V_RETURNS_BEFORE_END = 9
V_RETURNS_RANGE = 10
V_RETURNS_SUM = 11
V_READ_ONLY = 12

VIOLATION_MESSAGES = {
    V_INIT_PLIES: "plies() is not 0 at the start position (detail: the value)",
    V_PLAYER_RANGE: "current_player() is not -1, 0 or 1 (detail: the value)",
    V_MASK_VALUES: "legal_mask() left an entry that is not 0 or 1 (detail: the entry's action)",
    V_MASK_COUNT: "legal_mask() returned a count that differs from the entries it set (detail: returned count)",
    V_NO_LEGAL_MOVE: "a position that is not over has no legal move",
    V_TERMINAL_HAS_MOVES: "a finished position (current_player -1) has legal moves (detail: their count)",
    V_ILLEGAL_CHOICE: "the chosen move is out of range or not legal",
    V_PLIES_STEP: "plies() did not grow by exactly 1 on a move (detail: plies after the move)",
    V_RETURNS_BEFORE_END: "returns() is not 0 for both players before the end",
    V_RETURNS_RANGE: "a final return is not -1, 0 or +1",
    V_RETURNS_SUM: "the final returns do not sum to 0",
    V_READ_ONLY: "a read-only kernel function (legal_mask, current_player, plies, returns) changed the state",
}

# totals vector layout
T_MOVES = 0
T_FINISHED = 1
T_TRUNCATED = 2
T_LONGEST = 3
T_SHORTEST = 4
T_WINS0 = 5
T_WINS1 = 6
T_DRAWS = 7
T_GAMES = 8
NUM_TOTALS = 9

# violation vector layout: code, game, ply (moves played in that game), action, detail
NUM_VIOLATION_FIELDS = 5

UNSET = -(2**63)  # "no value" in the violation vector

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@njit(cache=True, inline="always")
def _splitmix64(s):
    """One splitmix64 step: (new generator state, 64 random bits)."""
    s = s + _GOLDEN_GAMMA
    z = s
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return s, z ^ (z >> _U31)


@njit(cache=True)
def _state_changed(state, snapshot):
    for i in range(state.shape[0]):
        if state[i] != snapshot[i]:
            return True
    return False


# Not cache=True: the kernel functions arrive as arguments, and numba keys their types by
# the function objects of this process, so an on-disk cache would never hit and would only
# grow by one entry per process. Compiling the loop takes a second or two per kernel.
@njit
def _playout_loop(
    init,
    legal_mask,
    apply,
    current_player,
    returns,
    plies,
    params,
    rng,
    state_size,
    num_actions,
    max_plies,
    n_games,
    seed,
    check,
    lengths,
    totals,
    violation,
):
    state = np.zeros(state_size, np.int32)
    snapshot = np.zeros(state_size, np.int32)
    mask = np.zeros(num_actions, np.int8)  # the contract's mask dtype
    ret = np.zeros(2, np.float64)
    s = np.uint64(seed)
    keep_lengths = lengths.shape[0] > 0
    for k in range(NUM_TOTALS):
        totals[k] = 0
    totals[T_SHORTEST] = -1
    for k in range(NUM_VIOLATION_FIELDS):
        violation[k] = UNSET
    violation[0] = V_NONE

    for g in range(n_games):
        init(state, params, rng)
        length = 0
        if check:
            p = plies(state, params)
            if p != 0:
                violation[0] = V_INIT_PLIES
                violation[1] = g
                violation[2] = 0
                violation[4] = p
                return
        while True:
            if check:
                for i in range(state_size):
                    snapshot[i] = state[i]
            player = current_player(state, params)
            ply_now = plies(state, params)
            if check:
                code = V_NONE
                detail = UNSET
                if player < -1 or player > 1:
                    code = V_PLAYER_RANGE
                    detail = player
                else:
                    for a in range(num_actions):
                        mask[a] = 7
                    count = legal_mask(state, params, mask)
                    set_entries = 0
                    for a in range(num_actions):
                        if mask[a] == 1:
                            set_entries += 1
                        elif mask[a] != 0 and code == V_NONE:
                            code = V_MASK_VALUES
                            detail = a
                    if code == V_NONE and count != set_entries:
                        code = V_MASK_COUNT
                        detail = count
                    if code == V_NONE and player >= 0 and count == 0:
                        code = V_NO_LEGAL_MOVE
                    if code == V_NONE and player < 0 and count != 0:
                        code = V_TERMINAL_HAS_MOVES
                        detail = count
                    if code == V_NONE:
                        returns(state, params, ret)
                        if player >= 0:
                            if ret[0] != 0.0 or ret[1] != 0.0:
                                code = V_RETURNS_BEFORE_END
                        else:
                            for q in range(2):
                                r = ret[q]
                                if r != -1.0 and r != 0.0 and r != 1.0:
                                    code = V_RETURNS_RANGE
                            if code == V_NONE and abs(ret[0] + ret[1]) > 1e-9:
                                code = V_RETURNS_SUM
                    if code == V_NONE and _state_changed(state, snapshot):
                        code = V_READ_ONLY
                if code != V_NONE:
                    violation[0] = code
                    violation[1] = g
                    violation[2] = length
                    violation[4] = detail
                    return
            if player < 0:
                totals[T_FINISHED] += 1
                returns(state, params, ret)
                if ret[0] > ret[1]:
                    totals[T_WINS0] += 1
                elif ret[1] > ret[0]:
                    totals[T_WINS1] += 1
                else:
                    totals[T_DRAWS] += 1
                break
            if ply_now >= max_plies:
                totals[T_TRUNCATED] += 1
                break
            if not check:
                count = legal_mask(state, params, mask)
            # the k-th legal move, k uniform in [0, count)
            s, bits = _splitmix64(s)
            target = np.int64(((bits >> _U32) * np.uint64(count)) >> _U32)
            action = -1
            seen = 0
            for a in range(num_actions):
                if mask[a] != 0:
                    if seen == target:
                        action = a
                        break
                    seen += 1
            if check and (action < 0 or action >= num_actions or mask[action] != 1):
                violation[0] = V_ILLEGAL_CHOICE
                violation[1] = g
                violation[2] = length
                violation[3] = action
                return
            apply(state, params, action)
            length += 1
            totals[T_MOVES] += 1
            if check:
                after = plies(state, params)
                if after != ply_now + 1:
                    violation[0] = V_PLIES_STEP
                    violation[1] = g
                    violation[2] = length
                    violation[3] = action
                    violation[4] = after
                    return
        totals[T_GAMES] += 1
        if keep_lengths:
            lengths[g] = length
        if length > totals[T_LONGEST]:
            totals[T_LONGEST] = length
        if totals[T_SHORTEST] < 0 or length < totals[T_SHORTEST]:
            totals[T_SHORTEST] = length


# -- Python side ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Violation:
    """The first broken invariant found by ``random_playouts(check_invariants=True)``."""

    env_id: str
    code: int
    game: int  # index of the game in the call, from 0
    ply: int  # moves already played in that game when it was found
    action: int | None  # the move involved, if any
    detail: int | None  # see VIOLATION_MESSAGES

    @property
    def message(self) -> str:
        return VIOLATION_MESSAGES.get(self.code, f"unknown violation code {self.code}")

    def __str__(self) -> str:
        extra = ""
        if self.action is not None:
            extra += f", action {self.action}"
        if self.detail is not None:
            extra += f", detail {self.detail}"
        return f"{self.env_id}: game {self.game}, ply {self.ply}{extra}: {self.message}"


class InvariantViolation(AssertionError):
    """A kernel broke a contract invariant during ``random_playouts(check_invariants=True)``."""

    def __init__(self, violation: Violation, totals: "PlayoutTotals"):
        super().__init__(str(violation))
        self.violation = violation
        self.totals = totals


@dataclass(frozen=True)
class PlayoutTotals:
    """What ``random_playouts`` counted. ``wins[p]``: games player ``p`` won."""

    env_id: str
    n_games: int  # games asked for
    seed: int
    games: int  # games completed (finished + truncated); n_games unless a violation stopped the run
    moves: int
    finished: int
    truncated: int
    longest: int  # moves in the longest game (a truncated game counts its max_plies moves)
    shortest: int  # moves in the shortest game; -1 if no game was played
    wins: tuple[int, int]
    draws: int
    max_plies: int | None
    checked: bool
    seconds: float = field(compare=False)  # wall time of the call (compilation included on a first call)
    violation: Violation | None = field(default=None)
    lengths: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.violation is None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "env_id": self.env_id,
            "n_games": self.n_games,
            "seed": self.seed,
            "games": self.games,
            "moves": self.moves,
            "finished": self.finished,
            "truncated": self.truncated,
            "longest": self.longest,
            "shortest": self.shortest,
            "wins": list(self.wins),
            "draws": self.draws,
            "max_plies": self.max_plies,
            "checked": self.checked,
            "seconds": self.seconds,
            "violation": None if self.violation is None else str(self.violation),
        }
        return out


def random_playouts(
    game,
    n_games: int,
    seed: int,
    check_invariants: bool = False,
    *,
    max_plies: int | None = None,
    return_lengths: bool = False,
    raise_on_violation: bool = True,
) -> PlayoutTotals:
    """Play ``n_games`` uniformly random games of ``game`` inside numba; return the totals.

    ``game`` is a ``Game`` (anything with ``kernel``, ``params``, ``state_size``,
    ``num_actions`` and ``max_plies``). ``seed`` (an integer >= 0) seeds both the move choice
    and the Generator given to the kernel's ``init``. ``max_plies`` overrides ``game.max_plies``
    as the truncation cap. ``return_lengths`` adds ``totals.lengths``, the number of moves of
    each game. ``check_invariants`` checks the contract at every position (see the module
    docstring); a violation raises ``InvariantViolation`` unless ``raise_on_violation=False``,
    in which case the totals so far are returned with ``violation`` set.
    """
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"random_playouts: n_games must be an integer >= 0, got {n_games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"random_playouts: seed must be an integer from 0 to 2**64-1, got {seed!r}")
    cap = game.max_plies if max_plies is None else max_plies
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 0):
        raise ValueError(f"random_playouts: max_plies must be an integer >= 0 or None, got {cap!r}")
    env_id = getattr(game, "env_id", type(game).__name__)
    kernel = game.kernel
    params = np.ascontiguousarray(game.params, dtype=np.int64)
    rng = np.random.default_rng(int(seed))
    lengths = np.zeros(int(n_games) if return_lengths else 0, dtype=np.int64)
    totals = np.zeros(NUM_TOTALS, dtype=np.int64)
    violation = np.zeros(NUM_VIOLATION_FIELDS, dtype=np.int64)
    start = time.perf_counter()
    _playout_loop(
        kernel.init,
        kernel.legal_mask,
        kernel.apply,
        kernel.current_player,
        kernel.returns,
        kernel.plies,
        params,
        rng,
        int(game.state_size),
        int(game.num_actions),
        NO_PLY_CAP if cap is None else int(cap),
        int(n_games),
        np.uint64(int(seed)),
        bool(check_invariants),
        lengths,
        totals,
        violation,
    )
    seconds = time.perf_counter() - start
    found = None
    if violation[0] != V_NONE:
        found = Violation(
            env_id=env_id,
            code=int(violation[0]),
            game=int(violation[1]),
            ply=int(violation[2]),
            action=None if violation[3] == UNSET else int(violation[3]),
            detail=None if violation[4] == UNSET else int(violation[4]),
        )
    result = PlayoutTotals(
        env_id=env_id,
        n_games=int(n_games),
        seed=int(seed),
        games=int(totals[T_GAMES]),
        moves=int(totals[T_MOVES]),
        finished=int(totals[T_FINISHED]),
        truncated=int(totals[T_TRUNCATED]),
        longest=int(totals[T_LONGEST]),
        shortest=int(totals[T_SHORTEST]),
        wins=(int(totals[T_WINS0]), int(totals[T_WINS1])),
        draws=int(totals[T_DRAWS]),
        max_plies=None if cap is None else int(cap),
        checked=bool(check_invariants),
        seconds=seconds,
        violation=found,
        lengths=lengths[: int(totals[T_GAMES])] if return_lengths else None,
    )
    if found is not None and raise_on_violation:
        raise InvariantViolation(found, result)
    return result
