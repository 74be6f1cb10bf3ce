"""The exact solver: the value of a position under perfect play, and a move that keeps it.

``solve(position)`` searches to the end of the game and returns the final score difference
``player_0 - player_1`` when both players maximise their own margin, with a best move. It
calls only the kernel contract (``mancala_envs.core.game``), compiled into one numba loop
per kernel (``core.inline.inline_kernel``), so it works for every registered id; the Kalah
family adds endgame databases (``agents.endgame``).

How it searches
---------------
* **MTD(f)** (Plaat et al. 1996): null-window searches ``(g - 1, g)`` that converge on the
  value; scores are integers in every game so far. The first guess is 0 clamped to the
  range the stores allow. ``deepening=True`` (or a node budget) takes it instead from
  iterative deepening as Irving et al. (2000) did: depth-limited MTD(f) searches of depth 2,
  4, ... (leaves valued by the score difference, database positions exactly) until they
  have spent ``DEEPENING_NODES`` nodes, on a table of their own (``GUESS_TABLE_BYTES``; their
  moves prove nothing and would take the exact search's entries). It does not pay, so it is
  off by default: the passes below the value are a small part of a solve from 0; the cost is
  in the last two (proving the value from below and from above), which every guess must
  search, and the deepening's own nodes come on top (the docs' solver page).
* **Position key** (``Game.position_key_indices``): the transposition table is keyed on the
  part of the state that decides the future, not on bookkeeping (the ply counter, the last
  move), so lines that meet in one position share its entry. Where the scores decide
  nothing ahead (``Game.key_excludes_scores``: Kalah, whose stores only add up) the key
  leaves them out too and the table holds values relative to the mover's current margin,
  so positions that differ only in their stores share one entry (fewer nodes than keyed with
  the stores). Where a line reaches the ply
  cap, the key alone would mix capped and uncapped values: the solve is then run again with
  the ply counter in the key (and the table cleared), so the value is exact for the capped
  game too.
* **Transposition table** (``SolverTable``): buckets of four 16-byte entries (one cache
  line), each the key and a lower and an upper bound of the exact value (every bound is
  final: the solver never cuts at a depth), the best move and the work (log2 of the nodes)
  that found them. A full bucket replaces its entry of least work (depth-preferred: in a
  solver the subtree size plays the part of the depth). Entries are written without locks
  (``check = key ^ data``, Hyatt's lockless hashing), so threads share one table and a torn
  entry is never trusted. Sized from the free memory, or from ``memory=``. Nodes with at most
  ``NEAR_ABOVE`` stones more on the board than the endgame database holds (Kalah(6,5), N = 26:
  34) keep their entries in a table of their own, ``NEAR_TABLE_BYTES`` (128 MiB) out of the
  memory: most probes are there, and a small table's buckets are far more often in the
  cache: on Kalah(6,5) openings the split table saves CPU time for about the same nodes
  (``benchmarks/solve.py --midgame``; the docs' solver page). A bucket starts on a cache line (one line per
  probe, not two) and the table takes all of its memory (a bucket from the key's high bits
  scaled to the number of buckets, not a power of two).
* **Bounds from the scores** (games with ``scores_only_grow``): the final difference from a
  node lies within the current difference plus or minus the stones not yet captured; a
  node whose whole range falls outside the window returns at once. In particular a player
  holding more than half the seeds has won, whatever is left.
* **Enhanced transposition cut-offs**: before searching a node's moves, each child is played
  and looked up; a child's stored bound that already refutes the window cuts the node off
  without a search. Only at nodes with at least ``ETC_STONES`` stones outside the stores
  (games with a score total): ETC at every node saves nodes, but its extra table loads (a
  cache miss each) cost more time than they save near the leaves. Children that end the game (or reach the cap), or that the endgame
  database holds, are valued on the spot.
* **Move ordering** (``ordering=True``): the table's move, then moves that keep the turn
  (extra turns), then by the score they gain at once (captures), then the higher action
  first (in Kalah the hole nearest the store, whose extra turn leaves the others' intact:
  fewer nodes and more cut-offs by the first move than the lowest action first).
* **Endgame databases** (Kalah family, ``agents.endgame``): a node with at most ``N``
  seeds on the board takes its exact value from the database. A node plays and locates all
  of its children first and asks the memory for their database entries and table buckets
  at once (``PREFETCH``, ``llvm.prefetch``), then values them: the loads overlap instead of
  each waiting in turn.
* **Both cores** (``threads=2``): every thread searches the same window over the shared
  table, each from its own root order (lazy SMP), and a thread puts off a move whose child
  another thread is searching (simplified ABDADA, Kerrigan: a small shared table of the
  keys the threads are in); the first to finish answers and stops the others. Lazy SMP
  alone searched so many more nodes that it was slower than one thread; with the deferral,
  two threads beat one.
* **Time limit**: a solve that runs out of time returns the bounds proven so far
  (``exact=False``, ``lower``/``upper``).
* **Counters** (``SolveResult``): nodes, database hits, cuts by the table, ETC and the
  score bounds, nodes expanded, and how many of the cut-offs by a searched move came from
  the first move tried (the ordering's quality).
* **Compiled once**: the search loop and the database builder are cached on disk
  (``core.compiled.cached_njit``); a new process loads them instead of compiling.

Measured per board by ``benchmarks/solve.py``; the README tables the results.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.game import Game, State
from mancala_envs.core.inline import inline_kernel, unowned
from mancala_envs.core.jit_helpers import FNV_OFFSET_BASIS, FNV_PRIME, copy_into, past_deadline, splitmix64

from .base import Agent
from .endgame import endgame_for

__all__ = ["SolveResult", "SolverAgent", "SolverTable", "perfect_line", "solve", "table_for"]

INF = 32000  # beyond any score difference: "no bound"
NO_VALUE = -(1 << 40)  # a child not valued on the spot
MAX_STACK = 4096  # deepest line the solver follows
BUCKET = 4  # entries per bucket: 4 x 16 bytes, one cache line
ENTRY_BYTES = 16
# the table's size matters little beyond this (the docs' solver page, "Solver changes measured")
DEFAULT_TABLE_BYTES = 1 << 30
# games with this many stones or more (Kalah(6,5): 60) search billions of nodes: a bigger table
LARGE_GAME_STONES = 60
LARGE_TABLE_BYTES = 4 << 30
ETC_STONES = 30  # ETC from this many stones outside the stores: nearer the leaves it costs more than it saves
BUSY_ENTRIES = 1 << 16
ROOT_SHIFT = 1
DEEPENING_NODES = 1_000_000  # the deepening stage stops after its iteration that passes this
GUESS_TABLE_BYTES = 1 << 26  # the deepening stage's own table
HEARTBEAT_SECONDS = 30.0  # progress reports within a long null-window search
PREFETCH = 3
NEAR_TABLE_BYTES = 128 << 20
NEAR_ABOVE = 8
INLINE_KERNEL = True  # the kernel's code compiled into the loop (core.inline): faster, slower to compile

# stats vector layout (one per thread)
S_NODES = 0
S_ABORTED = 1
S_CAP_HITS = 2
S_TT_CUTS = 3
S_DB_HITS = 4
S_ETC_CUTS = 5
S_BOUND_CUTS = 6
S_EXPANDED = 7  # nodes whose moves were searched
S_CUTS = 8  # of those, cut off by a searched move
S_FIRST_CUTS = 9  # ... by the first move searched (ordering quality)
S_HORIZON = 10  # leaves of a depth-limited search valued by the score difference
S_DEFERRED = 11  # moves put off because another thread was searching them
NUM_STATS = 12

_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U40 = np.uint64(40)
_MASK16 = np.uint64(0xFFFF)
_MASK8 = np.uint64(0xFF)
_OFFSET = 32768


# -- the transposition table --------------------------------------------------------------
def free_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo (Linux), else 1 GiB."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 30


def parse_memory(text: str | int) -> int:
    """``"512M"``, ``"2G"``, ``"64K"`` or a byte count -> bytes; ValueError otherwise."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        value = int(text)
    else:
        raw = str(text).strip().upper().removesuffix("B").removesuffix("I")
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(raw[-1:], 1)
        digits = raw[:-1] if raw[-1:] in "KMG" else raw
        try:
            value = int(float(digits) * scale)
        except ValueError:
            raise ValueError(f"memory must be a size such as 512M, 2G or a byte count, got {text!r}") from None
    if value < BUCKET * ENTRY_BYTES:
        raise ValueError(f"memory must be at least {BUCKET * ENTRY_BYTES} bytes, got {text!r}")
    return value


def _aligned_zeros(count: int) -> np.ndarray:
    """``count`` zero words starting on a cache line, so that a bucket is one line, not two."""
    raw = np.zeros(count + 8, np.uint64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip : skip + count]


class SolverTable:
    """The solver's transposition table: ``2**bits`` buckets of ``BUCKET`` lockless entries.

    ``memory`` (bytes, or a size such as ``"1G"``): the largest power of two of buckets that
    fits; default a quarter of the free memory, at most ``DEFAULT_TABLE_BYTES`` (at most
    ``LARGE_TABLE_BYTES`` with ``large=True``: see ``table_for``).
    """

    def __init__(self, memory: int | str | None = None, *, large: bool = False):
        cap = (LARGE_TABLE_BYTES if large else DEFAULT_TABLE_BYTES) + NEAR_TABLE_BYTES
        budget = parse_memory(memory) if memory is not None else min(free_memory_bytes() // 4, cap)
        line = BUCKET * ENTRY_BYTES
        near = max(1, min(NEAR_TABLE_BYTES, budget // 8) // line)
        far = max(1, budget // line - near)
        # entry i: words [2i] = key ^ data, [2i + 1] = data (bounds, move, work)
        self.words = _aligned_zeros(2 * BUCKET * far)
        self.near = _aligned_zeros(2 * BUCKET * near)

    @property
    def nbytes(self) -> int:
        return int(self.words.nbytes + self.near.nbytes)

    def clear(self) -> None:
        self.words[:] = 0
        self.near[:] = 0


def table_for(state: State, memory: int | str | None = None) -> SolverTable:
    """A table for solving ``state``: of ``memory``, else the default size, larger for games of at
    least ``LARGE_GAME_STONES`` stones in play."""
    total = state.game.search_score_total(state)
    return SolverTable(memory, large=total is not None and total >= LARGE_GAME_STONES)


@njit(cache=True, inline="always")
def _pack(lower, upper, move, work):
    return (np.uint64(lower + _OFFSET) | (np.uint64(upper + _OFFSET) << _U16)
            | (np.uint64(move & 0xFF) << _U32) | (np.uint64(work) << _U40))


@njit(cache=True, inline="always")
def _bucket(words, key):
    """The first entry of ``key``'s bucket: its high 32 bits scaled to the number of buckets (any
    number, not only a power of two: the table takes all of its memory)."""
    return np.int64(((key >> _U32) * np.uint64(words.shape[0] // (2 * BUCKET))) >> _U32) * BUCKET


@njit(cache=True, inline="always")
def _tt_probe(words, key):
    """(found, lower, upper, move) of ``key``; move -1 when none is stored."""
    first = _bucket(words, key)
    for slot in range(first, first + BUCKET):
        data = words[2 * slot + 1]
        if words[2 * slot] ^ data == key and data != np.uint64(0):
            move = np.int64((data >> _U32) & _MASK8)
            return (True, np.int64(data & _MASK16) - _OFFSET, np.int64((data >> _U16) & _MASK16) - _OFFSET,
                    move if move != 255 else -1)
    return False, -INF, INF, -1


@njit(cache=True, inline="always")
def _probe(words, key, shift):
    """``_tt_probe`` with the stored bounds moved by ``shift`` (a relative table: the mover's margin)."""
    found, lower, upper, move = _tt_probe(words, key)
    if lower > -INF:
        lower += shift
    if upper < INF:
        upper += shift
    return found, lower, upper, move


@njit(cache=True, inline="always")
def _tt_store(words, key, lower, upper, move, work):
    """Store bounds of ``key``: merged with its entry, else over the bucket's entry of least work."""
    first = _bucket(words, key)
    victim = first
    least = np.uint64(1 << 20)
    for slot in range(first, first + BUCKET):
        data = words[2 * slot + 1]
        if words[2 * slot] ^ data == key and data != np.uint64(0):
            lower = max(lower, np.int64(data & _MASK16) - _OFFSET)
            upper = min(upper, np.int64((data >> _U16) & _MASK16) - _OFFSET)
            if move < 0:
                move = np.int64((data >> _U32) & _MASK8)
            work = max(work, np.int64(data >> _U40))
            victim = slot
            break
        slot_work = data >> _U40 if data != np.uint64(0) else np.uint64(0)
        if slot_work < least:
            least = slot_work
            victim = slot
    data = _pack(lower, upper, move, min(work, 255))
    words[2 * victim] = key ^ data
    words[2 * victim + 1] = data


@njit(cache=True, inline="always")
def _position_key(state, key_indices, ply):
    """64-bit hash of the state's key entries (and of the ply count where ``ply >= 0``)."""
    h = FNV_OFFSET_BASIS ^ np.uint64(ply + 1)
    for j in range(key_indices.shape[0]):
        h = (h ^ np.uint64(np.uint32(state[key_indices[j]]))) * FNV_PRIME
    _, mixed = splitmix64(h)
    return mixed


@njit(cache=True, inline="always")
def _log2(count):
    work = 0
    while count > 1:
        count >>= 1
        work += 1
    return work


# -- the search ---------------------------------------------------------------------------
class SolverSettings(NamedTuple):
    """One window search's rules."""

    alpha: int  # root window, mover's view
    beta: int
    depth: int  # plies to search; 0: to the end (exact)
    score_total: int  # Game.search_score_total (< 0: none)
    max_plies: int  # the game's ply_cap
    max_stack: int  # deepest ply followed
    deadline: float  # perf_counter() time to give up at; <= 0: none
    key_plies: bool  # the ply counter is part of the key
    relative: bool  # the key leaves the scores out: the table holds values minus the mover's margin
    ordering: bool  # extra turns and captures first (else action order after the table's move)
    etc: bool  # enhanced transposition cut-offs
    etc_stones: int  # ... only at nodes with at least this many stones outside the stores (score_total >= 0)
    root_shift: int  # rotates the root's move order (one per lazy-SMP thread)
    shared: bool  # other threads search the same tree: defer the moves they are searching (ABDADA)
    prefetch: int  # 1: children's database entries fetched ahead; 2: their table buckets
    near_stones: int  # nodes with at most this many stones outside the stores use the small table


class SolverLine(NamedTuple):
    """The line being searched, one row per ply ``d`` (D plies, A actions, S state size)."""

    states: np.ndarray  # int32[D + 1, S]
    mask: np.ndarray  # int8[A]
    scores: np.ndarray  # float64[2]
    moves: np.ndarray  # int64[D, 2A]     moves still to search, in order (then the deferred ones again)
    keys: np.ndarray  # uint64[D, 2A]    their children's keys
    priority: np.ndarray  # int64[D, 2A]
    num_moves: np.ndarray  # int64[D]
    next_move: np.ndarray  # int64[D]
    player: np.ndarray  # int64[D]
    same: np.ndarray  # bool[D]          the child being searched has the same mover
    alpha: np.ndarray  # int64[D]
    beta: np.ndarray  # int64[D]
    alpha0: np.ndarray  # int64[D]         alpha on entry
    best: np.ndarray  # int64[D]
    best_move: np.ndarray  # int64[D]
    key: np.ndarray  # uint64[D]
    now: np.ndarray  # int64[D]          the mover's margin at node d (relative table values)
    nodes0: np.ndarray  # int64[D]         node count on entry (the work of the node)
    depth: np.ndarray  # int64[D]          plies left (depth-limited searches)
    ordered: np.ndarray  # int64[D]          moves before the deferred ones
    kids: np.ndarray  # int32[A, S]      scratch: the children of the node being entered
    kid_where: np.ndarray  # int64[A]    their database index, or KID_* (not legal, valued by the margin, searched)
    kid_key: np.ndarray  # uint64[A]    their keys (searched children)
    kid_near: np.ndarray  # bool[A]     ... in the small table
    near: np.ndarray  # bool[D]          node d's entry is in the small table

    @classmethod
    def allocate(cls, plies: int, num_actions: int, state_size: int) -> "SolverLine":
        D, A = plies + 1, num_actions
        ints = [np.zeros(D, np.int64) for _ in range(3)]
        return cls(np.zeros((D + 1, state_size), np.int32), np.zeros(A, np.int8), np.zeros(2, np.float64),
                   np.zeros((D, 2 * A), np.int64),
                   np.zeros((D, 2 * A), np.uint64), np.zeros((D, 2 * A), np.int64), *ints, np.zeros(D, np.bool_),
                   *[np.zeros(D, np.int64) for _ in range(5)], np.zeros(D, np.uint64),
                   np.zeros(D, np.int64), np.zeros(D, np.int64), np.zeros(D, np.int64),
                   np.zeros(D, np.int64), np.zeros((A, state_size), np.int32), np.zeros(A, np.int64),
                   np.zeros(A, np.uint64), np.zeros(A, np.bool_), np.zeros(D, np.bool_))


@njit(cache=True)
def no_endgame(state, params, endgame, me):
    """The endgame database of a game without one: holds no position."""
    return np.int64(-1)


KID_ILLEGAL = -3
KID_MARGIN = -2  # ends the game, reaches the cap or the depth: valued by the score difference
KID_SEARCH = -1


@intrinsic
def _prefetch(typingctx, array, index):
    """Start loading the cache line of ``array[index]`` (``llvm.prefetch``): the loads of a node's
    children then overlap instead of each waiting for memory in turn."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte_pointer = ir.IntType(8).as_pointer()
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer] + [ir.IntType(32)] * 3), "llvm.prefetch.p0")
        address = builder.bitcast(builder.gep(data, [args[1]]), byte_pointer)
        flags = [ir.Constant(ir.IntType(32), v) for v in (0, 3, 1)]  # read, keep in every level, data
        builder.call(function, [address] + flags)
        return context.get_dummy_value()

    return types.void(array, types.intp), codegen


def _no_prefetch(array, index):
    """``_prefetch`` without JIT (``NUMBA_DISABLE_JIT=1``): a hint to the memory system, nothing to do."""


if config.DISABLE_JIT:
    _prefetch = _no_prefetch  # an intrinsic only exists inside compiled code

ENTER, NEXT, RETURN = 0, 1, 2


@functools.cache
def _build_solver(kernel, locate):
    """The window search of one kernel and endgame database (``locate(state, params, endgame, me)``:
    the index of ``state`` in ``endgame.values``, whose entry is the margin ``me`` (to move) can
    still make on top of the stores' difference, or -1)."""
    k = inline_kernel(kernel) if INLINE_KERNEL else kernel
    legal_mask, apply, current_player, scores, plies = k.legal_mask, k.apply, k.current_player, k.scores, k.plies
    # The move searched next is played by a call, not compiled in: once a node, against a move
    # per child in ``enter`` (inlined), and each inlined copy of the rules adds to the compile.
    play_move = kernel.apply
    locate = njit(inline="always")(getattr(locate, "py_func", locate))

    @njit(inline="always")
    def margin(state, params, line, me):
        scores(state, params, line.scores)
        return np.int64(line.scores[me] - line.scores[1 - me])

    @njit(inline="always")
    def enter(params, line, stats, far, near, key_indices, endgame, s, d):
        """Node ``d`` before its moves: (settled, value). Settled by the score bounds, the
        endgame database or the table; otherwise its moves are generated and ordered, and
        children that end the game (or reach a limit) are valued on the spot."""
        state = line.states[d]
        me = line.player[d]
        alpha, beta = line.alpha[d], line.beta[d]
        now = margin(state, params, line, me)
        rest = np.int64(1 << 30)
        if s.score_total >= 0:
            rest = s.score_total - np.int64(line.scores[0] + line.scores[1])
        if d > 0 and s.score_total >= 0:
            if now - rest >= beta or now + rest <= alpha:
                stats[S_BOUND_CUTS] += 1
                return True, now - rest if now - rest >= beta else now + rest
        # (no database lookup: the parent looked its children up before searching them)
        line.now[d] = now
        line.near[d] = rest <= s.near_stones
        words = near if line.near[d] else far
        found, lower, upper, tt_move = _probe(words, line.key[d], now if s.relative else 0)
        if found and d > 0:  # the root always searches: its best move is wanted
            if lower >= beta or upper <= alpha or lower == upper:
                stats[S_TT_CUTS] += 1
                return True, lower if lower >= beta or lower == upper else upper
        line.alpha0[d] = alpha
        line.best[d] = -INF
        line.best_move[d] = -1
        line.nodes0[d] = stats[S_NODES]
        legal_mask(state, params, line.mask)
        n = 0
        plies_left = line.depth[d]
        etc = s.etc and rest >= s.etc_stones
        # first every child played and located, its database entry or table bucket fetched ahead
        for a in range(line.mask.shape[0]):
            line.kid_where[a] = KID_ILLEGAL
            if line.mask[a] == 0:
                continue
            child = line.kids[a]
            copy_into(child, state)
            apply(child, params, a)
            cp = current_player(child, params)
            if cp < 0 or plies(child, params) >= s.max_plies or d + 1 >= s.max_stack or plies_left == 1:
                line.kid_where[a] = KID_MARGIN
                continue
            index = locate(child, params, endgame, cp)
            if index >= 0:
                line.kid_where[a] = index
                if s.prefetch & 1:
                    _prefetch(endgame.values, index)
                continue
            line.kid_where[a] = KID_SEARCH
            key = _position_key(child, key_indices, plies(child, params) if s.key_plies else -1)
            line.kid_key[a] = key
            kid_near = False
            if s.score_total >= 0:
                scores(child, params, line.scores)
                kid_near = s.score_total - np.int64(line.scores[0] + line.scores[1]) <= s.near_stones
            line.kid_near[a] = kid_near
            if s.prefetch & 2:
                kid_words = near if kid_near else far
                _prefetch(kid_words, 2 * _bucket(kid_words, key))
        for a in range(line.mask.shape[0]):
            where = line.kid_where[a]
            if where == KID_ILLEGAL:
                continue
            child = line.kids[a]
            cp = current_player(child, params)
            v = NO_VALUE
            if where == KID_MARGIN:
                if cp >= 0 and plies_left != 1:
                    stats[S_CAP_HITS] += 1
                elif cp >= 0:
                    stats[S_HORIZON] += 1
                v = margin(child, params, line, me)
            elif where >= 0:  # a child in the database is valued on the spot, like an end
                stats[S_DB_HITS] += 1
                exact = margin(child, params, line, cp) + np.int64(endgame.values[where])
                v = exact if cp == me else -exact
            if v != NO_VALUE:
                stats[S_NODES] += 1
                if v > line.best[d]:
                    line.best[d] = v
                    line.best_move[d] = a
                    if v >= beta:
                        return False, v  # cut off: closed by the caller
                continue
            key = line.kid_key[a]
            if etc:
                shift = 0
                if s.relative:
                    shift = margin(child, params, line, cp)
                found, lower, upper, _ = _probe(near if line.kid_near[a] else far, key, shift)
                if found:
                    bound = lower if cp == me else -upper
                    if bound >= beta:
                        stats[S_ETC_CUTS] += 1
                        line.best[d] = bound
                        line.best_move[d] = a
                        return False, bound
            priority = 0
            if a == tt_move:
                priority = 1 << 40
            elif s.ordering:
                priority = (1 << 20 if cp == me else 0) + (margin(child, params, line, me) - now) * 64
            # ties: the higher action first (in Kalah the hole nearest the store: an extra turn
            # from there leaves the other holes' counts, and so their extra turns, intact). Each lazy-SMP
            # thread starts the root's ties elsewhere
            priority += (a + s.root_shift) % line.mask.shape[0] if d == 0 else a
            j = n
            while j > 0 and line.priority[d, j - 1] < priority:
                line.moves[d, j] = line.moves[d, j - 1]
                line.keys[d, j] = line.keys[d, j - 1]
                line.priority[d, j] = line.priority[d, j - 1]
                j -= 1
            line.moves[d, j] = a
            line.keys[d, j] = key
            line.priority[d, j] = priority
            n += 1
        line.num_moves[d] = n
        line.ordered[d] = n
        line.next_move[d] = 0
        if line.best[d] > line.alpha[d]:
            line.alpha[d] = line.best[d]
        return False, 0

    @njit(inline="always")
    def close(line, stats, far, near, s, d, cut_value):
        """Store node ``d``'s result (its best, or ``cut_value`` if higher) and return it."""
        words = near if line.near[d] else far
        best = max(line.best[d], cut_value)
        lower, upper = -INF, INF
        if best >= line.beta[d]:
            lower = best
        elif best <= line.alpha0[d]:
            upper = best
        else:
            lower = upper = best
        if line.depth[d] == 0:
            shift = line.now[d] if s.relative else 0
            _tt_store(words, line.key[d], lower - shift if lower > -INF else lower, upper - shift if upper < INF else upper,
                      line.best_move[d], _log2(stats[S_NODES] - line.nodes0[d] + 1))
        elif line.best_move[d] >= 0:
            # a depth-limited search proves no bound: it leaves its best move for the ordering,
            # unless an exact search has stored the node already (its move is the better guess)
            found, known_lower, known_upper, _ = _tt_probe(words, line.key[d])
            if not found or (known_lower == -INF and known_upper == INF):
                _tt_store(words, line.key[d], -INF, INF, line.best_move[d], 0)
        return best

    def search(params_owned, root, root_key, settings, words_owned, near_owned, line_owned, stats_owned,
               control_owned, key_indices_owned, endgame, busy_owned):
        """Search ``root`` with ``settings``' window: (value, mover's view; best move), or (0, -1) stopped."""
        params = unowned(params_owned)
        words = unowned(words_owned)
        near = unowned(near_owned)
        line = unowned(line_owned)
        stats = unowned(stats_owned)
        control = unowned(control_owned)
        key_indices = unowned(key_indices_owned)
        busy = unowned(busy_owned)
        busy_mask = np.uint64(busy.shape[0] - 1)
        s = settings
        copy_into(line.states[0], root)
        line.player[0] = current_player(root, params)
        line.alpha[0] = s.alpha
        line.beta[0] = s.beta
        line.key[0] = root_key
        line.depth[0] = s.depth
        d = 0
        phase = ENTER
        value = np.int64(0)
        while True:
            if phase == ENTER:
                stats[S_NODES] += 1
                if control[0] != 0 or past_deadline(s.deadline, stats[S_NODES], 4096):
                    stats[S_ABORTED] = 1
                    if control[0] == 0:
                        control[0] = 1  # out of time: every thread stops
                    return np.int64(0), -1
                settled, value = enter(params, line, stats, words, near, key_indices, endgame, s, d)
                if settled:
                    phase = RETURN
                elif line.best_move[d] >= 0 and line.best[d] >= line.beta[d]:
                    value = close(line, stats, words, near, s, d, value)
                    phase = RETURN
                else:
                    stats[S_EXPANDED] += 1
                    phase = NEXT
            if phase == NEXT:
                i = line.next_move[d]
                if i >= line.num_moves[d]:
                    value = close(line, stats, words, near, s, d, -INF)
                    phase = RETURN
                else:
                    key = line.keys[d, i]
                    if s.shared and 0 < i < line.ordered[d] and busy[key & busy_mask] == key:
                        # another thread is in this child: search it after the others (simplified
                        # ABDADA, Kerrigan), by then its result is probably in the table
                        j = line.num_moves[d]
                        line.moves[d, j] = line.moves[d, i]
                        line.keys[d, j] = key
                        line.num_moves[d] = j + 1
                        line.next_move[d] = i + 1
                        stats[S_DEFERRED] += 1
                        continue  # phase stays NEXT
                    if s.shared:
                        busy[key & busy_mask] = key
                    a = line.moves[d, i]
                    child = line.states[d + 1]
                    copy_into(child, line.states[d])
                    play_move(child, params, a)
                    cp = current_player(child, params)
                    same = cp == line.player[d]
                    line.same[d] = same
                    line.player[d + 1] = cp
                    line.key[d + 1] = line.keys[d, i]
                    line.depth[d + 1] = 0 if s.depth == 0 else line.depth[d] - 1
                    if same:
                        line.alpha[d + 1] = line.alpha[d]
                        line.beta[d + 1] = line.beta[d]
                    else:
                        line.alpha[d + 1] = -line.beta[d]
                        line.beta[d + 1] = -line.alpha[d]
                    d += 1
                    phase = ENTER
                    continue
            if phase == RETURN:
                if d == 0:
                    return value, line.best_move[0]
                d -= 1
                if s.shared and busy[line.key[d + 1] & busy_mask] == line.key[d + 1]:
                    busy[line.key[d + 1] & busy_mask] = 0
                v = value if line.same[d] else -value
                if v > line.best[d]:
                    line.best[d] = v
                    line.best_move[d] = line.moves[d, line.next_move[d]]
                if v >= line.beta[d]:
                    stats[S_CUTS] += 1
                    if line.next_move[d] == 0:
                        stats[S_FIRST_CUTS] += 1
                    value = close(line, stats, words, near, s, d, v)
                    continue  # phase stays RETURN
                if v > line.alpha[d]:
                    line.alpha[d] = v
                line.next_move[d] += 1
                phase = NEXT

    return cached_njit(search, what="the solver's search", nogil=True)  # on disk: a new process loads it instead of compiling


# -- the driver ---------------------------------------------------------------------------
@dataclass
class SolveResult:
    """The game-theoretic value of a position (see ``solve``)."""

    value: int  # final score difference player_0 - player_1 under perfect play
    best_action: int  # a move that achieves it (-1 if the solve stopped before finding one)
    mover_value: int  # the same from the player to move's side
    to_move: int
    nodes: int
    seconds: float
    exact: bool  # False if stopped by the time limit (value: the best guess within the bounds)
    method: str
    lower: int = -INF  # proven bounds on mover_value (equal to it when exact)
    upper: int = INF
    iterations: int = 0  # null-window searches
    endgame_hits: int = 0  # nodes answered by the endgame database
    table_cuts: int = 0
    etc_cuts: int = 0
    bound_cuts: int = 0
    expanded: int = 0  # nodes whose moves were searched
    move_cuts: int = 0  # of those, cut off by a move (not by the table, the bounds or the database)
    first_move_cuts: int = 0  # ... by the first move tried: move_cuts / first_move_cuts is the ordering's quality
    deferred: int = 0  # moves put off because another thread was in them (threads > 1)
    capped: bool = False  # a line reached the ply cap: the value is the capped game's
    threads: int = 1
    table_bytes: int = 0
    endgame_seeds: int | None = None  # the database's seeds on board (None: no database)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Progress:
    """What a running solve reports to a callback (``solve(progress=...)``)."""

    stage: str  # "deepening" or "exact"
    depth: int  # depth of the deepening search (0 in the exact stage)
    lower: int  # proven bounds so far (exact stage)
    upper: int
    guess: int
    nodes: int
    seconds: float
    extra: dict = field(default_factory=dict)  # "testing": the window (beta) of a search still running


class _Runner:
    """One game's compiled search with its threads' scratch lines and counters."""

    def __init__(self, game: Game, table: SolverTable, threads: int, stack: int, endgame):
        self.game = game
        self.table = table
        self.endgame = endgame
        locate = endgame.locate if endgame is not None else no_endgame
        self.tables = endgame.tables if endgame is not None else _NO_TABLES
        self.search = _build_solver(game.kernel, locate)
        self.lines = [SolverLine.allocate(stack, game.num_actions, game.state_size) for _ in range(threads)]
        self.stats = [np.zeros(NUM_STATS, np.int64) for _ in range(threads)]
        self.control = np.zeros(1, np.int64)
        self.busy = np.zeros(BUSY_ENTRIES, np.uint64)  # keys of the nodes the threads are in (ABDADA)
        self.totals = np.zeros(NUM_STATS, np.int64)

    def nodes_now(self) -> int:
        """Nodes so far, read while threads run (for progress)."""
        return int(self.totals[S_NODES] + sum(int(s[S_NODES]) for s in self.stats))

    def run(self, root, root_key, settings: SolverSettings, key_indices,
            heartbeat: Callable[[], None] | None = None) -> tuple[int, int, bool]:
        """One window search on every thread: (value, best move, stopped). ``heartbeat()`` is
        called every ``HEARTBEAT_SECONDS`` while it runs (a long search's progress)."""
        self.control[0] = 0
        self.busy[:] = 0
        for s in self.stats:
            s[:] = 0
        results: list = [None] * len(self.lines)

        def work(t):
            shifted = settings._replace(root_shift=t * ROOT_SHIFT, shared=len(self.lines) > 1)
            results[t] = self.search(self.game.params, root, root_key, shifted, self.table.words, self.table.near, self.lines[t],
                                     self.stats[t], self.control, key_indices, self.tables, self.busy)
            if not self.stats[t][S_ABORTED]:
                self.control[0] = 2  # answered: the others stop

        if len(self.lines) == 1 and heartbeat is None:
            work(0)
        else:
            pool = [threading.Thread(target=work, args=(t,)) for t in range(len(self.lines))]
            for th in pool:
                th.start()
            for th in pool:
                th.join(HEARTBEAT_SECONDS if heartbeat is not None else None)
                while th.is_alive():
                    heartbeat()
                    th.join(HEARTBEAT_SECONDS)
        for s in self.stats:
            self.totals += s
        self.totals[S_ABORTED] = 0
        aborted = [bool(s[S_ABORTED]) for s in self.stats]
        for s in self.stats:
            s[:] = 0  # counted in totals now (nodes_now adds both)
        for t in range(len(self.stats)):
            if not aborted[t]:
                v, a = results[t]
                return int(v), int(a), False
        return 0, -1, True


class _NoTables(NamedTuple):
    values: np.ndarray


_NO_TABLES = _NoTables(np.zeros(1, np.int8))


def _check_state(state: State, who: str) -> None:
    if not isinstance(state, State):
        raise TypeError(f"{who}: expected a State or a Game, got {type(state).__name__}")
    if state.is_terminal():
        raise ValueError(f"{who}: the game is over; there is nothing to solve")


def solve(
    position: State | Game,
    *,
    memory: int | str | None = None,
    table: SolverTable | None = None,
    threads: int = 1,
    time_limit: float | None = None,
    endgame: Any = "auto",
    ordering: bool = True,
    etc: bool = True,
    deepening: bool | int = False,
    progress: Callable[[Progress], None] | None = None,
) -> SolveResult:
    """Solve ``position`` (a State, or a Game: its start position with seed 0) exactly.

    ``memory``: the table's size (bytes or ``"1G"``; default from the free memory), or pass
    ``table`` to share one between solves of one game. ``threads``: 1 or more (lazy SMP).
    ``time_limit``: seconds; past it the result holds the bounds proven so far
    (``exact=False``). ``endgame``: ``"auto"`` (the Kalah family's database of the default
    size, built or loaded from the cache), None (none), or an ``agents.endgame.Endgame``.
    ``ordering``, ``etc``, ``deepening``: switch the refinements off to measure them; ``deepening``
    may be a node budget for the guess's searches (``True``: ``DEEPENING_NODES``).
    ``progress(Progress)`` is called after every null-window search, and every
    ``HEARTBEAT_SECONDS`` within one (``extra["testing"]``: the value it is testing).
    """
    state = position.new_state(0) if isinstance(position, Game) else position
    _check_state(state, "solve")
    if not isinstance(threads, int) or threads < 1:
        raise ValueError(f"solve: threads must be a positive integer, got {threads!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"solve: time_limit must be > 0 seconds, got {time_limit!r}")
    game = state.game
    start = time.perf_counter()
    table = table if table is not None else table_for(state, memory)
    if isinstance(endgame, str):
        if endgame != "auto":
            raise ValueError(f"solve: endgame must be 'auto', None or an Endgame, got {endgame!r}")
        endgame = endgame_for(game)
    if endgame is not None and not endgame.usable_from(state):
        endgame = None
    deadline = start + time_limit if time_limit is not None else 0.0
    cap_left = MAX_STACK if game.max_plies is None else max(1, game.max_plies - state.plies)
    stack = min(cap_left, MAX_STACK) + 1
    runner = _Runner(game, table, threads, stack, endgame)
    deepening = DEEPENING_NODES if deepening is True else int(deepening)  # the guess's node budget (0: none)
    total = game.search_score_total(state)
    settings = SolverSettings(alpha=-INF, beta=INF, depth=0, score_total=-1 if total is None else int(total),
                              max_plies=game.ply_cap, max_stack=stack, deadline=deadline, key_plies=False,
                              relative=bool(game.key_excludes_scores), ordering=ordering, etc=etc,
                              etc_stones=ETC_STONES, root_shift=0, shared=False, prefetch=PREFETCH,
                              near_stones=(endgame.max_seeds if endgame is not None else 0) + NEAR_ABOVE)
    result = _mtdf(state, runner, settings, deepening, progress, start)
    if runner.totals[S_CAP_HITS] and not result.get("stopped"):
        # the key left the ply counter out: capped and uncapped values may have met. Again,
        # keyed with the ply counter, and without the database (it values the uncapped game).
        table.clear()
        runner = _Runner(game, table, threads, stack, None)
        result = _mtdf(state, runner, settings._replace(key_plies=True), deepening, progress, start)
        table.clear()  # entries of a capped game must not answer later solves
    totals = runner.totals
    mover = state.current_player
    value = result["value"]
    return SolveResult(
        value=value if mover == 0 else -value, best_action=result["best"], mover_value=value, to_move=mover,
        nodes=int(totals[S_NODES]), seconds=time.perf_counter() - start, exact=not result["stopped"],
        method="mtdf", lower=result["lower"], upper=result["upper"], iterations=result["iterations"],
        endgame_hits=int(totals[S_DB_HITS]), table_cuts=int(totals[S_TT_CUTS]), etc_cuts=int(totals[S_ETC_CUTS]),
        bound_cuts=int(totals[S_BOUND_CUTS]), expanded=int(totals[S_EXPANDED]), move_cuts=int(totals[S_CUTS]),
        first_move_cuts=int(totals[S_FIRST_CUTS]), deferred=int(totals[S_DEFERRED]), capped=bool(totals[S_CAP_HITS]), threads=threads,
        table_bytes=table.nbytes, endgame_seeds=None if endgame is None else endgame.max_seeds)


def _mtdf(state: State, runner: _Runner, settings: SolverSettings, deepening: int,
          progress: Callable | None, start: float) -> dict:
    """MTD(f) on ``state``, its first guess from iterative deepening: the value (mover's view)."""
    game = state.game
    root = state.array.copy()
    key_indices = game.position_key_indices()
    root_key = _root_key(root, key_indices, game, settings.key_plies)
    guess = 0
    iterations = 0

    def report(stage, depth, lower, upper, g, **extra):
        if progress is not None:
            progress(Progress(stage, depth, lower, upper, g, runner.nodes_now(), time.perf_counter() - start, extra))

    def converge(window_settings, guess, lower, upper, stage, depth):
        """Null-window searches around ``guess`` until ``lower == upper`` (MTD(f)): (guess, lower, upper,
        best move of the last fail-high, stopped, searches)."""
        best, stopped, searches = -1, False, 0
        while lower < upper:
            beta = max(guess, lower + 1)
            beat = None if progress is None else functools.partial(report, stage, depth, lower, upper, guess,
                                                                   testing=beta)
            v, a, stopped = runner.run(root, root_key, window_settings._replace(alpha=beta - 1, beta=beta), key_indices,
                                       beat)
            searches += 1
            if stopped:
                break
            guess = v
            if v < beta:
                upper = v
            else:
                lower = v
                best = a  # a fail-high's move reaches at least v
            report(stage, depth, lower, upper, guess)
        return guess, lower, upper, best, stopped, searches

    if deepening:
        guess = _deepening_guess(runner, settings, converge, deepening)
    lower, upper = -INF, INF
    if settings.score_total >= 0:  # the whole range the value can lie in
        scores = state.scores()
        now = scores[state.current_player] - scores[1 - state.current_player]
        rest = settings.score_total - sum(scores)
        lower, upper = now - rest, now + rest
    guess, lower, upper, best, stopped, searches = converge(settings, min(max(guess, lower), upper), lower, upper,
                                                            "exact", 0)
    iterations += searches
    if not stopped and (best < 0 or lower != upper):
        # the last fail-low leaves no move that keeps the value: one window around it finds one
        v, best, stopped = runner.run(root, root_key, settings._replace(alpha=lower - 1, beta=lower + 1), key_indices)
        iterations += 1
    value = lower if lower == upper else guess
    return {"value": int(value), "best": int(best), "stopped": stopped, "lower": int(lower), "upper": int(upper),
            "iterations": iterations}


def _deepening_guess(runner: _Runner, settings: SolverSettings, converge, budget: int) -> int:
    """A first guess for MTD(f) from depth-limited MTD(f) searches of depth 2, 4, ... (leaves valued by
    the score difference, database positions exactly), on a table of their own so that their moves,
    which prove nothing, do not take the exact search's entries; their nodes count in ``runner``'s."""
    exact_table = runner.table
    runner.table = SolverTable(min(GUESS_TABLE_BYTES, exact_table.nbytes))
    guess, spent = 0, runner.nodes_now()
    try:
        for depth in range(2, 64, 2):
            if runner.nodes_now() - spent > budget:
                break
            horizon = runner.totals[S_HORIZON]
            guess, _, _, _, stopped, _ = converge(settings._replace(depth=depth), guess, -INF, INF, "deepening", depth)
            if stopped or runner.totals[S_HORIZON] == horizon:
                break  # out of time, or no line reached the depth: deeper iterations would repeat this one
    finally:
        runner.table = exact_table
    return guess


def _root_key(root: np.ndarray, key_indices: np.ndarray, game: Game, key_plies: bool) -> np.uint64:
    ply = int(game.kernel.plies(root, game.params)) if key_plies else -1
    return np.uint64(_position_key(root, key_indices, ply))


def perfect_line(position: State | Game, *, table: SolverTable | None = None, endgame: Any = "auto",
                 threads: int = 1, max_moves: int = 10_000) -> list[tuple[int, str, int]]:
    """A line of perfect play from ``position`` to the end: (action, its name, value player_0 - player_1)."""
    state = (position.new_state(0) if isinstance(position, Game) else position).clone()
    table = table if table is not None else SolverTable()
    line = []
    while not state.is_terminal() and len(line) < max_moves:
        result = solve(state, table=table, endgame=endgame, threads=threads, deepening=False)
        line.append((result.best_action, state.game.action_to_string(state, result.best_action), result.value))
        state.apply(result.best_action)
    return line


class SolverAgent(Agent):
    """Plays a perfect move by solving every position (``memory``: the table's size)."""

    name = "solver"

    def __init__(self, seed: int | None = None, memory: str | int | None = "256M", threads: int = 1,
                 endgame: bool = True):
        super().__init__(seed)
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"solver: threads must be a positive integer, got {threads!r}")
        self.memory = memory
        self.threads = threads
        self.use_endgame = endgame
        self.table = SolverTable(memory)
        self._game = None

    def warmup(self, game: Game) -> None:
        state = game.new_state(0)
        solve(state, table=SolverTable(1 << 12), endgame=None, time_limit=0.05)

    def act(self, state: State) -> int:
        _check_state(state, "SolverAgent.act")
        if self._game != state.game:
            self._game = state.game
            self.table = SolverTable(self.memory)  # fresh (untouched pages cost nothing)
        return solve(state, table=self.table, threads=self.threads,
                     endgame="auto" if self.use_endgame else None).best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["table"] = None
        data["_game"] = None
        return data

    def __setstate__(self, data):
        self.__dict__.update(data)
        self.table = SolverTable(self.memory)
