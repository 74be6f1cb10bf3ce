"""Batched engine: B games of one id stepped in one numba-parallel call.

``BatchEnv(env_id, num_envs, seed=None, **options)`` keeps every game as one row of a
``(B, state_size)`` int32 array and calls the same kernel functions as everything else.

=========================  ========================================================================
``reset(seed=None)``        start every game; returns ``obs`` (B, obs) float32, as the player to move
                            sees it, and fills ``masks`` (B, A) int8 and ``players`` (B,)
``step(actions, active)``   play ``actions[i]`` in every game ``i`` where ``active[i]`` (default: all);
                            returns a ``BatchStep`` (see below)
``sample_actions()``        a uniformly random legal action per game (numba, seeded)
``states``, ``masks``,     the live arrays (read them; do not write them)
``players``, ``obs``
``state(i)``                game ``i`` as a ``State`` (a copy)
=========================  ========================================================================

After each step, games that ended (terminated by the rules, or truncated at ``max_plies``)
are reset at once: their row of ``obs``/``masks``/``players`` already belongs to the next
game, and ``BatchStep.final_obs[i, p]`` keeps the last observation of the game that ended,
as player ``p`` saw it. ``BatchStep.rewards[i, p]`` is +1/-1/0 for player ``p`` where the game
ended by the rules, else 0. New games are dealt by one ``Generator`` made from ``seed``, in
slot order after each step (outside the parallel part), so the same seed and the same
actions give the same games, row by row, whatever the number of threads.

An illegal action raises ``IllegalActionError`` naming the game, the action and the legal
ones; no game of the batch is changed by that call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from .core.errors import IllegalActionError, InvalidOptionError
from .core.game import Game, Kernel, State
from .core.jit_helpers import splitmix64
from .registry import game_of

_COMPILED: dict[tuple[Kernel, bool], tuple] = {}

# Below this many games a step runs on one thread: the cost of waking the worker threads
# (large on a busy machine) exceeds the work of a small batch.
PARALLEL_MIN_GAMES = 256


def _compile(kernel: Kernel, parallel: bool) -> tuple:
    """The batch functions of one kernel, compiled once per process (and per threading mode).

    They close over the kernel's functions, so numba cannot cache them on disk; compiling
    them costs a few seconds the first time a BatchEnv of that family is built.
    """
    if (kernel, parallel) in _COMPILED:
        return _COMPILED[(kernel, parallel)]
    init = kernel.init
    legal_mask = kernel.legal_mask
    apply = kernel.apply
    scores = kernel.scores
    current_player = kernel.current_player
    returns = kernel.returns
    observe = kernel.observe
    plies = kernel.plies

    def step(states, params, actions, active, max_plies, rng, masks, obs, players, rewards, terminated,
             truncated, final_obs, final_scores, episodes, movers):
        """Play the active games; returns -1, or the first game with an illegal action (then nothing moves)."""
        n = states.shape[0]
        num_actions = masks.shape[1]
        for i in range(n):  # checked first, serially: a refused batch must stay unchanged
            if active[i]:
                a = actions[i]
                if a < 0 or a >= num_actions or masks[i, a] == 0:
                    return i
            movers[i] = players[i] if active[i] else -1
        for i in prange(n):
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            terminated[i] = False
            truncated[i] = False
            if not active[i]:
                continue
            row = states[i]
            apply(row, params, actions[i])
            player = current_player(row, params)
            if player < 0:
                terminated[i] = True
                returns(row, params, rewards[i])
            elif plies(row, params) >= max_plies:
                truncated[i] = True
            if terminated[i] or truncated[i]:
                observe(row, params, 0, final_obs[i, 0])
                observe(row, params, 1, final_obs[i, 1])
                scores(row, params, final_scores[i])
            else:
                players[i] = player
                legal_mask(row, params, masks[i])
                observe(row, params, player, obs[i])
        # Serial on purpose: the one Generator deals the new games in slot order, so the
        # same seed gives the same games whatever the thread count.
        for i in range(n):
            if terminated[i] or truncated[i]:
                deal(states, params, rng, masks, obs, players, episodes, i)
        return -1

    @njit
    def deal(states, params, rng, masks, obs, players, episodes, i):
        """A new game in slot ``i``, with its mask, observation and player to move."""
        row = states[i]
        init(row, params, rng)
        episodes[i] += 1
        player = current_player(row, params)
        players[i] = player
        legal_mask(row, params, masks[i])
        observe(row, params, max(player, 0), obs[i])

    @njit
    def reset_all(states, params, rng, masks, obs, players, episodes):
        for i in range(states.shape[0]):
            deal(states, params, rng, masks, obs, players, episodes, i)

    _COMPILED[(kernel, parallel)] = (njit(parallel=parallel)(step), reset_all)
    return _COMPILED[(kernel, parallel)]


@njit
def _sample_actions(masks, rng_state, out):
    """A uniformly random legal action per row (splitmix64 stream in ``rng_state[0]``)."""
    s = rng_state[0]
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        s, z = splitmix64(s)
        target = np.int64((z >> np.uint64(33)) % np.uint64(max(count, 1)))
        out[i] = -1
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if target == 0:
                    out[i] = a
                    break
                target -= 1
    rng_state[0] = s


@dataclass
class BatchStep:
    """What one ``BatchEnv.step`` returns (arrays of length B, views valid until the next step)."""

    obs: np.ndarray  # (B, obs) float32: the next position of every game, as its player to move sees it
    players: np.ndarray  # (B,) int64: the player to move in every game (after auto-reset)
    rewards: np.ndarray  # (B, 2) float64: +1/-1/0 per player where a game ended by the rules
    terminated: np.ndarray  # (B,) bool: the game ended by the rules and was reset
    truncated: np.ndarray  # (B,) bool: the game reached max_plies and was reset
    final_obs: np.ndarray  # (B, 2, obs) float32: last observation per player of games that ended
    final_scores: np.ndarray  # (B, 2) float64: scores of games that ended (by rules or truncation)
    movers: np.ndarray  # (B,) int64: who played in this step (-1 where the game was not active)


class BatchEnv:
    """B games of one registered id stepped together (see the module docstring)."""

    def __init__(
        self, env_id: str | Game, num_envs: int, seed: int | None = None, parallel: bool | None = None, **options: Any
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidOptionError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = game_of(env_id, **options)
        game = self.game
        self.num_envs = int(num_envs)
        self.num_actions = game.num_actions
        self.observation_size = game.observation_size
        self.max_plies = game.ply_cap
        # parallel: None picks by size; a caller making many small partial steps may prefer False
        self.parallel = self.num_envs >= PARALLEL_MIN_GAMES if parallel is None else bool(parallel)
        self._step, self._reset_all = _compile(game.kernel, self.parallel)
        B = self.num_envs
        self.states = np.zeros((B, game.state_size), dtype=np.int32)
        self.masks = np.zeros((B, game.num_actions), dtype=np.int8)
        self.obs = np.zeros((B, game.observation_size), dtype=np.float32)
        self.players = np.zeros(B, dtype=np.int64)
        self._rewards = np.zeros((B, 2), dtype=np.float64)
        self._terminated = np.zeros(B, dtype=np.bool_)
        self._truncated = np.zeros(B, dtype=np.bool_)
        self._final_obs = np.zeros((B, 2, game.observation_size), dtype=np.float32)
        self._final_scores = np.zeros((B, 2), dtype=np.float64)
        self._all = np.ones(B, dtype=np.bool_)
        self._sample_out = np.zeros(B, dtype=np.int64)
        self._movers = np.full(B, -1, dtype=np.int64)
        self.episodes = np.zeros(B, dtype=np.int64)  # games started in each slot since reset
        self._rng: np.random.Generator | None = None  # the batch's generator (deals), set by reset
        self.reset(seed)

    # -- episodes ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new game in every slot. With a seed, the batch's generator starts over."""
        if seed is not None or self._rng is None:
            root = np.random.SeedSequence(seed)
            deal_seq, sample_seq = root.spawn(2)
            self._rng = np.random.default_rng(deal_seq)
            self._sample_state = sample_seq.generate_state(1, dtype=np.uint64)
            self.seed = seed
        self.episodes[:] = 0
        self._reset_all(self.states, self.game.params, self._rng, self.masks, self.obs, self.players, self.episodes)
        return self.obs

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> BatchStep:
        """Play one action in every active game; finished games are reset at once."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise IllegalActionError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        active = self._all if active is None else np.ascontiguousarray(active, dtype=np.bool_)
        if active.shape != (self.num_envs,):
            raise IllegalActionError(f"active must have shape ({self.num_envs},), got {active.shape}")
        bad = self._step(
            self.states, self.game.params, actions, active, self.max_plies, self._rng, self.masks, self.obs,
            self.players, self._rewards, self._terminated, self._truncated, self._final_obs, self._final_scores,
            self.episodes, self._movers,
        )
        if bad >= 0:
            legal = np.flatnonzero(self.masks[bad]).tolist()
            raise IllegalActionError(
                f"{self.game.env_id}: game {bad}: action {int(actions[bad])} is not legal for player "
                f"{int(self.players[bad])}; legal actions are {legal}"
            )
        return BatchStep(
            self.obs, self.players, self._rewards, self._terminated, self._truncated, self._final_obs,
            self._final_scores, self._movers,
        )

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (seeded by ``reset``'s seed)."""
        _sample_actions(self.masks, self._sample_state, self._sample_out)
        return self._sample_out.copy()

    def state(self, i: int) -> State:
        """Game ``i`` as a ``State`` (a copy: changing it does not change the batch)."""
        return State(self.game, self.states[i].copy())
