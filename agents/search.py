"""Alpha-beta search, compiled by numba over any game's kernel.

It runs a jitted negamax (``_build_negamax``), which only calls the kernel contract
(``mancala_envs.core.game``): it works for every id ``mancala_envs.list_envs()`` returns,
including ids registered later, with no per-game code. The exact solver is
``mancala_envs.agents.solver`` (its own loop).

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
* end of the game: ``1e6 * returns[me] + d`` (a win always beats any score margin, then the
  margin counts).

What ``d`` means in each family is listed below, after the learned evaluation, which
replaces it at the leaves.

Learned evaluation: ``search(..., evaluation=...)`` and ``AlphaBetaAgent(eval=RUN_DIR)``
(``alphabeta:depth=6,eval=RUN_DIR``) value every leaf that is not the end of the game by a
network (``mancala_envs.agents.learned.learned_eval``): the mover's observation, encoded, through
the MLP (plus ``tanh(score_scale * h)`` where the file has a score blend, ``h`` the leaf's
value without the network: the heuristic below, else ``d``), clipped to
[-1, 1], from the leaf's player to move, negated for the other player. The weights are arrays inside ``SearchBuffers`` (an ``EvalNet``), so the loop compiled once
per kernel serves every weight set, and the forward pass runs in the compiled loop. The
end of the game stays ``WIN_BONUS * result + d`` (a draw: 0, the evaluation's even value).

A game may replace ``d`` at depth-limit leaves by its own evaluation
(``Game.search_heuristic``, a jitted ``(state, params, player) -> float``); ends of the
game always use ``d``. Per family:

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
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from mancala_envs.core.game import Game, State
from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.inline import borrowed_bundle, inline_kernel, inlined, params_reader, search_hook, unowned
from mancala_envs.core.jit_helpers import bit_count, copy_into, hash_observations, mask_with_words, past_deadline
from mancala_envs.core.repetition import unsigned_index

from .base import Agent
from .learned.learned_eval import EvalNet, LearnedEval, blended_value, features_loader, load_evaluation

__all__ = ["AlphaBetaAgent", "SearchStats", "TranspositionTable", "search"]

NEG_INF = -1.0e18
WIN_BONUS = 1.0e6
MAX_STACK = 4096  # deepest line a search follows

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

# One record per entry, so that a probe touches one cache line, not one per field: with the
# fields in five arrays the solver's 2**24-entry table cost a cache miss per field.
TT_ENTRY = np.dtype(
    [("key", np.uint64), ("value", np.float64), ("depth", np.int32), ("move", np.int16), ("flag", np.int8)],
    align=True,
)


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


class SearchSettings(NamedTuple):
    """One negamax call's window, depth and rules."""

    depth: int  # plies to search
    alpha: float  # the root's window, mover's view
    beta: float
    key_mode: int  # KEY_STATE or KEY_OBS
    max_plies: int  # the game's ply_cap (NO_PLY_CAP for none)
    max_stack: int  # deepest ply followed (beyond: valued like a cap)
    deadline: float  # perf_counter() time to give up at; <= 0: none
    use_heuristic: bool  # False: leaves are valued by the score difference
    use_eval: bool  # True: leaves are valued by the learned evaluation (SearchBuffers.evaluation)


@borrowed_bundle  # never built by compiled code (core.inline)
class SearchTables(NamedTuple):
    """What outlives one negamax call (A actions, T table entries)."""

    tt: np.ndarray  # TT_ENTRY[T]        the transposition table (TranspositionTable.entries)
    history: np.ndarray  # int64[A]           history heuristic: cut-offs per move, weighted by depth squared
    root_priority: np.ndarray  # float64[A]         order of the root's moves after the TT move
    stats: np.ndarray  # int64[NUM_STATS]   nodes, aborted, cap hits, TT hits


@borrowed_bundle  # never built by compiled code (core.inline)
class SearchLine(NamedTuple):
    """The nodes of the line being searched, one row per ply ``d`` (D = max_stack + 1 plies, A actions, S state size)."""

    states: np.ndarray  # int32[D + 1, S]   the position at every ply
    moves: np.ndarray  # int32[D, A]       the node's legal moves in search order
    num_moves: np.ndarray  # int64[D]          how many of them
    next_move: np.ndarray  # int64[D]          index in moves of the move being searched
    player: np.ndarray  # int64[D]          player to move
    alpha: np.ndarray  # float64[D]        the window, the node's mover's view
    beta: np.ndarray  # float64[D]
    alpha_at_entry: np.ndarray  # float64[D]        alpha before any move (a best value at most this is an upper bound)
    best_value: np.ndarray  # float64[D]        best value found so far
    best_move: np.ndarray  # int64[D]          the move that found it
    depth: np.ndarray  # int64[D]          plies left to search
    key: np.ndarray  # uint64[D]         the node's hash
    same_player: np.ndarray  # bool[D]           the searched child has the same player to move

    @classmethod
    def allocate(cls, max_stack: int, num_actions: int, state_size: int) -> "SearchLine":
        plies = max_stack + 1
        floats = [np.zeros(plies, np.float64) for _ in range(4)]
        return cls(np.zeros((plies + 1, state_size), np.int32), np.zeros((plies, num_actions), np.int32),
                   np.zeros(plies, np.int64), np.zeros(plies, np.int64), np.zeros(plies, np.int64), *floats,
                   np.zeros(plies, np.int64), np.zeros(plies, np.int64), np.zeros(plies, np.uint64),
                   np.zeros(plies, np.bool_))


@borrowed_bundle  # never built by compiled code (core.inline)
class SearchBuffers(NamedTuple):
    """What the kernel is handed, and the move sort's keys (A actions, O observation size)."""

    mask: np.ndarray  # int8[A]      legal moves (the first bytes of mask_words)
    mask_words: np.ndarray  # uint64[ceil(A/8)] the mask's memory eight entries a word (zero padded)
    scores: np.ndarray  # float64[2]
    returns: np.ndarray  # float64[2]
    obs0: np.ndarray  # float32[O]   player_0's observation (key="obs")
    obs1: np.ndarray  # float32[O]   player_1's observation
    priority: np.ndarray  # float64[A]   sort key of each sorted move
    evaluation: EvalNet  # the learned evaluation (EvalNet.empty when none; SearchSettings.use_eval)

    @classmethod
    def allocate(cls, game: Game, evaluation: EvalNet | None = None) -> "SearchBuffers":
        net = evaluation if evaluation is not None else EvalNet.empty(game.observation_size)
        mask, words = mask_with_words(game.num_actions)
        return cls(mask, words, np.zeros(2, np.float64), np.zeros(2, np.float64),
                   np.zeros(game.observation_size, np.float32), np.zeros(game.observation_size, np.float32),
                   np.zeros(game.num_actions, np.float64), net)


# Table entries are read and written by field name (entry["key"]), which numba compiles and
# numpy also runs (under NUMBA_DISABLE_JIT, an entry is a numpy.void, a view without attributes).
@njit(cache=True, inline="always")
def _tt_entry(tt, key):
    return tt[np.int64(key & np.uint64(tt.shape[0] - 1))]


@njit(cache=True, inline="always")
def _tt_store(tt, key, value, depth, move, flag):
    entry = _tt_entry(tt, key)
    entry["key"] = key
    entry["value"] = value
    entry["depth"] = depth
    entry["move"] = move
    entry["flag"] = flag


@njit(cache=True, inline="always")
def _tt_probe(tables, line, d):
    """Look node ``d`` up: (answered, the stored value if answered, the stored move or -1).

    Answered: an entry searched deep enough whose bound settles the node's window (never the root).
    """
    i = unsigned_index(d)
    entry = _tt_entry(tables.tt, line.key[i])
    if entry["key"] != line.key[i] or entry["flag"] == 0:
        return False, 0.0, -1
    tt_move = np.int64(entry["move"])
    if d > 0 and entry["depth"] >= line.depth[i]:
        value = entry["value"]
        flag = entry["flag"]
        if (flag == FLAG_EXACT or (flag == FLAG_LOWER and value >= line.beta[i])
                or (flag == FLAG_UPPER and value <= line.alpha[i])):
            tables.stats[S_TT_HITS] += 1
            return True, value, tt_move
    return False, 0.0, tt_move


@njit(cache=True, inline="always")
def _sort_moves(line, tables, buffers, d, tt_move):
    """Node ``d``'s legal moves (``buffers.mask``) into ``line.moves[d]``: the TT move first, then
    by priority (history; at the root, ``root_priority``), highest first, by insertion sort.

    The mask is read eight entries a word (``buffers.mask_words``), lowest legal entry first:
    the same order as a scan of the entries, at a few instructions a legal move rather than
    an action."""
    i = unsigned_index(d)
    mask, priority, moves = buffers.mask, buffers.priority, line.moves[i]
    num_actions = mask.shape[0]
    n = 0
    if tt_move >= 0 and tt_move < num_actions and mask[tt_move] != 0:
        moves[0] = tt_move
        n = 1
    first_sorted = n
    for w in range(buffers.mask_words.shape[0]):
        entries = buffers.mask_words[w]  # one byte an entry, 0 or 1: the entry's lowest bit
        while entries != 0:
            low = entries & (~entries + np.uint64(1))
            entries ^= low
            a = w * 8 + (bit_count(low - np.uint64(1)) >> 3)
            if a == tt_move:
                continue
            key = tables.root_priority[a] if d == 0 else np.float64(tables.history[a])
            j = n
            while j > first_sorted and priority[j - 1] < key:
                moves[j] = moves[j - 1]
                priority[j] = priority[j - 1]
                j -= 1
            moves[j] = a
            priority[j] = key
            n += 1
    line.num_moves[i] = n
    line.next_move[i] = 0
    line.best_value[i] = NEG_INF
    line.best_move[i] = moves[0]
    line.alpha_at_entry[i] = line.alpha[i]


@njit(cache=True, inline="always")
def _open_child(line, d, same_player):
    """Set up ply ``d + 1``'s window and depth for a search of node ``d``'s current move."""
    i = unsigned_index(d)
    c = unsigned_index(d + 1)
    line.same_player[i] = same_player
    if same_player:
        line.alpha[c] = line.alpha[i]
        line.beta[c] = line.beta[i]
    else:
        line.alpha[c] = -line.beta[i]
        line.beta[c] = -line.alpha[i]
    line.depth[c] = line.depth[i] - 1


@njit(cache=True, inline="always")
def _close_node(line, tt, d):
    """Every move of node ``d`` searched: store its value (exact, or an upper bound) and return it."""
    i = unsigned_index(d)
    flag = FLAG_UPPER if line.best_value[i] <= line.alpha_at_entry[i] else FLAG_EXACT
    _tt_store(tt, line.key[i], line.best_value[i], line.depth[i], line.best_move[i], flag)
    return line.best_value[i]


@njit(cache=True, inline="always")
def _take_child_value(line, tables, d, value):
    """Node ``d``'s current move is worth ``value`` (mover's view): (cut off, node's value if so).

    A cut-off (alpha >= beta) credits the move in the history and stores a lower bound.
    """
    i = unsigned_index(d)
    move = line.moves[i, unsigned_index(line.next_move[i])]
    if value > line.best_value[i]:
        line.best_value[i] = value
        line.best_move[i] = move
    if value > line.alpha[i]:
        line.alpha[i] = value
    if line.alpha[i] < line.beta[i]:
        return False, 0.0
    tables.history[unsigned_index(move)] += line.depth[i] * line.depth[i]
    _tt_store(tables.tt, line.key[i], line.best_value[i], line.depth[i], line.best_move[i], FLAG_LOWER)
    return True, line.best_value[i]


# What the loop does next (see _build_negamax).
ENTER_NODE = 0
NEXT_MOVE = 1
RETURN_VALUE = 2


# The kernel's functions are closure variables, so numba's cache=True cannot keep this loop;
# core.compiled.cached_njit caches it on disk per kernel and heuristic (a new process loads it).
@functools.cache
def _build_negamax(kernel, heuristic, search_hooks, width, learned, key_obs):
    """The search loop for one kernel and leaf evaluation, with both compiled into it.

    ``learned``: whether the loop can value leaves by a learned evaluation
    (``SearchSettings.use_eval``). Without, the network's passes and the game's move features
    are not compiled in at all: they cost more to compile than the rest of the loop, and
    plain alpha-beta never runs them. A loop built without them must be given
    ``use_eval=False``. Likewise ``key_obs``: whether nodes can be keyed by the observations
    (``key_mode=KEY_OBS``, two ``observe`` calls compiled in); without, only by the state.

    Built like ``mancala_envs.agents.mcts``'s loop (see ``mancala_envs.core.inline``): the kernel's
    functions and the heuristic are closure variables, so numba inlines them, and the
    arrays they are given are ``unowned`` views of arrays the caller allocates. The phases
    are ``inline="always"`` too: one compiled loop, as if written in one piece.

    The loop walks the tree without recursion: ``line`` holds one row per ply, ``d`` is
    the current ply, and ``phase`` says whether node ``d`` is being entered, is to search
    its next move, or has a value to return to its parent.
    """
    k = inline_kernel(kernel)
    params_of = params_reader(None, width)  # the params vector's entries in registers (or the array: width None)
    legal_mask, apply, current_player, scores = k.legal_mask, k.apply, k.current_player, k.scores
    returns, plies = k.returns, k.plies
    observe = kernel.observe  # called, not inlined: only a network or the observation key reads it (4 sites)
    # Game.search_hooks: the copy inlined (one site, on every node: a call would cost alpha-beta speed),
    # the key as search_hook says (a game's own key is called: long code, compiled once)
    copy_position, position_key = inlined(search_hooks[0]), search_hook(search_hooks[1])
    heuristic = inlined(heuristic)
    load_features = features_loader(kernel)  # only this kernel's game's move features (its registered set)

    @njit(inline="always")
    def identify(line, buffers, params, key_mode, d):
        """Node ``d``'s player to move and hash key into ``line``."""
        i = unsigned_index(d)
        position = line.states[i]
        player = current_player(position, params)
        line.player[i] = player
        if key_mode == KEY_OBS:
            line.key[i] = observations_key(position, params, buffers, player)
        else:
            line.key[i] = position_key(position, params)  # hash_state(position), from the words in use

    @njit(inline="always")
    def observations_key(position, params, buffers, player):
        """The key of a position from both players' observations (``key_mode=KEY_OBS``)."""
        observe(position, params, 0, buffers.obs0)
        observe(position, params, 1, buffers.obs1)
        return hash_observations(buffers.obs0, buffers.obs1, player)

    if not key_obs:
        @njit(inline="always")
        def observations_key(position, params, buffers, player):  # noqa: F811
            """In a loop built without ``key_obs``: never called (``key_mode`` is KEY_STATE)."""
            return np.uint64(0)

    @njit(inline="always")
    def probe(line, tables, buffers, params, settings, d):
        """Enter node ``d``: (answered by the TT, its value if so, the TT move or -1)."""
        identify(line, buffers, params, settings.key_mode, d)
        return _tt_probe(tables, line, d)

    @njit(inline="always")
    def no_learned_value(leaf, params, me, leaf_player, settings, buffers):
        """In a loop built without ``learned``: never called (``use_eval`` is False)."""
        return 0.0

    @njit(inline="always")
    def learned_value(leaf, params, me, leaf_player, settings, buffers):
        """The learned evaluation of a leaf for ``me`` (with its score blend), clipped to [-1, 1]."""
        net = buffers.evaluation
        observe(leaf, params, leaf_player, net.obs)
        load_features(net, leaf, params)  # move features, from the leaf's state (none: nothing done)
        own = 0.0
        if net.score_scale <= 0.0:
            pass  # no blend: the network alone
        elif settings.use_heuristic:  # the blend's own evaluation: plain alpha-beta's leaf value
            own = heuristic(leaf, params, leaf_player)
        else:
            scores(leaf, params, buffers.scores)
            own = buffers.scores[leaf_player] - buffers.scores[1 - leaf_player]
        value = blended_value(net, net.obs, own)
        return value if leaf_player == me else -value

    if not learned:
        learned_value = no_learned_value  # noqa: F811 (the one compiled in)

    @njit(inline="always")
    def leaf_value(leaf, params, me, leaf_player, plies_left, settings, buffers):
        """A leaf's value for ``me``: the learned evaluation, the heuristic, or the score
        difference (plus ``WIN_BONUS * result`` at the end of the game; with a learned
        evaluation a draw is worth 0, its scale)."""
        if leaf_player >= 0 and settings.use_eval:
            return learned_value(leaf, params, me, leaf_player, settings, buffers)
        if leaf_player >= 0 and settings.use_heuristic and plies_left <= 1:
            return heuristic(leaf, params, me)
        scores(leaf, params, buffers.scores)
        value = buffers.scores[me] - buffers.scores[1 - me]
        if leaf_player < 0:
            returns(leaf, params, buffers.returns)
            if settings.use_eval and buffers.returns[me] == 0.0:
                return 0.0
            value += WIN_BONUS * buffers.returns[me]
        return value

    @njit(inline="always")
    def play_next_move(line, stats, buffers, params, settings, d):
        """Play node ``d``'s current move into ply ``d + 1``: (True, 0) to search the child
        there, or (False, its value) where it is a leaf (end, depth, stack or ply cap)."""
        i = unsigned_index(d)
        child = line.states[unsigned_index(d + 1)]
        copy_position(child, line.states[i], params)  # every row holds a position or zeros
        apply(child, params, line.moves[i, unsigned_index(line.next_move[i])])
        me = line.player[i]
        child_player = current_player(child, params)
        plies_left = line.depth[i]
        if (child_player < 0 or plies_left <= 1 or d + 1 >= settings.max_stack
                or plies(child, params) >= settings.max_plies):
            stats[S_NODES] += 1
            if child_player >= 0 and plies_left > 1:
                stats[S_CAP_HITS] += 1
            return False, leaf_value(child, params, me, child_player, plies_left, settings, buffers)
        _open_child(line, d, child_player == me)
        return True, 0.0

    @cached_njit(what="the alpha-beta search" + (" with a learned evaluation" if learned else ""))
    def negamax(params_owned, root, settings, tables_owned, line_owned, buffers_owned):
        """Search ``root`` (its player to move >= 0): (value, mover's view; best move), or (0, -1) out of time."""
        # views without reference counts: the caller's arrays outlive this call
        params = params_of(params_owned)
        tables = unowned(tables_owned)
        line = unowned(line_owned)
        buffers = unowned(buffers_owned)
        stats = tables.stats
        copy_into(line.states[0], root)
        line.alpha[0] = settings.alpha
        line.beta[0] = settings.beta
        line.depth[0] = settings.depth
        d = 0
        phase = ENTER_NODE
        value = 0.0  # RETURN_VALUE: node d's value; else the value of node d's current move
        while True:
            if phase == ENTER_NODE:
                stats[S_NODES] += 1
                if past_deadline(settings.deadline, stats[S_NODES], 1024):
                    stats[S_ABORTED] = 1
                    return 0.0, -1
                answered, value, tt_move = probe(line, tables, buffers, params, settings, d)
                if answered:
                    phase = RETURN_VALUE
                    continue
                legal_mask(line.states[unsigned_index(d)], params, buffers.mask)
                _sort_moves(line, tables, buffers, d, tt_move)
                phase = NEXT_MOVE
            if phase == NEXT_MOVE:
                if line.next_move[unsigned_index(d)] >= line.num_moves[unsigned_index(d)]:
                    value = _close_node(line, tables.tt, d)
                    phase = RETURN_VALUE
                    continue
                descend, value = play_next_move(line, stats, buffers, params, settings, d)
                if descend:
                    d += 1
                    phase = ENTER_NODE
                    continue
            if phase == RETURN_VALUE:
                if d == 0:
                    return value, line.best_move[0]
                d -= 1
                value = value if line.same_player[unsigned_index(d)] else -value
            cut_off, node_value = _take_child_value(line, tables, d, value)
            if cut_off:
                value = node_value
                phase = RETURN_VALUE
                continue
            line.next_move[unsigned_index(d)] += 1
            phase = NEXT_MOVE

    return negamax


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


def _negamax_for(game: Game, max_stack: int, evaluation: EvalNet | None = None, key: str = "state"):
    """The compiled negamax of ``game`` (see ``_build_negamax``) with the scratch arrays of
    one search, allocated once for all its calls (every call writes what it reads)."""
    heuristic = game.search_heuristic
    params = np.ascontiguousarray(game.params, dtype=np.int64)
    loop = _build_negamax(game.kernel, heuristic if heuristic is not None else _no_heuristic, game.search_hooks,
                          game.search_params_width(), evaluation is not None, key == "obs")
    line = SearchLine.allocate(max_stack, game.num_actions, game.state_size)
    buffers = SearchBuffers.allocate(game, evaluation)

    def negamax(root: np.ndarray, settings: SearchSettings, tables: SearchTables) -> tuple[float, int]:
        """(value, mover's view; best move) of ``root``, or (0, -1) if out of time."""
        return loop(params, root, settings, tables, line, buffers)

    return negamax


def _settings(game: Game, depth: int, key: str, max_stack: int, use_eval: bool = False) -> SearchSettings:
    """The settings of a search of ``game`` with a full window and no deadline."""
    return SearchSettings(depth=int(depth), alpha=NEG_INF, beta=-NEG_INF, key_mode=KEY_MODES[key],
                          max_plies=game.ply_cap, max_stack=int(max_stack), deadline=0.0,
                          use_heuristic=game.search_heuristic is not None, use_eval=bool(use_eval))


def _eval_net(evaluation: LearnedEval | EvalNet | None, game: Game) -> EvalNet | None:
    """The packed network of ``evaluation`` (None: none), checked against ``game``."""
    if isinstance(evaluation, LearnedEval):
        evaluation.check_game(game)
        return evaluation.net(policy=False)  # alpha-beta never runs the policy head
    return evaluation


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
    evaluation: LearnedEval | EvalNet | None = None,
) -> SearchStats:
    """Iterative-deepening alpha-beta from ``state`` to ``depth`` plies and/or for ``time_limit`` s.

    Returns the value (mover's view, agent evaluation) and the best move of the deepest
    completed iteration. ``evaluation`` (a ``learned_eval.LearnedEval`` of this game, or
    its packed ``EvalNet``) values the leaves instead of the score difference: values are
    then on its scale, [-1, 1], and a won or lost end of the game is ``+-WIN_BONUS`` plus
    the margin.
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
    net = _eval_net(evaluation, game)
    settings = _settings(game, 1, key, min(max_depth, MAX_STACK) + 1, use_eval=net is not None)
    tables = SearchTables(tt.entries, history, root_priority, stats)
    negamax = _negamax_for(game, settings.max_stack, net, key)
    for d in range(1, max_depth + 1):
        stats[:] = 0
        v, a = negamax(root, settings._replace(depth=d, deadline=deadline if d > 1 else 0.0), tables)
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
                 tt_bits: int = 18, key: str = "state", eval: str | LearnedEval | None = None):
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
        self.evaluation = load_evaluation(eval) if isinstance(eval, (str, Path)) else eval
        self._net: EvalNet | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.tt.clear()
        self.history = None

    def warmup(self, game: Game) -> None:
        search(game.new_state(0), depth=1, tt=TranspositionTable(4), key=self.key,
               evaluation=self._evaluation_for(game))

    def _evaluation_for(self, game: Game) -> EvalNet | None:
        """The packed evaluation (built once), refused for another game than the file's."""
        if self.evaluation is None:
            return None
        self.evaluation.check_game(game)
        if self._net is None:
            self._net = self.evaluation.net(policy=False)  # alpha-beta never runs the policy head
        return self._net

    def act(self, state: State) -> int:
        _check_state(state, "AlphaBetaAgent.act")
        if self.history is None or self.history.shape[0] != state.game.num_actions:
            self.history = np.zeros(state.game.num_actions, np.int64)
        self.history //= 2  # age the history between moves
        self.last = search(state, self.depth, self.time, tt=self.tt, key=self.key, rng=self.rng,
                           history=self.history, evaluation=self._evaluation_for(state.game))
        return self.last.best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["tt"] = self.tt.bits  # rebuilt empty on unpickling
        data["_net"] = None  # packed again from the evaluation
        return data

    def __setstate__(self, data):
        bits = data.pop("tt")
        self.__dict__.update(data)
        self.tt = TranspositionTable(bits)
