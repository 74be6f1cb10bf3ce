"""Uniformly random playouts of any registered game, played entirely inside numba.

``random_playouts(game, n_games, seed)`` plays ``n_games`` games in which every move is
drawn uniformly from the legal ones, and returns a ``PlayoutTotals`` (moves played, games
finished and truncated, the longest and shortest game, wins per player and draws). It knows
nothing of any rules: it only calls the game's ``Kernel`` (see ``mancala_envs.core.game``),
so it works for every id that ``mancala_envs.list_envs()`` returns, now and later. A whole
batch of games runs in one jitted loop without returning to Python. Time a warm call when
benchmarking.

Compiled loops
--------------
The loop is built per kernel with the kernel's functions compiled into it
(``core.inline``), and cached on disk (``core.compiled``): the first call in a new process
loads it, and only the first call ever compiles it. The
checked loop (``check_invariants=True``) and the unchecked one are separate loops, so the
unchecked one carries no check. ``specialise=True`` also compiles the game's option values
(its params vector) in as constants, one loop per option set: sizes and rule switches
fold into the code, which is faster again (``benchmarks/run.py``'s ``kernel_limit``). Same games.

Randomness
----------
* Move choice: a splitmix64 generator inlined in the loop, seeded with ``seed``; the ``k``-th
  legal move (in action order) is played with ``k`` uniform over the legal count
  (``core.jit_helpers.random_legal_action_of_words``, which reads the mask eight entries at a
  time). A game with a ``legal_bits`` hook (``Game.legal_bits``: the legal moves as a bit set)
  has the same move drawn from the bits (``random_legal_action_of_bits``), and no mask is
  written.
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
* the read-only functions (``legal_mask``, ``current_player``, ``plies``, ``returns``, and
  ``legal_bits`` where the game has it) leave the state unchanged;
* a game's ``legal_bits`` hook, if it has one, gives the moves of ``legal_mask``'s mask.

The loop stops at the first violation (a broken kernel may otherwise write out of bounds)
and reports it as a ``Violation`` (which check, game index, ply, action). By default
``random_playouts`` then raises ``InvariantViolation``; with ``raise_on_violation=False`` it
returns the totals of the games played so far with ``totals.violation`` set. Game-specific
invariants (conservation of seeds, notation, JSON round trips) are not checked here; see
``benchmarks/soak.py``. Without ``check_invariants`` the loop trusts the kernel.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.core.errors import TypingError

from .game import NO_PLY_CAP
from .compiled import cached_njit
from .inline import inline_kernel, inlined, params_reader, unowned
from .jit_helpers import copy_into, mask_with_words, random_legal_action_of_bits, random_legal_action_of_words

__all__ = ["InvariantViolation", "PlayoutTotals", "Violation", "random_move_drawer", "random_playouts", "VIOLATION_MESSAGES"]

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
V_LEGAL_BITS = 13

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
    V_READ_ONLY: "a read-only kernel function (legal_mask, current_player, plies, returns, legal_bits) changed the state",
    V_LEGAL_BITS: "the game's legal_bits() differs from legal_mask()'s mask (detail: the bits)",
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

class PlayoutRun(NamedTuple):
    """What one ``random_playouts`` call asks the loop for."""

    n_games: int  # games to play
    max_plies: int  # truncation cap (NO_PLY_CAP for none)
    seed: np.uint64  # splitmix64 seed of the move choice
    check: bool  # check the contract at every position


class PlayoutBuffers(NamedTuple):
    """What the kernel is handed (S state size, A actions)."""

    state: np.ndarray  # int32[S]     the game being played
    snapshot: np.ndarray  # int32[S]     the state before the read-only calls (check only)
    mask: np.ndarray  # int8[A]      legal moves, in the contract's dtype
    mask_words: np.ndarray  # uint64[ceil(A/8)]  the mask's memory eight entries a word (zero padded)
    returns: np.ndarray  # float64[2]   results per player

    @classmethod
    def allocate(cls, state_size: int, num_actions: int) -> "PlayoutBuffers":
        mask, words = mask_with_words(num_actions)
        return cls(np.zeros(state_size, np.int32), np.zeros(state_size, np.int32), mask, words,
                   np.zeros(2, np.float64))


class PlayoutCounts(NamedTuple):
    """What the loop counts."""

    totals: np.ndarray  # int64[NUM_TOTALS]             see the T_* layout
    violation: np.ndarray  # int64[NUM_VIOLATION_FIELDS]   code, game, ply, action, detail (UNSET: none)
    lengths: np.ndarray  # int64[n_games or 0]           moves of every game (empty: not kept)


@njit(cache=True, inline="always")
def _clear(counts):
    for k in range(NUM_TOTALS):
        counts.totals[k] = 0
    counts.totals[T_SHORTEST] = -1
    for k in range(NUM_VIOLATION_FIELDS):
        counts.violation[k] = UNSET
    counts.violation[0] = V_NONE


@njit(cache=True, inline="always")
def _report(violation, code, game, ply, action, detail):
    """Record a broken invariant (``UNSET`` where ``action`` or ``detail`` does not apply)."""
    violation[0] = code
    violation[1] = game
    violation[2] = ply
    violation[3] = action
    violation[4] = detail


@njit(cache=True)
def _state_changed(state, snapshot):
    for i in range(state.shape[0]):
        if state[i] != snapshot[i]:
            return True
    return False


@njit(cache=True, inline="always")
def _count_length(counts, game, length):
    totals = counts.totals
    totals[T_GAMES] += 1
    if counts.lengths.shape[0] > 0:
        counts.lengths[game] = length
    if length > totals[T_LONGEST]:
        totals[T_LONGEST] = length
    if totals[T_SHORTEST] < 0 or length < totals[T_SHORTEST]:
        totals[T_SHORTEST] = length


def random_move_drawer(legal_mask, legal_bits):
    """For a loop built per kernel: an inlined ``draw(s, state, params, mask, mask_words) -> (s,
    action)``, a uniformly random legal move (the draw of ``core.jit_helpers.random_legal_action``,
    ``s`` the generator state). ``legal_mask``: the kernel's (inlined); ``legal_bits``: the game's
    hook (``Game.legal_bits``) or None. With the hook the move is drawn from the bits and the mask
    is not written; without, ``legal_mask`` fills ``mask`` and the draw reads it through
    ``mask_words`` (``core.jit_helpers.mask_with_words``). The same move either way."""
    if legal_bits is None:
        @njit(inline="always")
        def draw(s, state, params, mask, mask_words):
            return random_legal_action_of_words(s, mask_words, legal_mask(state, params, mask))
    else:
        bits_of = inlined(legal_bits)

        @njit(inline="always")
        def draw(s, state, params, mask, mask_words):
            return random_legal_action_of_bits(s, bits_of(state, params))
    return draw


@functools.cache
def _build_playout(kernel, legal_bits, check: bool, fixed_params: tuple[int, ...] | None, width: int | None):
    """The playout loop of one kernel, with the kernel's functions compiled into it.

    Built like the search loops (``core.inline``): the kernel's functions are closure
    variables, so numba inlines them (calling them cost about a third of the time of a
    move), and the loop is cached on disk per kernel (``core.compiled``). ``check`` is
    compiled in (the unchecked loop carries no check at all). ``fixed_params``: the params
    vector as compile-time constants (``specialise=True``), or None to read the caller's array:
    its ``width`` entries into registers once per call (``core.inline.params_reader``), or the
    array itself with ``width=None``. ``legal_bits``: the game's hook (``Game.legal_bits``) or None.
    """
    init, legal_mask, apply, current_player, _scores, returns, _observe, plies = inline_kernel(kernel)

    draw = random_move_drawer(legal_mask, legal_bits)
    read_checked_mask = check and legal_bits is None

    @njit(inline="always")
    def draw_move(s, params, buffers, count):
        """(generator state, a uniformly random legal move). The checked loop's checks have filled
        the mask already (``count`` legal moves): without a hook it is read, not filled again."""
        if read_checked_mask:
            return random_legal_action_of_words(s, buffers.mask_words, count)
        return draw(s, buffers.state, params, buffers.mask, buffers.mask_words)

    if legal_bits is None:
        @njit(inline="always")
        def bits_differ(params, buffers):
            return False, 0
    else:
        bits_of = inlined(legal_bits)

        @njit(inline="always")
        def bits_differ(params, buffers):
            """(True if the hook's bits are not the moves of the mask legal_mask filled, the bits)."""
            bits = np.int64(bits_of(buffers.state, params))
            mask = buffers.mask
            differ = mask.shape[0] < 63 and (bits >> mask.shape[0]) != 0
            for a in range(mask.shape[0]):
                differ = differ or ((bits >> a) & 1) != mask[a]
            return differ, bits

    @njit(inline="always")
    def check_mask(params, state, mask, player):
        """``legal_mask``'s invariants at a position of ``player``: (code, detail, legal count)."""
        for a in range(mask.shape[0]):
            mask[a] = 7  # a sentinel legal_mask must overwrite
        count = legal_mask(state, params, mask)
        set_entries = 0
        for a in range(mask.shape[0]):
            if mask[a] == 1:
                set_entries += 1
            elif mask[a] != 0:
                return V_MASK_VALUES, a, count
        if count != set_entries:
            return V_MASK_COUNT, count, count
        if player >= 0 and count == 0:
            return V_NO_LEGAL_MOVE, UNSET, count
        if player < 0 and count != 0:
            return V_TERMINAL_HAS_MOVES, count, count
        return V_NONE, UNSET, count

    @njit(inline="always")
    def check_returns(params, state, result, player):
        """``returns``' invariants at a position of ``player`` (-1: the end): a violation code."""
        returns(state, params, result)
        if player >= 0:
            return V_RETURNS_BEFORE_END if result[0] != 0.0 or result[1] != 0.0 else V_NONE
        for q in range(2):
            if result[q] != -1.0 and result[q] != 0.0 and result[q] != 1.0:
                return V_RETURNS_RANGE
        if abs(result[0] + result[1]) > 1e-9:
            return V_RETURNS_SUM
        return V_NONE

    @njit(inline="always")
    def check_position(params, buffers, player):
        """The contract's invariants at the current position: (code, detail, legal count)."""
        if player < -1 or player > 1:
            return V_PLAYER_RANGE, player, 0
        code, detail, count = check_mask(params, buffers.state, buffers.mask, player)
        if code == V_NONE:
            code = check_returns(params, buffers.state, buffers.returns, player)
        if code == V_NONE:
            differ, bits = bits_differ(params, buffers)
            if differ:
                code, detail = V_LEGAL_BITS, bits
        if code == V_NONE and _state_changed(buffers.state, buffers.snapshot):
            code = V_READ_ONLY
        return code, detail, count

    @njit(inline="always")
    def count_result(params, buffers, totals):
        """A game over by the rules: count it and its winner."""
        totals[T_FINISHED] += 1
        returns(buffers.state, params, buffers.returns)
        if buffers.returns[0] > buffers.returns[1]:
            totals[T_WINS0] += 1
        elif buffers.returns[1] > buffers.returns[0]:
            totals[T_WINS1] += 1
        else:
            totals[T_DRAWS] += 1

    @njit(inline="always")
    def play_game(params, rng, run, buffers, counts, game, s):
        """Play game ``game`` to its end or the cap: (generator state, moves played).

        With ``check``, stops at the first broken invariant and records it in ``counts.violation``.
        """
        state, mask = buffers.state, buffers.mask
        init(state, params, rng)
        length = 0
        if check:
            start_plies = plies(state, params)
            if start_plies != 0:
                _report(counts.violation, V_INIT_PLIES, game, 0, UNSET, start_plies)
                return s, length
        while True:
            if check:
                copy_into(buffers.snapshot, state)
            player = current_player(state, params)
            ply_now = plies(state, params)
            count = 0
            if check:
                code, detail, count = check_position(params, buffers, player)
                if code != V_NONE:
                    _report(counts.violation, code, game, length, UNSET, detail)
                    return s, length
            if player < 0:
                count_result(params, buffers, counts.totals)
                break
            if ply_now >= run.max_plies:
                counts.totals[T_TRUNCATED] += 1
                break
            s, action = draw_move(s, params, buffers, count)
            if check and (action < 0 or action >= mask.shape[0] or mask[action] != 1):
                _report(counts.violation, V_ILLEGAL_CHOICE, game, length, action, UNSET)
                return s, length
            apply(state, params, action)
            length += 1
            if check:
                after = plies(state, params)
                if after != ply_now + 1:
                    _report(counts.violation, V_PLIES_STEP, game, length, action, after)
                    return s, length
        return s, length

    params_of = params_reader(fixed_params, width)

    def playout_loop(params_owned, rng, run, buffers_owned, counts_owned):
        # views without reference counts: the caller's arrays outlive this call
        params = params_of(params_owned)
        buffers = unowned(buffers_owned)
        counts = unowned(counts_owned)
        _clear(counts)
        s = run.seed
        for game in range(run.n_games):
            s, length = play_game(params, rng, run, buffers, counts, game, s)
            counts.totals[T_MOVES] += length
            if counts.violation[0] != V_NONE:
                return
            _count_length(counts, game, length)

    return cached_njit(playout_loop, what="the random playouts")


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
    specialise: bool = False,
) -> PlayoutTotals:
    """Play ``n_games`` uniformly random games of ``game`` inside numba; return the totals.

    ``game`` is a ``Game`` (anything with ``kernel``, ``params``, ``state_size``,
    ``num_actions`` and ``max_plies``). ``seed`` (an integer >= 0) seeds both the move choice
    and the Generator given to the kernel's ``init``. ``max_plies`` overrides ``game.max_plies``
    as the truncation cap. ``return_lengths`` adds ``totals.lengths``, the number of moves of
    each game. ``check_invariants`` checks the contract at every position (see the module
    docstring); a violation raises ``InvariantViolation`` unless ``raise_on_violation=False``,
    in which case the totals so far are returned with ``violation`` set. ``specialise``
    compiles a loop for this game's option values (see "Compiled loops" in the module
    docstring); the games are the same either way.
    """
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"random_playouts: n_games must be an integer >= 0, got {n_games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"random_playouts: seed must be an integer from 0 to 2**64-1, got {seed!r}")
    cap = game.max_plies if max_plies is None else max_plies
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 0):
        raise ValueError(f"random_playouts: max_plies must be an integer >= 0 or None, got {cap!r}")
    env_id = game.env_id
    kernel = game.kernel
    params = np.ascontiguousarray(game.params, dtype=np.int64)
    rng = np.random.default_rng(int(seed))
    counts = PlayoutCounts(np.zeros(NUM_TOTALS, np.int64), np.zeros(NUM_VIOLATION_FIELDS, np.int64),
                           np.zeros(int(n_games) if return_lengths else 0, np.int64))
    run = PlayoutRun(n_games=int(n_games), max_plies=NO_PLY_CAP if cap is None else int(cap),
                     seed=np.uint64(int(seed)), check=bool(check_invariants))
    buffers = PlayoutBuffers.allocate(int(game.state_size), int(game.num_actions))
    start = time.perf_counter()
    fixed = tuple(int(v) for v in params) if specialise and not check_invariants else None
    hook = getattr(game, "legal_bits", None)
    # the checked loop hands the kernel the params array, as the env does; the unchecked one
    # reads it into registers, unless the kernel needs an array (slices it, asks its shape)
    width = None if check_invariants else len(params)
    try:
        _build_playout(kernel, hook, bool(check_invariants), fixed, width)(params, rng, run, buffers, counts)
    except TypingError:
        if width is None or fixed is not None:
            raise
        _build_playout(kernel, hook, False, None, None)(params, rng, run, buffers, counts)
    seconds = time.perf_counter() - start
    totals, violation = counts.totals, counts.violation
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
        lengths=counts.lengths[: int(totals[T_GAMES])] if return_lengths else None,
    )
    if found is not None and raise_on_violation:
        raise InvariantViolation(found, result)
    return result
