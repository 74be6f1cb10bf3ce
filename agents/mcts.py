"""Monte Carlo tree search (UCT with uniformly random rollouts), compiled by numba.

Like the alpha-beta search (``agents.search``) it only calls the kernel contract, so it
plays every registered id. The tree is a set of preallocated arrays indexed by node (the
layout of ``mctx``'s ``Tree``), one node added per simulation; the root is node 0.

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
inlined into it and its arrays used without reference counts (``mancala_envs.core.inline``);
the selection step keeps each node's mean return and ``1/sqrt(visits)`` up to date in the
backup, so choosing a child costs a multiply-add. On Kalah(6,4) from the start, 20,000
simulations run at about 500 k simulations/s on one core (``benchmarks/run.py``, figure (i)).

Budgets: ``sims`` simulations, or ``time`` seconds (the clock is read every 64
simulations, the tree is sized by ``max_nodes``), or both (whichever ends first).
"""

from __future__ import annotations

import functools
import time as _time
from dataclasses import dataclass

import numpy as np
from numba import njit

from mancala_envs.core.game import State
from mancala_envs.core.inline import inline_kernel, unowned
from mancala_envs.core.playout import _splitmix64

from .base import Agent
from .search import _now

__all__ = ["MCTSAgent", "MCTSResult", "mcts_search"]

_U32 = np.uint64(32)


@njit(cache=True, inline="always")
def _below(s, count):
    """(new generator state, an integer uniform in [0, count))."""
    s, bits = _splitmix64(s)
    return s, np.int64(((bits >> _U32) * np.uint64(count)) >> _U32)


@functools.cache
def _build_mcts(kernel):
    """The search loop for one kernel, with the kernel's functions compiled into it.

    The kernel's functions are closure variables (``core.inline.inline_kernel``), not
    arguments, so numba inlines them; every array is used through an ``unowned`` view, so
    the inlined bodies count no references. Together: about 25% less time per rollout ply
    than calling the functions (see ``mancala_envs.core.inline``). Not ``cache=True``: a
    closure is compiled once per kernel and process (the builder is memoised).
    """
    k = inline_kernel(kernel)
    legal_mask, apply, current_player = k.legal_mask, k.apply, k.current_player
    returns, plies, scores = k.returns, k.plies, k.scores

    @njit
    def search_loop(
        decisive_total,  # > 0: a score above half of it decides the game (Game.result_follows_scores)
        params_owned,
        root,
        num_sims,
        deadline,  # perf_counter() time to stop at; <= 0: none
        c,
        max_plies,
        seed,
        # the tree, N = max nodes, A = actions, S = state size
        node_states_owned,  # int32[N, S]   position of each node
        node_player_owned,  # int32[N]      player to move there, -1 at the end of the game
        node_visits_owned,  # int32[N]      simulations through the node
        node_value_owned,  # float64[N]    summed returns of the player who moved into the node
        node_mean_owned,  # float64[N]    node_value / node_visits
        node_explore_owned,  # float64[N]    1 / sqrt(node_visits)
        parents_owned,  # int32[N]      parent node, -1 for the root
        action_from_parent_owned,  # int32[N]   move leading from the parent
        children_index_owned,  # int32[N, A]   child node per move, -1 while unexpanded
        num_unexpanded_owned,  # int32[N]      legal moves still without a child
        legal_owned,  # int8[N, A]    legal moves of the node
        # scratch
        path_owned,  # int64[N]      the nodes of the current simulation, root first
        work_owned,  # int32[S]      the rollout position
        rollout_mask_owned,  # int8[A]
        returns_owned,  # float64[2]
        scores_owned,  # float64[2]
    ):
        # views without reference counts: the caller's arrays outlive this call
        params = unowned(params_owned)
        node_states = unowned(node_states_owned)
        node_player = unowned(node_player_owned)
        node_visits = unowned(node_visits_owned)
        node_value = unowned(node_value_owned)
        node_mean = unowned(node_mean_owned)
        node_explore = unowned(node_explore_owned)
        parents = unowned(parents_owned)
        action_from_parent = unowned(action_from_parent_owned)
        children_index = unowned(children_index_owned)
        num_unexpanded = unowned(num_unexpanded_owned)
        legal = unowned(legal_owned)
        N = node_states.shape[0]
        A = legal.shape[1]
        S = root.shape[0]
        s = np.uint64(seed)
        path = unowned(path_owned)
        work = unowned(work_owned)
        rmask = unowned(rollout_mask_owned)
        ret = unowned(returns_owned)
        sbuf = unowned(scores_owned)

        for i in range(S):
            node_states[0, i] = root[i]
        node_player[0] = current_player(root, params)
        node_visits[0] = 0
        node_value[0] = 0.0
        parents[0] = -1
        action_from_parent[0] = -1
        for a in range(A):
            children_index[0, a] = -1
        num_unexpanded[0] = legal_mask(node_states[0], params, legal[0])
        used = 1
        sims = 0
        while sims < num_sims and used < N:
            if deadline > 0.0 and (sims & 63) == 0 and sims > 0:
                if _now() > deadline:
                    break
            # 1. selection
            node = 0
            depth = 0
            path[0] = 0
            while node_player[node] >= 0 and num_unexpanded[node] == 0:
                best = -1
                best_score = -1e300
                # c * sqrt(ln N / n) = c * sqrt(ln N) * (1 / sqrt(n)): the child's factor is
                # kept up to date by the backup, so the loop over children has no division
                c_sqrt_log_n = c * np.sqrt(np.log(node_visits[node] + 1.0))
                for a in range(A):
                    ch = children_index[node, a]
                    if ch >= 0:
                        score = node_mean[ch] + c_sqrt_log_n * node_explore[ch]
                        if score > best_score:
                            best_score = score
                            best = ch
                node = best
                depth += 1
                path[depth] = node
            # 2. expansion
            if node_player[node] >= 0 and plies(node_states[node], params) < max_plies:
                s, k = _below(s, num_unexpanded[node])
                pick = -1
                seen = 0
                for a in range(A):
                    if legal[node, a] != 0 and children_index[node, a] < 0:
                        if seen == k:
                            pick = a
                            break
                        seen += 1
                new = used
                used += 1
                for i in range(S):
                    node_states[new, i] = node_states[node, i]
                apply(node_states[new], params, pick)
                node_player[new] = current_player(node_states[new], params)
                node_visits[new] = 0
                node_value[new] = 0.0
                parents[new] = node
                action_from_parent[new] = pick
                for a in range(A):
                    children_index[new, a] = -1
                if node_player[new] >= 0:
                    num_unexpanded[new] = legal_mask(node_states[new], params, legal[new])
                else:
                    num_unexpanded[new] = 0
                    for a in range(A):
                        legal[new, a] = 0
                children_index[node, pick] = new
                num_unexpanded[node] -= 1
                node = new
                depth += 1
                path[depth] = node
            # 3. rollout
            for i in range(S):
                work[i] = node_states[node, i]
            truncated = False
            decided = False
            while current_player(work, params) >= 0:
                if plies(work, params) >= max_plies:
                    truncated = True
                    break
                if decisive_total > 0:
                    scores(work, params, sbuf)
                    if 2.0 * sbuf[0] > decisive_total or 2.0 * sbuf[1] > decisive_total:
                        decided = True
                        break
                count = legal_mask(work, params, rmask)
                s, k = _below(s, count)
                seen = 0
                for a in range(A):
                    if rmask[a] != 0:
                        if seen == k:
                            apply(work, params, a)
                            break
                        seen += 1
            if truncated:
                ret[0] = 0.0
                ret[1] = 0.0
            elif decided:
                ret[0] = 1.0 if sbuf[0] > sbuf[1] else -1.0
                ret[1] = -ret[0]
            else:
                returns(work, params, ret)
            # 4. backup
            for k in range(depth, -1, -1):
                nd = path[k]
                visits = node_visits[nd] + 1
                node_visits[nd] = visits
                if k > 0:
                    node_value[nd] += ret[node_player[path[k - 1]]]
                    node_mean[nd] = node_value[nd] / visits
                    node_explore[nd] = 1.0 / np.sqrt(visits)
            sims += 1
        # the most visited root move
        best_a = -1
        best_n = -1
        for a in range(A):
            ch = children_index[0, a]
            if ch >= 0 and node_visits[ch] > best_n:
                best_n = node_visits[ch]
                best_a = a
        if best_a < 0:  # not even one simulation: any legal move
            for a in range(A):
                if legal[0, a] != 0:
                    best_a = a
                    break
        return best_a, sims, used

    return search_loop




@dataclass
class MCTSResult:
    best_action: int
    simulations: int
    nodes: int
    seconds: float
    visits: dict[int, int]  # root move -> visits
    values: dict[int, float]  # root move -> mean return for the mover


class _Tree:
    """The preallocated tree arrays (see ``_build_mcts`` for the shapes)."""

    def __init__(self, nodes: int, num_actions: int, state_size: int):
        self.node_states = np.zeros((nodes, state_size), np.int32)
        self.node_player = np.zeros(nodes, np.int32)
        self.node_visits = np.zeros(nodes, np.int32)
        self.node_value = np.zeros(nodes, np.float64)
        self.node_mean = np.zeros(nodes, np.float64)
        self.node_explore = np.zeros(nodes, np.float64)
        self.parents = np.zeros(nodes, np.int32)
        self.action_from_parent = np.zeros(nodes, np.int32)
        self.children_index = np.zeros((nodes, num_actions), np.int32)
        self.num_unexpanded = np.zeros(nodes, np.int32)
        self.legal = np.zeros((nodes, num_actions), np.int8)
        self.path = np.zeros(nodes, np.int64)
        self.work = np.zeros(state_size, np.int32)
        self.rollout_mask = np.zeros(num_actions, np.int8)
        self.returns = np.zeros(2, np.float64)
        self.scores = np.zeros(2, np.float64)

    @property
    def size(self) -> tuple[int, int, int]:
        return (self.node_states.shape[0], self.legal.shape[1], self.node_states.shape[1])


def mcts_search(state: State, sims: int | None = 1000, time_limit: float | None = None, c: float = 1.4,
                seed: int = 0, max_nodes: int | None = None, _tree: _Tree | None = None) -> MCTSResult:
    """Run UCT from ``state``; see the module docstring."""
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
    tree = _tree
    if tree is None or tree.size != (nodes, game.num_actions, game.state_size):
        tree = _Tree(nodes, game.num_actions, game.state_size)
    k = game.kernel
    start = _time.perf_counter()
    deadline = start + time_limit if time_limit is not None else 0.0
    total = game.search_score_total(state) if game.result_follows_scores else None
    best, done, used = _build_mcts(k)(
        -1.0 if total is None else float(total),
        game.params, state.array.copy(),
        2**62 if sims is None else int(sims), float(deadline), float(c), game.ply_cap, np.uint64(seed),
        tree.node_states, tree.node_player, tree.node_visits, tree.node_value,
        tree.node_mean, tree.node_explore, tree.parents,
        tree.action_from_parent, tree.children_index, tree.num_unexpanded, tree.legal,
        tree.path, tree.work, tree.rollout_mask, tree.returns, tree.scores,
    )
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
    return result


class MCTSAgent(Agent):
    """UCT with random rollouts: ``sims`` simulations and/or ``time`` seconds per move."""

    name = "mcts"

    def __init__(self, seed: int | None = None, sims: int | None = None, c: float = 1.4,
                 time: float | None = None, max_nodes: int = 200_000):
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
        self.last: MCTSResult | None = None

    def warmup(self, game) -> None:
        mcts_search(game.new_state(0), sims=2)

    def act(self, state: State) -> int:
        seed = int(self.rng.integers(0, 2**63 - 1))
        self.last = mcts_search(state, self.sims, self.time, self.c, seed, self.max_nodes, self._tree)
        self._tree = self.last._tree  # type: ignore[attr-defined]
        return self.last.best_action

    def __getstate__(self):
        data = dict(self.__dict__)
        data["_tree"] = None
        data["last"] = None
        return data
