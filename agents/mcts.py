"""Monte Carlo tree search (UCT with uniformly random rollouts), compiled by numba.

Like the alpha-beta search (``mancala_envs.agents.search``) it only calls the kernel contract, so it
plays every registered id. The tree is a set of preallocated arrays indexed by node (the
layout of ``mctx``'s ``Tree``: ``SearchTree``), one node added per simulation; the root is
node 0.

One simulation:

1. *Selection*: from the root, while the node is not terminal and all its legal moves have
   children, step to the child maximising ``Q + c * sqrt(ln N(node) / N(child))``. ``Q`` is
   the mean return of the child for the player to move at the node: each node keeps the
   returns of the player who chose the move leading to it, so extra turns and bonus moves
   (the same player moving again) need no special case.
2. *Expansion*: a legal move of the node without a child, drawn uniformly, gets a new node
   (its position is stored in ``node_states``).
3. *Rollout*: uniformly random moves from the new node to the end of the game (or the
   game's ply cap, which scores 0 for both: a truncation is neither win nor loss); the
   result is the kernel's ``returns`` (+1/-1/0). In a game whose result is the sign of the
   score difference and whose scores only grow (``Game.result_follows_scores``: Kalah,
   Progressive Mancala), the rollout stops as soon as one score passes half of all the
   stones: the winner is then known, and the rest of the game cannot change it. (Only a
   ply cap reached later, which would have scored the game 0, is not played out; the
   default cap of 1000 plies lies far beyond the longest games of the soak runs, 155 plies
   in Kalah and 493 in Progressive Mancala.)
4. *Backup*: every node on the path adds the return of the player who moved into it.

The move played is the root child with the most visits. Randomness (expansion order and
rollouts) comes from a splitmix64 generator seeded from the agent's ``numpy`` Generator, so
a seeded agent is repeatable (for a simulation budget; a time budget depends on speed).
Speed: the loop is compiled once per kernel and process with the kernel's functions
inlined into it, its arrays used without reference counts and the params vector read into
registers once per search (``mancala_envs.core.inline``, as ``core.playout`` does); the
selection step keeps each node's mean return and ``1/sqrt(visits)`` up to date in the
backup, so choosing a child costs a multiply-add, and ``sqrt(ln N)`` and ``1/sqrt(n)`` come
from tables filled as the root's visits grow (the same values as computed each time).
Its speed against OpenSpiel's C++ ``MCTSBot`` is ``benchmarks/search.py``'s figure, shown on
the docs' performance page.

Learned evaluation (``mcts_search(..., evaluation=...)``, ``mcts:sims=800,eval=RUN_DIR``):
step 3 values the new node by the evaluation's value head (``mancala_envs.agents.learned.learned_eval``,
the node's mover's observation, plus the score blend where the file has one, clipped to
[-1, 1]) instead of a rollout. If the file also has a policy head, selection is PUCT: every
node keeps the softmax of the policy's logits over its legal moves (``SearchTree.prior``),
and the descent takes the move maximising ``Q + c * P * sqrt(N) / (1 + n)`` (an unexpanded
move counts ``Q = 0``), expanding it when it has no child yet. The weights are arrays in
``SimulationScratch``: no recompilation per weight set, no Python call per node.

Budgets: ``sims`` simulations, or ``time`` seconds (the clock is read every 64
simulations, the tree is sized by ``max_nodes``), or both (whichever ends first).
"""

from __future__ import annotations

import functools
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from mancala_envs.core.game import State
from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.inline import borrowed_bundle, inline_kernel, inlined, params_reader, search_hook, unowned
from mancala_envs.core.jit_helpers import copy_into, mask_with_words, past_deadline, random_below
from mancala_envs.core.playout import random_move_drawer

from .base import Agent
from .learned.learned_eval import EvalNet, LearnedEval, blended_value, features_loader, load_evaluation, net_policy
from .search import _no_heuristic

__all__ = ["MCTSAgent", "MCTSResult", "mcts_search"]


@borrowed_bundle  # never built by compiled code (core.inline)
class SearchTree(NamedTuple):
    """The preallocated tree, one row per node; node 0 is the root (N nodes, A actions, S state size)."""

    node_states: np.ndarray  # int32[N, S]    position of each node
    node_player: np.ndarray  # int32[N]       player to move there, -1 at the end of the game
    node_visits: np.ndarray  # int32[N]       simulations through the node
    node_value: np.ndarray  # float64[N]     summed returns of the player who moved into the node
    node_mean: np.ndarray  # float64[N]     node_value / node_visits
    node_explore: np.ndarray  # float64[N]     1 / sqrt(node_visits)
    parents: np.ndarray  # int32[N]       parent node, -1 for the root
    action_from_parent: np.ndarray  # int32[N]       move leading from the parent
    children_index: np.ndarray  # int32[N, A]    child node per move, -1 while unexpanded
    children: np.ndarray  # int32[N, A]    the node's children in the order of their moves (first num_children)
    num_children: np.ndarray  # int32[N]       how many
    num_unexpanded: np.ndarray  # int32[N]       legal moves still without a child
    legal: np.ndarray  # int8[N, A]     legal moves of the node
    prior: np.ndarray  # float32[N, A]  policy prior of each move (PUCT; only with a learned policy)

    @classmethod
    def allocate(cls, nodes: int, num_actions: int, state_size: int) -> "SearchTree":
        return cls(
            np.zeros((nodes, state_size), np.int32), np.zeros(nodes, np.int32), np.zeros(nodes, np.int32),
            np.zeros(nodes, np.float64), np.zeros(nodes, np.float64), np.zeros(nodes, np.float64),
            np.zeros(nodes, np.int32), np.zeros(nodes, np.int32), np.zeros((nodes, num_actions), np.int32),
            np.zeros((nodes, num_actions), np.int32), np.zeros(nodes, np.int32),
            np.zeros(nodes, np.int32), np.zeros((nodes, num_actions), np.int8),
            np.zeros((nodes, num_actions), np.float32),
        )

    @property
    def size(self) -> tuple[int, int, int]:
        """(nodes, actions, state size)."""
        return (self.node_states.shape[0], self.legal.shape[1], self.node_states.shape[1])


@borrowed_bundle  # never built by compiled code (core.inline)
class SimulationScratch(NamedTuple):
    """What one simulation works in (N nodes, A actions, S state size)."""

    path: np.ndarray  # int64[N]       the nodes of the current simulation, root first
    sqrt_log: np.ndarray  # float64[N+1]   sqrt(ln(n + 1)) for n visits (filled as the root's visits grow)
    inv_sqrt: np.ndarray  # float64[N+1]   1 / sqrt(n) for n visits (likewise)
    work: np.ndarray  # int32[S]       the rollout position
    mask: np.ndarray  # int8[A]        legal moves of the rollout position (the first bytes of mask_words)
    mask_words: np.ndarray  # uint64[ceil(A/8)] the mask's memory eight entries a word (zero padded)
    returns: np.ndarray  # float64[2]     the rollout's result per player
    scores: np.ndarray  # float64[2]     the rollout position's scores
    logits: np.ndarray  # float64[A]     the policy head's logits (PUCT)
    evaluation: EvalNet  # the learned evaluation (EvalNet.empty when none)

    @classmethod
    def allocate(cls, nodes: int, num_actions: int, state_size: int,
                 evaluation: EvalNet | None = None, observation_size: int = 1) -> "SimulationScratch":
        net = evaluation if evaluation is not None else EvalNet.empty(observation_size)
        mask, words = mask_with_words(num_actions)
        return cls(np.zeros(nodes, np.int64), np.zeros(nodes + 1, np.float64), np.zeros(nodes + 1, np.float64),
                   np.zeros(state_size, np.int32), mask, words,
                   np.zeros(2, np.float64), np.zeros(2, np.float64), np.zeros(num_actions, np.float64), net)


class MCTSSettings(NamedTuple):
    """One search's budget and constants."""

    num_sims: int  # simulations to run at most
    deadline: float  # perf_counter() time to stop at; <= 0: none
    c: float  # exploration constant of the UCT formula
    max_plies: int  # the game's ply_cap (NO_PLY_CAP for none): no node expanded, no rollout played past it
    decisive_total: float  # > 0: a score above half of it decides the game (Game.result_follows_scores)
    seed: np.uint64  # splitmix64 seed of the expansion order and the rollouts
    use_eval: bool  # value new nodes by the learned evaluation instead of a rollout
    use_heuristic: bool  # the score blend reads Game.search_heuristic (else the score difference)
    use_priors: bool  # PUCT selection with the learned policy's priors


@njit(cache=True, inline="always")
def _fill_visit_tables(scratch, visits):
    """Make ``scratch.sqrt_log`` and ``scratch.inv_sqrt`` valid up to ``visits`` (the root's
    visits after this simulation: no node has more), as far as they reach."""
    if visits < scratch.sqrt_log.shape[0]:
        scratch.sqrt_log[visits] = np.sqrt(np.log(visits + 1.0))
        scratch.inv_sqrt[visits] = 1.0 / np.sqrt(visits)


@njit(cache=True, inline="always")
def _sqrt_log(scratch, visits):
    """``sqrt(ln(visits + 1))``, from the table while it reaches (the same value either way)."""
    if visits < scratch.sqrt_log.shape[0]:
        return scratch.sqrt_log[visits]
    return np.sqrt(np.log(visits + 1.0))


@njit(cache=True, inline="always")
def _inv_sqrt(scratch, visits):
    """``1 / sqrt(visits)``, from the table while it reaches (the same value either way)."""
    if visits < scratch.inv_sqrt.shape[0]:
        return scratch.inv_sqrt[visits]
    return 1.0 / np.sqrt(visits)


@njit(cache=True, inline="always")
def _select(tree, scratch, c):
    """Step from the root to a node to expand (or a terminal one): (that node, its depth).

    The path's nodes go to ``scratch.path``, root first.
    """
    path = scratch.path
    node = 0
    depth = 0
    path[0] = 0
    while tree.node_player[node] >= 0 and tree.num_unexpanded[node] == 0:
        best = -1
        best_score = -1e300
        # c * sqrt(ln N / n) = c * sqrt(ln N) * (1 / sqrt(n)): the child's factor is kept
        # up to date by the backup, so the loop over children has no division; sqrt(ln N)
        # comes from a table (a logarithm and a square root per level cost about as much
        # as the loop over the children)
        c_sqrt_log_n = c * _sqrt_log(scratch, tree.node_visits[node])
        # over the children only (a card game's node has a few of its 26 action slots), in
        # the order of their moves: a tie goes to the lowest move, as over the slots
        for i in range(tree.num_children[node]):
            child = tree.children[node, i]
            score = tree.node_mean[child] + c_sqrt_log_n * tree.node_explore[child]
            if score > best_score:
                best_score = score
                best = child
        node = best
        depth += 1
        path[depth] = node
    return node, depth


@njit(cache=True, inline="always")
def _select_puct(tree, path, c):
    """PUCT descent: from the root, step to the move maximising ``Q + c * P * sqrt(N) / (1 + n)``
    (an unexpanded move has ``Q = 0``) until that move has no child or the node is terminal.

    Returns (node, its depth, the move to expand there or -1); the path goes to ``path``.
    """
    node = 0
    depth = 0
    path[0] = 0
    while tree.node_player[node] >= 0:
        sqrt_n = np.sqrt(tree.node_visits[node] + 1.0)
        best_action = -1
        best_score = -1e300
        for a in range(tree.children_index.shape[1]):
            if tree.legal[node, a] == 0:
                continue
            child = tree.children_index[node, a]
            q, n = 0.0, 0.0
            if child >= 0:
                q, n = tree.node_mean[child], np.float64(tree.node_visits[child])
            score = q + c * tree.prior[node, a] * sqrt_n / (1.0 + n)
            if score > best_score:
                best_score = score
                best_action = a
        child = tree.children_index[node, best_action]
        if child < 0:
            return node, depth, best_action
        node = child
        depth += 1
        path[depth] = node
    return node, depth, -1


@njit(cache=True, inline="always")
def _backup(tree, scratch, depth):
    """Count a visit on every node of the path; each adds the return of the player who moved into it."""
    path, returns = scratch.path, scratch.returns
    for k in range(depth, -1, -1):
        node = path[k]
        visits = tree.node_visits[node] + 1
        tree.node_visits[node] = visits
        if k > 0:
            tree.node_value[node] += returns[tree.node_player[path[k - 1]]]
            tree.node_mean[node] = tree.node_value[node] / visits
            tree.node_explore[node] = _inv_sqrt(scratch, visits)


@njit(cache=True, inline="always")
def _most_visited_root_move(tree):
    """The root move with the most visits (without any simulation: the first legal move)."""
    best_action = -1
    best_visits = -1
    for a in range(tree.children_index.shape[1]):
        child = tree.children_index[0, a]
        if child >= 0 and tree.node_visits[child] > best_visits:
            best_visits = tree.node_visits[child]
            best_action = a
    if best_action < 0:
        for a in range(tree.legal.shape[1]):
            if tree.legal[0, a] != 0:
                return a
    return best_action


@functools.cache
def _build_mcts(kernel, heuristic, width, search_hooks, legal_bits, learned):
    """The search loop for one kernel, with the kernel's functions compiled into it.

    The kernel's functions are closure variables (``core.inline.inline_kernel``), not
    arguments, so numba inlines them; every array is used through an ``unowned`` view, so
    the inlined bodies count no references. Together they save a good part of the time per
    rollout ply against calling the functions (see ``mancala_envs.core.inline``). Cached on disk per kernel
    by ``core.compiled.cached_njit`` (numba's ``cache=True`` cannot keep a closure). The phases
    are ``inline="always"`` too: one compiled loop, as if written in one piece. ``width``:
    the length of the params vector, read into registers (``core.inline.params_reader``), or
    None for the array itself (``Game.search_params_as_array``).
    ``legal_bits``: the game's hook (``Game.legal_bits``) or None; with it the rollouts draw
    their moves from the legal bit set and write no mask (the same moves).
    ``learned``: whether the loop can use a learned evaluation (``MCTSSettings.use_eval``,
    ``use_priors``). Without, the network's passes, the game's move features and the PUCT
    expansion and descent are not compiled in: they cost more to compile than the rest of the
    loop, and plain UCT never runs them. A loop built without them must be given neither setting.
    """
    k = inline_kernel(kernel)
    params_of = params_reader(None, width)  # the params vector's entries in registers (or the array: width None)
    legal_mask, apply, current_player = k.legal_mask, k.apply, k.current_player
    returns, plies, scores = k.returns, k.plies, k.scores
    observe = kernel.observe  # called, not inlined: only a network reads it
    copy_position = search_hook(search_hooks[0])  # Game.search_hooks: every row holds a position of the game, or zeros
    heuristic = inlined(heuristic)
    load_features = features_loader(kernel)  # only this kernel's game's move features (its registered set)
    draw_random_move = random_move_drawer(legal_mask, legal_bits)  # the playouts' draw (core.playout)

    @njit(inline="always")
    def set_priors(tree, params, node, scratch):
        """The policy head's softmax over the node's legal moves into ``tree.prior[node]``."""
        net = scratch.evaluation
        observe(tree.node_states[node], params, tree.node_player[node], net.obs)
        load_features(net, tree.node_states[node], params)  # move features, from the node's state
        net_policy(net, net.obs, scratch.logits)
        top = -1e300
        for a in range(scratch.logits.shape[0]):
            if tree.legal[node, a] != 0 and scratch.logits[a] > top:
                top = scratch.logits[a]
        total = 0.0
        for a in range(scratch.logits.shape[0]):
            p = np.exp(scratch.logits[a] - top) if tree.legal[node, a] != 0 else 0.0
            scratch.logits[a] = p
            total += p
        for a in range(scratch.logits.shape[0]):
            tree.prior[node, a] = scratch.logits[a] / total

    @njit(inline="always")
    def evaluate(params, position, scratch, max_plies, use_heuristic):
        """A new node's value from the learned evaluation into ``scratch.returns`` (the end of
        the game: its result; the ply cap: 0 for both)."""
        result = scratch.returns
        player = current_player(position, params)
        if player < 0:
            returns(position, params, result)
        elif plies(position, params) >= max_plies:
            result[0] = 0.0
            result[1] = 0.0
        else:
            net = scratch.evaluation
            observe(position, params, player, net.obs)
            load_features(net, position, params)  # move features, from the node's state
            own = 0.0
            if net.score_scale <= 0.0:
                pass  # no blend: the network alone
            elif use_heuristic:  # the blend's own evaluation, as alpha-beta's (agents.search)
                own = heuristic(position, params, player)
            else:
                scores(position, params, result)
                own = result[player] - result[1 - player]
            value = blended_value(net, net.obs, own)
            result[player] = value
            result[1 - player] = -value

    # A simulation expands one node: its move and its legal moves are computed by calls to the
    # kernel, not compiled in (the rollouts, a move a ply, keep the inlined copies), with the
    # params array (``params_array``): the signature the env's calls compile.
    expand_move, expand_mask = kernel.apply, kernel.legal_mask

    @njit(inline="always")
    def add_child(tree, params, params_array, node, new, pick):
        """Give move ``pick`` of ``node`` the new node ``new``."""
        copy_position(tree.node_states[new], tree.node_states[node], params)
        expand_move(tree.node_states[new], params_array, pick)
        describe_node(tree, params, params_array, new, node, pick)
        tree.children_index[node, pick] = new
        tree.num_unexpanded[node] -= 1
        i = tree.num_children[node]  # new's place among the children, by move
        while i > 0 and tree.action_from_parent[tree.children[node, i - 1]] > pick:
            tree.children[node, i] = tree.children[node, i - 1]
            i -= 1
        tree.children[node, i] = new
        tree.num_children[node] += 1

    @njit(inline="always")
    def describe_node(tree, params, params_array, node, parent, action):
        """Fill the row of ``node``, whose position is already in ``tree.node_states``."""
        position = tree.node_states[node]
        tree.node_player[node] = current_player(position, params)
        tree.node_visits[node] = 0
        tree.node_value[node] = 0.0
        tree.parents[node] = parent
        tree.action_from_parent[node] = action
        for a in range(tree.children_index.shape[1]):
            tree.children_index[node, a] = -1
        tree.num_children[node] = 0
        if tree.node_player[node] >= 0:
            tree.num_unexpanded[node] = expand_mask(position, params_array, tree.legal[node])
        else:
            tree.num_unexpanded[node] = 0
            for a in range(tree.legal.shape[1]):
                tree.legal[node, a] = 0

    @njit(inline="always")
    def expand(tree, params, params_array, node, new, s):
        """Give a move of ``node`` without a child, drawn uniformly, the new node ``new``."""
        s, k = random_below(s, tree.num_unexpanded[node])
        pick = -1
        seen = 0
        for a in range(tree.legal.shape[1]):
            if tree.legal[node, a] != 0 and tree.children_index[node, a] < 0:
                if seen == k:
                    pick = a
                    break
                seen += 1
        add_child(tree, params, params_array, node, new, pick)
        return s

    @njit(inline="always")
    def rollout(params, start, scratch, max_plies, decisive_total, s):
        """Uniformly random moves from ``start`` to the end; the result goes to ``scratch.returns``.

        A ply cap scores 0 for both; a decided majority (``decisive_total`` > 0) stops early.
        """
        work, result, score = scratch.work, scratch.returns, scratch.scores
        copy_position(work, start, params)
        while current_player(work, params) >= 0:
            if plies(work, params) >= max_plies:
                result[0] = 0.0
                result[1] = 0.0
                return s
            if decisive_total > 0:
                scores(work, params, score)
                if 2.0 * score[0] > decisive_total or 2.0 * score[1] > decisive_total:
                    result[0] = 1.0 if score[0] > score[1] else -1.0
                    result[1] = -result[0]
                    return s
            s, action = draw_random_move(s, work, params, scratch.mask, scratch.mask_words)
            apply(work, params, action)
        returns(work, params, result)
        return s

    @njit(inline="always")
    def add_child_with_priors(tree, params, params_array, node, new, pick, scratch):
        """PUCT's expansion: move ``pick`` of ``node`` gets the node ``new``, with its priors."""
        add_child(tree, params, params_array, node, new, pick)
        if tree.node_player[new] >= 0:
            set_priors(tree, params, new, scratch)

    if not learned:  # stand-ins that are never called (use_priors and use_eval are False)
        @njit(inline="always")
        def set_priors(tree, params, node, scratch):  # noqa: F811
            pass

        @njit(inline="always")
        def add_child_with_priors(tree, params, params_array, node, new, pick, scratch):  # noqa: F811
            pass

        @njit(inline="always")
        def evaluate(params, position, scratch, max_plies, use_heuristic):  # noqa: F811
            pass

        @njit(inline="always")
        def select_puct(tree, path, c):
            return 0, 0, -1
    else:
        select_puct = _select_puct

    @cached_njit(what="the MCTS search" + (" with a learned evaluation" if learned else ""))
    def search_loop(params_owned, root, settings, tree_owned, scratch_owned):
        """Run the simulations; returns (best root move, simulations run, nodes used)."""
        # views without reference counts: the caller's arrays outlive this call
        params = params_of(params_owned)
        tree = unowned(tree_owned)
        scratch = unowned(scratch_owned)
        copy_into(tree.node_states[0], root)
        params_array = unowned(params_owned)
        describe_node(tree, params, params_array, 0, -1, -1)
        if settings.use_priors and tree.node_player[0] >= 0:
            set_priors(tree, params, 0, scratch)
        s = settings.seed
        used = 1
        sims = 0
        while sims < settings.num_sims and used < tree.node_states.shape[0]:
            if sims > 0 and past_deadline(settings.deadline, sims, 64):
                break
            _fill_visit_tables(scratch, tree.node_visits[0] + 1)  # the root's visits after this simulation
            if settings.use_priors:
                node, depth, pick = select_puct(tree, scratch.path, settings.c)
                expandable = pick >= 0 and plies(tree.node_states[node], params) < settings.max_plies
            else:
                node, depth = _select(tree, scratch, settings.c)
                pick = -1
                expandable = tree.node_player[node] >= 0 and plies(tree.node_states[node], params) < settings.max_plies
            if expandable:
                if settings.use_priors:
                    add_child_with_priors(tree, params, params_array, node, used, pick, scratch)
                else:
                    s = expand(tree, params, params_array, node, used, s)
                node = used
                used += 1
                depth += 1
                scratch.path[depth] = node
            if settings.use_eval:
                evaluate(params, tree.node_states[node], scratch, settings.max_plies, settings.use_heuristic)
            else:
                s = rollout(params, tree.node_states[node], scratch, settings.max_plies, settings.decisive_total, s)
            _backup(tree, scratch, depth)
            sims += 1
        return _most_visited_root_move(tree), sims, used

    return search_loop


@dataclass
class MCTSResult:
    best_action: int
    simulations: int
    nodes: int
    seconds: float
    visits: dict[int, int]  # root move -> visits
    values: dict[int, float]  # root move -> mean return for the mover


def mcts_search(state: State, sims: int | None = 1000, time_limit: float | None = None, c: float = 1.4,
                seed: int = 0, max_nodes: int | None = None, _tree: SearchTree | None = None,
                evaluation: LearnedEval | None = None, _net: EvalNet | None = None) -> MCTSResult:
    """Run UCT from ``state``; see the module docstring.

    With ``evaluation`` (a ``learned_eval.LearnedEval`` of this game) new nodes are valued
    by its value head instead of a rollout, and if it has a policy head the descent is
    PUCT with the policy's priors (``_net``: its packed network, to reuse one). ``_tree``: the
    tree of an earlier search of the same game, to reuse (its rows are written by the game's
    copy in ``Game.search_hooks``, which needs them to hold positions of that game, or zeros).
    """
    if state.is_terminal():
        raise ValueError("mcts_search: the game is over; there is no move to search")
    if sims is None and time_limit is None:
        raise ValueError("mcts_search: give sims, time_limit or both")
    if sims is not None and sims < 1:
        raise ValueError(f"mcts_search: sims must be at least 1, got {sims}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"mcts_search: time_limit must be > 0 seconds, got {time_limit}")
    game = state.game
    nodes = max_nodes or ((sims + 1) if sims is not None else 200_000)
    if sims is not None:
        nodes = min(nodes, sims + 1)
    tree = _tree if _tree is not None else _take_spare_tree(game)
    if tree is None or tree.size != (nodes, game.num_actions, game.state_size):
        tree = SearchTree.allocate(nodes, game.num_actions, game.state_size)
    if evaluation is not None:
        evaluation.check_game(game)
        _net = _net if _net is not None else evaluation.net()
    scratch = SimulationScratch.allocate(nodes, game.num_actions, game.state_size, _net, game.observation_size)
    start = _time.perf_counter()
    total = game.search_score_total(state) if game.result_follows_scores else None
    settings = MCTSSettings(
        num_sims=2**62 if sims is None else int(sims),
        deadline=start + time_limit if time_limit is not None else 0.0,
        c=float(c),
        max_plies=game.ply_cap,
        decisive_total=-1.0 if total is None else float(total),
        seed=np.uint64(seed),
        use_eval=evaluation is not None,
        use_heuristic=game.search_heuristic is not None,
        use_priors=evaluation is not None and evaluation.has_policy,
    )
    heuristic = game.search_heuristic if game.search_heuristic is not None else _no_heuristic
    params = np.ascontiguousarray(game.params, dtype=np.int64)
    best, done, used = _build_mcts(game.kernel, heuristic, game.search_params_width(), game.search_hooks, game.legal_bits,
                                  evaluation is not None)(params, state.array.copy(), settings, tree, scratch)
    seconds = _time.perf_counter() - start
    visits, values = {}, {}
    for a in range(game.num_actions):
        ch = tree.children_index[0, a]
        if ch >= 0:
            n = int(tree.node_visits[ch])
            visits[a] = n
            values[a] = float(tree.node_value[ch] / n) if n else 0.0
    result = MCTSResult(int(best), int(done), int(used), seconds, visits, values)
    result._tree = tree  # type: ignore[attr-defined]
    if _tree is None:
        _keep_spare_tree(game, tree)
    return result


# The tree of the last search that was given none, kept for the next search of the same game and
# size (a caller that repeats short searches, such as the benchmarks): a new tree is a fresh
# allocation of N rows of the state, whose pages the search then faults in one by one. Only small
# trees are kept (the memory stays with the process), and only for the same game, whose
# positions the rows hold (``copy_position`` writes the words in use of a row that holds one).
# A search takes the spare tree out while it runs, so two searches never share one; a result's
# ``_tree`` is valid until the next search of the process that was given no tree.
SPARE_TREE_BYTES = 64 * 2**20
_spare_tree: dict = {}


def _take_spare_tree(game) -> SearchTree | None:
    kept = _spare_tree.pop("tree", None)
    return kept[1] if kept is not None and kept[0] == game else None


def _keep_spare_tree(game, tree: SearchTree) -> None:
    if sum(a.nbytes for a in tree if isinstance(a, np.ndarray)) <= SPARE_TREE_BYTES:
        _spare_tree["tree"] = (game, tree)


class MCTSAgent(Agent):
    """UCT with random rollouts: ``sims`` simulations and/or ``time`` seconds per move."""

    name = "mcts"

    def __init__(self, seed: int | None = None, sims: int | None = None, c: float = 1.4,
                 time: float | None = None, max_nodes: int = 200_000, eval: str | LearnedEval | None = None):
        super().__init__(seed)
        if sims is None and time is None:
            sims = 1000
        if sims is not None and sims < 1:
            raise ValueError(f"mcts: sims must be at least 1, got {sims}")
        if time is not None and not time > 0:
            raise ValueError(f"mcts: time must be > 0 seconds, got {time}")
        if not c >= 0:
            raise ValueError(f"mcts: c must be >= 0, got {c}")
        self.sims = sims
        self.c = c
        self.time = time
        self.max_nodes = max_nodes
        self._tree = None
        self._tree_game = None  # the game whose positions self._tree's rows hold
        self.last: MCTSResult | None = None
        self.evaluation = load_evaluation(eval) if isinstance(eval, (str, Path)) else eval
        self._net = self.evaluation.net() if self.evaluation is not None else None

    def warmup(self, game) -> None:
        mcts_search(game.new_state(0), sims=2, evaluation=self.evaluation, _net=self._net)

    def act(self, state: State) -> int:
        seed = int(self.rng.integers(0, 2**63 - 1))
        tree = self._tree if self._tree_game == state.game else None  # rows of another game: not reused
        self.last = mcts_search(state, self.sims, self.time, self.c, seed, self.max_nodes, tree,
                                self.evaluation, self._net)
        self._tree = self.last._tree  # type: ignore[attr-defined]
        self._tree_game = state.game
        return self.last.best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["_tree"] = None
        data["_tree_game"] = None
        data["last"] = None
        return data
