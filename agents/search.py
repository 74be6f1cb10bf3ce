"""Alpha-beta search and the exact solver, compiled by numba over any game's kernel.

Both run the same jitted negamax (``_negamax``), which only calls the kernel contract
(``mancala_envs.core.game``): it works for every id ``mancala_envs.list_envs()`` returns,
including ids registered later, with no per-game code.

Negamax with same-player moves
------------------------------
A node's value is from the point of view of its player to move. After a move the child's
player to move is read from the kernel (``current_player``): if it is the same player
(an extra turn in Kalah, a bonus move in Progressive Mancala, any "move again" rule), the
child's value is taken as it is and the window ``(alpha, beta)`` is passed unchanged; only
when the player to move changes is the value negated and the window flipped to
``(-beta, -alpha)``. So a same-player move is never treated as a ply of the opponent.
Every move, whoever makes it, counts as one ply of search depth. Terminal positions and
leaves are valued from the parent mover's point of view directly. Repetition endings and
any other history-dependent rule live in the kernel's state, so the search sees them
without knowing about them.

Evaluation (score difference)
-----------------------------
Let ``d = scores[me] - scores[opponent]`` from the kernel's ``scores()``, ``me`` the player
to move at the node being searched.

* leaf at the depth limit, or a position at the game's ply cap (a truncation, which is
  neither win nor loss): ``d``.
* end of the game: alpha-beta agents use ``1e6 * returns[me] + d`` (a win always beats any
  score margin, then the margin counts); the solver uses ``d`` alone, so its value is the
  final score difference under perfect play.

Per family, what ``d`` means:

A game may replace ``d`` at depth-limit leaves by its own evaluation
(``Game.search_heuristic``, a jitted ``(state, params, player) -> float``); the solver and
ends of the game always use ``d``. Per family:

* **Kalah** (every ``kalah-*`` id): store minus store. At the end the seeds left in the
  rows are already moved into the stores (``leftover="owner"``) or count for nobody
  (``"discard"``), so ``d`` is the final margin and its sign is the result. During the
  chosen-start setup, where the stores are empty, ``kalah-chosen-start-v0``'s heuristic
  steers the chooser towards a full, balanced board (``games/kalah.py``, "Search
  evaluation").
* **Progressive Mancala**: captured stones minus captured stones; stones lying in the Goal
  count for nobody until a move ends there.
* **Afrika**: captured totals (raw, without komi: the result compares the totals after
  komi, a fixed shift). At leaves the heuristic adds half the difference between the
  stones in the opponent's row and in the mover's row (``games/afrika.py``, "Search
  evaluation"). In Give-away Afrika (``giveaway=True``) ``d`` points the wrong way and only
  the terminal ``returns`` term is right, so give-away play is weak at shallow depth.
* Games added later: whatever their ``scores()`` count. A family whose result is not
  monotone in the score difference should say so here.

Transposition table
-------------------
Open addressing with one slot per index (always replace), arrays of ``2**tt_bits`` entries:
64-bit key, value (float64), searched depth, bound flag (exact / lower / upper) and best
move. The key is an FNV-style hash of either the whole state array (``key="state"``, the
default: always safe, since the state is the whole truth, history fields included) or of
the two players' observations (``key="obs"``: finds far more transpositions because it
ignores bookkeeping such as the ply counter and the last move, but is right only where the
observations of both players together determine the future of the game: every Kalah id and
Progressive Mancala, not a game with a hidden deck or a repetition history). The TT move is
searched first; the other moves follow the history heuristic (cut-off counts weighted by
depth squared). At the root of an agent's search, moves not suggested by the TT are
ordered at random (the agent's seeded generator), which breaks ties between equal moves.

Budgets
-------
``AlphaBetaAgent(depth=6)`` searches to a fixed depth by iterative deepening (1, 2, ...,
6), each iteration seeding the move ordering of the next through the TT.
``AlphaBetaAgent(time=0.5)`` deepens until the time is spent: the jitted search reads the
clock (``numba.objmode``, ``time.perf_counter``) every 1024 nodes and abandons an
iteration that overruns; the move of the last completed iteration is played. Depth 1 is
always completed, so an agent always answers.

Exact solver
------------
``solve(game_or_state)`` searches to the end of the game (the ply cap still applies and,
if ever reached, the result says ``exact=False``) with a TT that never forgets depth, by
MTD(f): null-window searches converging on the value, which needs integer scores (every
game so far); otherwise one full-window search. The value is the final score difference
first player minus second (``player_0 - player_1``) under perfect play, i.e. both players
maximising their own margin.

Two things make it fast:

* Every value the solver stores is exact to the end of the game, so a TT entry answers
  the same position whatever ply it is reached at (the depth is not counted down), which
  matters with extra turns: lines of different lengths meet in the same position.
* Score bounds: where a game declares ``scores_only_grow`` (Kalah, Afrika, Progressive
  Mancala), the final difference from a node lies within ``d`` plus or minus the stones not
  yet captured (``Game.search_score_total``), and a node whose whole range falls outside
  the window returns that bound without a search. MTD(f)'s null windows make this cut
  often.
"""

from __future__ import annotations

import functools
import time
from dataclasses import asdict, dataclass
from typing import Any

import numba
import numpy as np
from numba import njit

from mancala_envs.core.game import Game, State
from mancala_envs.core.inline import inline_kernel, inlined, unowned

from .base import Agent

__all__ = ["AlphaBetaAgent", "SolveResult", "SolverAgent", "SearchStats", "TranspositionTable", "search", "solve"]

NEG_INF = -1.0e18
WIN_BONUS = 1.0e6
SOLVER_DEPTH = 1 << 30
MAX_STACK = 4096  # deepest line the solver follows when the game has no ply cap

FLAG_EXACT = 1
FLAG_LOWER = 2
FLAG_UPPER = 3

KEY_STATE = 0
KEY_OBS = 1
KEY_MODES = {"state": KEY_STATE, "obs": KEY_OBS}

# stats vector layout
S_NODES = 0
S_ABORTED = 1
S_CAP_HITS = 2
S_TT_HITS = 3
NUM_STATS = 4

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_U29 = np.uint64(29)


@njit(cache=True)
def _now():
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _hash_state(state):
    h = _FNV_OFFSET
    for i in range(state.shape[0]):
        h = (h ^ np.uint64(np.uint32(state[i]))) * _FNV_PRIME
    h = (h ^ (h >> _U29)) * _MIX
    return h ^ (h >> _U29)


@njit(cache=True)
def _hash_obs(obs0, obs1, player):
    h = _FNV_OFFSET ^ np.uint64(player + 2)
    for i in range(obs0.shape[0]):
        h = (h ^ np.uint64(np.int64(np.round(obs0[i] * 65536.0)))) * _FNV_PRIME
    for i in range(obs1.shape[0]):
        h = (h ^ np.uint64(np.int64(np.round(obs1[i] * 65536.0)))) * _FNV_PRIME
    h = (h ^ (h >> _U29)) * _MIX
    return h ^ (h >> _U29)


# Not cache=True: the kernel functions arrive as arguments (see mancala_envs.core.playout);
# numba compiles this loop once per kernel and process, a few seconds.
@functools.cache
def _build_negamax(kernel, heuristic):
    """The search loop for one kernel and leaf evaluation, with both compiled into it.

    Built like ``agents.mcts``'s loop (see ``mancala_envs.core.inline``): the kernel's
    functions and the heuristic are closure variables, so numba inlines them, and the
    arrays they are given are ``unowned`` views of arrays the caller allocates.
    """
    k = inline_kernel(kernel)
    legal_mask, apply, current_player, scores = k.legal_mask, k.apply, k.current_player, k.scores
    returns, observe, plies = k.returns, k.observe, k.plies
    heuristic = inlined(heuristic)

    @njit
    def negamax(
        use_heuristic,  # False: leaves are valued by the score difference
        score_total,  # Game.search_score_total (scores only grow, and their final sum is at most this); < 0: none
        params_owned,
        root,  # int32[S]: the position to search; its player to move must be >= 0
        depth,  # plies to search (SOLVER_DEPTH: to the end)
        alpha0,
        beta0,
        solver,  # True: terminal value is the score difference alone
        key_mode,  # KEY_STATE or KEY_OBS
        max_plies,  # the game's ply_cap (NO_PLY_CAP for none)
        max_stack,  # deepest ply followed (beyond: valued like a cap)
        tt,  # TT_ENTRY[T]: the transposition table (TranspositionTable.entries)
        history,  # int64[A]: history heuristic
        root_priority,  # float64[A]: ordering of root moves after the TT move
        deadline,  # perf_counter() time to give up at; <= 0: none
        stats,  # int64[NUM_STATS]
        # what the kernel is handed (see _Scratch)
        states_owned,  # int32[max_stack + 2, S]: the position at every ply of the line
        mask_owned,  # int8[A]
        scores_owned,  # float64[2]
        returns_owned,  # float64[2]
        obs0_owned,  # float32[observation size]
        obs1_owned,  # float32[observation size]
    ):
        # views without reference counts: the caller's arrays outlive this call
        params = unowned(params_owned)
        states = unowned(states_owned)
        mask = unowned(mask_owned)
        sbuf = unowned(scores_owned)
        rbuf = unowned(returns_owned)
        obs0 = unowned(obs0_owned)
        obs1 = unowned(obs1_owned)
        S = root.shape[0]
        A = history.shape[0]
        D = max_stack + 1
        tmask = np.uint64(tt.shape[0] - 1)
        moves = np.empty((D, A), np.int32)
        nmoves = np.zeros(D, np.int64)
        idx = np.zeros(D, np.int64)
        player = np.zeros(D, np.int64)
        alpha = np.zeros(D, np.float64)
        beta = np.zeros(D, np.float64)
        oalpha = np.zeros(D, np.float64)
        best = np.zeros(D, np.float64)
        bestmv = np.zeros(D, np.int64)
        dep = np.zeros(D, np.int64)
        keys = np.zeros(D, np.uint64)
        same = np.zeros(D, np.bool_)
        prio = np.zeros(A, np.float64)

        for i in range(S):
            states[0, i] = root[i]
        alpha[0] = alpha0
        beta[0] = beta0
        dep[0] = depth
        d = 0
        phase = 0  # 0 enter a node, 1 next move, 2 return ret to the parent
        ret = 0.0
        v = 0.0
        while True:
            if phase == 0:
                stats[S_NODES] += 1
                if deadline > 0.0 and (stats[S_NODES] & 1023) == 0:
                    if _now() > deadline:
                        stats[S_ABORTED] = 1
                        return 0.0, -1
                st = states[d]
                p = current_player(st, params)
                player[d] = p
                if key_mode == KEY_OBS:
                    observe(st, params, 0, obs0)
                    observe(st, params, 1, obs1)
                    h = _hash_obs(obs0, obs1, p)
                else:
                    h = _hash_state(st)
                keys[d] = h
                slot = np.int64(h & tmask)
                ttm = -1
                entry = tt[slot]
                if entry.key == h and entry.flag != 0:
                    ttm = np.int64(entry.move)
                    if d > 0 and entry.depth >= dep[d]:
                        tv = entry.value
                        f = entry.flag
                        if f == FLAG_EXACT or (f == FLAG_LOWER and tv >= beta[d]) or (f == FLAG_UPPER and tv <= alpha[d]):
                            stats[S_TT_HITS] += 1
                            ret = tv
                            phase = 2
                            continue
                if solver and score_total >= 0.0 and d > 0:
                    # Score bounds: the final difference lies within the seeds still to be won.
                    scores(st, params, sbuf)
                    margin = sbuf[p] - sbuf[1 - p]
                    left = score_total - sbuf[0] - sbuf[1]
                    if margin + left <= alpha[d]:
                        ret = margin + left
                        phase = 2
                        continue
                    if margin - left >= beta[d]:
                        ret = margin - left
                        phase = 2
                        continue
                oalpha[d] = alpha[d]
                legal_mask(st, params, mask)
                n = 0
                if ttm >= 0 and ttm < A and mask[ttm] != 0:
                    moves[d, 0] = ttm
                    n = 1
                # the rest by priority (history, or the root order), insertion sort
                start = n
                for a in range(A):
                    if mask[a] != 0 and a != ttm:
                        if d == 0:
                            pa = root_priority[a]
                        else:
                            pa = np.float64(history[a])
                        j = n
                        while j > start and prio[j - 1] < pa:
                            moves[d, j] = moves[d, j - 1]
                            prio[j] = prio[j - 1]
                            j -= 1
                        moves[d, j] = a
                        prio[j] = pa
                        n += 1
                nmoves[d] = n
                idx[d] = 0
                best[d] = NEG_INF
                bestmv[d] = moves[d, 0]
                phase = 1
            if phase == 1:
                if idx[d] >= nmoves[d]:
                    # all moves searched: store and return
                    slot = np.int64(keys[d] & tmask)
                    _tt_store(tt[slot], keys[d], best[d], dep[d], bestmv[d],
                              FLAG_UPPER if best[d] <= oalpha[d] else FLAG_EXACT)
                    ret = best[d]
                    phase = 2
                    continue
                a = moves[d, idx[d]]
                child = states[d + 1]
                for i in range(S):
                    child[i] = states[d, i]
                apply(child, params, a)
                me = player[d]
                cp = current_player(child, params)
                if cp < 0 or dep[d] <= 1 or d + 1 >= max_stack or plies(child, params) >= max_plies:
                    if cp >= 0 and use_heuristic and dep[d] <= 1:
                        v = heuristic(child, params, me)
                    else:
                        scores(child, params, sbuf)
                        v = sbuf[me] - sbuf[1 - me]
                    if cp < 0:
                        if not solver:
                            returns(child, params, rbuf)
                            v += WIN_BONUS * rbuf[me]
                    elif dep[d] > 1:
                        stats[S_CAP_HITS] += 1
                    stats[S_NODES] += 1
                else:
                    same[d] = cp == me
                    if same[d]:
                        alpha[d + 1] = alpha[d]
                        beta[d + 1] = beta[d]
                    else:
                        alpha[d + 1] = -beta[d]
                        beta[d + 1] = -alpha[d]
                    # to the end: every stored value is exact whatever the ply it was found at
                    dep[d + 1] = dep[d] if depth == SOLVER_DEPTH else dep[d] - 1
                    d += 1
                    phase = 0
                    continue
            if phase == 2:
                if d == 0:
                    return ret, bestmv[0]
                d -= 1
                v = ret if same[d] else -ret
            # a child of node d has value v (from d's mover's point of view)
            a = moves[d, idx[d]]
            if v > best[d]:
                best[d] = v
                bestmv[d] = a
            if v > alpha[d]:
                alpha[d] = v
            if alpha[d] >= beta[d]:
                history[a] += dep[d] * dep[d]
                slot = np.int64(keys[d] & tmask)
                _tt_store(tt[slot], keys[d], best[d], dep[d], bestmv[d], FLAG_LOWER)
                ret = best[d]
                phase = 2
                continue
            idx[d] += 1
            phase = 1

    return negamax


class _Scratch:
    """The arrays the search hands the kernel (see ``_build_negamax``)."""

    def __init__(self, game: Game, max_stack: int):
        self.states = np.empty((max_stack + 2, game.state_size), np.int32)
        self.mask = np.zeros(game.num_actions, np.int8)
        self.scores = np.zeros(2, np.float64)
        self.returns = np.zeros(2, np.float64)
        self.obs0 = np.zeros(game.observation_size, np.float32)
        self.obs1 = np.zeros(game.observation_size, np.float32)


# One record per entry, so that a probe touches one cache line, not one per field: with the
# fields in five arrays the solver's 2**24-entry table cost a cache miss per field.
TT_ENTRY = np.dtype(
    [("key", np.uint64), ("value", np.float64), ("depth", np.int32), ("move", np.int16), ("flag", np.int8)],
    align=True,
)


@njit(cache=True, inline="always")
def _tt_store(entry, key, value, depth, move, flag):
    entry.key = key
    entry.value = value
    entry.depth = depth
    entry.move = move
    entry.flag = flag


class TranspositionTable:
    """The TT: ``2**bits`` entries of ``TT_ENTRY`` (24 bytes each)."""

    def __init__(self, bits: int = 20):
        if not 4 <= bits <= 30:
            raise ValueError(f"tt_bits must be from 4 to 30, got {bits}")
        self.bits = bits
        # key: 64-bit position hash; value: searched value, mover's view; depth: depth the
        # value was searched to; move: best move found; flag: 0 empty, 1 exact, 2 lower
        # bound, 3 upper bound
        self.entries = np.zeros(1 << bits, TT_ENTRY)

    @property
    def key(self) -> np.ndarray:
        return self.entries["key"]

    def clear(self) -> None:
        self.entries["flag"] = 0
        self.entries["key"] = 0


@dataclass
class SearchStats:
    """What one ``search`` call did."""

    value: float  # mover's view
    best_action: int
    depth: int  # deepest completed iteration
    nodes: int
    seconds: float
    aborted: bool  # the last iteration ran out of time
    cap_hits: int  # lines cut at the ply cap or the stack limit


@njit(cache=True)
def _no_heuristic(state, params, player):
    return 0.0  # never called: use_heuristic is False


def _call(game: Game, root: np.ndarray, depth: int, alpha: float, beta: float, solver: bool, key_mode: int,
          tt: TranspositionTable, history: np.ndarray, root_priority: np.ndarray, deadline: float,
          stats: np.ndarray, max_stack: int, score_total: int | None = None):
    heuristic = game.search_heuristic
    scratch = _Scratch(game, int(max_stack))
    return _build_negamax(game.kernel, heuristic if heuristic is not None else _no_heuristic)(
        heuristic is not None, -1.0 if score_total is None else float(score_total),
        game.params, root, int(depth), float(alpha), float(beta), bool(solver), int(key_mode),
        game.ply_cap, int(max_stack),
        tt.entries, history, root_priority, float(deadline), stats,
        scratch.states, scratch.mask, scratch.scores, scratch.returns, scratch.obs0, scratch.obs1,
    )


def _check_state(state: State, who: str) -> None:
    if not isinstance(state, State):
        raise TypeError(f"{who}: expected a State, got {type(state).__name__}")
    if state.is_terminal():
        raise ValueError(f"{who}: the game is over; there is no move to search")


def search(
    state: State,
    depth: int | None = None,
    time_limit: float | None = None,
    *,
    tt: TranspositionTable | None = None,
    key: str = "state",
    rng: np.random.Generator | None = None,
    history: np.ndarray | None = None,
) -> SearchStats:
    """Iterative-deepening alpha-beta from ``state`` to ``depth`` plies and/or for ``time_limit`` s.

    Returns the value (mover's view, agent evaluation) and the best move of the deepest
    completed iteration.
    """
    _check_state(state, "search")
    if depth is None and time_limit is None:
        raise ValueError("search: give a depth, a time_limit or both")
    if depth is not None and depth < 1:
        raise ValueError(f"search: depth must be at least 1, got {depth}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"search: time_limit must be > 0 seconds, got {time_limit}")
    if key not in KEY_MODES:
        raise ValueError(f"search: key must be one of {', '.join(KEY_MODES)}, got {key!r}")
    game = state.game
    tt = tt or TranspositionTable(18)
    history = np.zeros(game.num_actions, np.int64) if history is None else history
    rng = rng or np.random.default_rng(0)
    root_priority = rng.random(game.num_actions)
    max_depth = depth if depth is not None else 10_000
    start = time.perf_counter()
    deadline = start + time_limit if time_limit is not None else 0.0
    stats = np.zeros(NUM_STATS, np.int64)
    value, best, done_depth, aborted, nodes, caps = 0.0, -1, 0, False, 0, 0
    root = state.array.copy()
    stack = min(max_depth, MAX_STACK) + 1
    for d in range(1, max_depth + 1):
        stats[:] = 0
        v, a = _call(game, root, d, NEG_INF, -NEG_INF, False, KEY_MODES[key], tt, history, root_priority,
                     deadline if d > 1 else 0.0, stats, stack)
        nodes += int(stats[S_NODES])
        if stats[S_ABORTED]:
            aborted = True
            break
        value, best, done_depth, caps = float(v), int(a), d, int(stats[S_CAP_HITS])
        if abs(value) >= WIN_BONUS / 2:  # a proven end of the game: deeper search cannot change it
            break
        if time_limit is not None and time.perf_counter() - start > time_limit * 0.5:
            break  # the next iteration would most likely overrun
    return SearchStats(value, best, done_depth, nodes, time.perf_counter() - start, aborted, caps)


class AlphaBetaAgent(Agent):
    """Iterative-deepening negamax with a TT, to a fixed ``depth`` or for ``time`` seconds a move."""

    name = "alphabeta"

    def __init__(self, seed: int | None = None, depth: int | None = None, time: float | None = None,
                 tt_bits: int = 18, key: str = "state"):
        super().__init__(seed)
        if depth is None and time is None:
            depth = 6
        if depth is not None and depth < 1:
            raise ValueError(f"alphabeta: depth must be at least 1, got {depth}")
        if time is not None and not time > 0:
            raise ValueError(f"alphabeta: time must be > 0 seconds, got {time}")
        if key not in KEY_MODES:
            raise ValueError(f"alphabeta: key must be one of {', '.join(KEY_MODES)}, got {key!r}")
        self.depth = depth
        self.time = time
        self.key = key
        self.tt = TranspositionTable(tt_bits)
        self.history: np.ndarray | None = None
        self.last: SearchStats | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.tt.clear()
        self.history = None

    def warmup(self, game: Game) -> None:
        search(game.new_state(0), depth=1, tt=TranspositionTable(4), key=self.key)

    def act(self, state: State) -> int:
        _check_state(state, "AlphaBetaAgent.act")
        if self.history is None or self.history.shape[0] != state.game.num_actions:
            self.history = np.zeros(state.game.num_actions, np.int64)
        self.history //= 2  # age the history between moves
        self.last = search(state, self.depth, self.time, tt=self.tt, key=self.key, rng=self.rng,
                           history=self.history)
        return self.last.best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["tt"] = self.tt.bits  # rebuilt empty on unpickling
        return data

    def __setstate__(self, data):
        bits = data.pop("tt")
        self.__dict__.update(data)
        self.tt = TranspositionTable(bits)


@dataclass
class SolveResult:
    """The game-theoretic value of a position (see ``solve``)."""

    value: float  # final score difference player_0 - player_1 under perfect play
    best_action: int  # a move that achieves it
    mover_value: float  # the same from the player to move's side
    to_move: int
    nodes: int
    seconds: float
    exact: bool  # False if a line reached the ply cap (the value is then for the capped game)
    method: str

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for k in ("value", "mover_value"):
            if float(out[k]).is_integer():
                out[k] = int(out[k])
        return out


def _new_stats():
    return np.zeros(NUM_STATS, np.int64)


def solve(
    position: State | Game,
    *,
    tt_bits: int = 22,
    key: str = "state",
    method: str = "mtdf",
    tt: TranspositionTable | None = None,
) -> SolveResult:
    """Solve ``position`` (a State, or a Game: its start position with seed 0) exactly.

    ``method="mtdf"`` (null-window searches; integer scores) or ``"alphabeta"`` (one
    full-window search). ``key`` as in the module docstring. Pass the same ``tt`` to
    solve several positions of one game faster.
    """
    state = position.new_state(0) if isinstance(position, Game) else position
    _check_state(state, "solve")
    if key not in KEY_MODES:
        raise ValueError(f"solve: key must be one of {', '.join(KEY_MODES)}, got {key!r}")
    if method not in ("mtdf", "alphabeta"):
        raise ValueError(f"solve: method must be 'mtdf' or 'alphabeta', got {method!r}")
    game = state.game
    tt = tt or TranspositionTable(tt_bits)
    history = np.zeros(game.num_actions, np.int64)
    priority = -np.arange(game.num_actions, dtype=np.float64)  # deterministic root order
    root = state.array.copy()
    cap_left = None if game.max_plies is None else game.max_plies - state.plies
    stack = MAX_STACK if cap_left is None else max(1, min(cap_left, MAX_STACK)) + 1
    mode = KEY_MODES[key]
    score_total = game.search_score_total(state)
    start = time.perf_counter()
    nodes = 0
    caps = 0
    stats = _new_stats()

    def run(alpha, beta):
        nonlocal nodes, caps
        stats[:] = 0
        v, a = _call(game, root, SOLVER_DEPTH, alpha, beta, True, mode, tt, history, priority, 0.0, stats, stack,
                     score_total)
        nodes += int(stats[S_NODES])
        caps += int(stats[S_CAP_HITS])
        return float(v), int(a)

    used = method
    if method == "mtdf":
        g, best = 0.0, -1
        lower, upper = NEG_INF, -NEG_INF
        while lower < upper:
            b = max(g, lower + 1)
            g, best = run(b - 1, b)
            if not float(g).is_integer():  # non-integer scores: MTD(f) with unit steps does not apply
                used = "alphabeta"
                break
            if g < b:
                upper = g
            else:
                lower = g
        value = g
        if used == "alphabeta" or best < 0:
            value, best = run(NEG_INF, -NEG_INF)
        else:
            # the last null-window search need not leave a best move that achieves the value
            # (a fail-low leaves any move): confirm it with a window around the value.
            v2, best = run(value - 1, value + 1)
            value = v2
    else:
        value, best = run(NEG_INF, -NEG_INF)
    seconds = time.perf_counter() - start
    mover = state.current_player
    first = value if mover == 0 else -value
    return SolveResult(first, best, value, mover, nodes, seconds, caps == 0, used)


class SolverAgent(Agent):
    """Plays a perfect move by solving every position (small boards only)."""

    name = "solver"

    def __init__(self, seed: int | None = None, tt_bits: int = 20, key: str = "state"):
        super().__init__(seed)
        self.key = key
        self.tt = TranspositionTable(tt_bits)
        self._game = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)

    def warmup(self, game: Game) -> None:
        search(game.new_state(0), depth=1, tt=TranspositionTable(4), key=self.key)

    def act(self, state: State) -> int:
        _check_state(state, "SolverAgent.act")
        if self._game is not state.game:
            self._game = state.game
            self.tt.clear()
        return solve(state, key=self.key, tt=self.tt).best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["tt"] = self.tt.bits
        data["_game"] = None
        return data

    def __setstate__(self, data):
        bits = data.pop("tt")
        self.__dict__.update(data)
        self.tt = TranspositionTable(bits)
