"""The batched engine as a Gymnasium ``VectorEnv``: N single-agent games, learner against an opponent.

``gymnasium.make_vec("mancala/kalah-v0", num_envs=256, vectorization_mode="vector_entry_point",
opponent=None, learner_seat="alternate", **options)`` builds ``MancalaVectorEnv``: the
single-agent game of ``mancala_envs.gym.MancalaGymEnv``, N at once, on one
``mancala_envs.vector.BatchEnv`` (every game a row of one array, stepped by the numba kernels).
Since the id has a vector entry point, ``gym.make_vec("mancala/kalah-v0", num_envs=N)`` with no
``vectorization_mode`` picks it too; ``vectorization_mode="sync"`` still gives Gymnasium's
``SyncVectorEnv`` of N ``MancalaGymEnv``.

* ``step(actions)`` plays the learner's action in every game, then the opponent's moves (extra
  turns included) until every game waits for the learner again. The default opponent,
  ``None`` or ``"random"``, is a uniformly random legal move drawn for the whole batch inside
  numba (``BatchEnv.sample_actions``), so learner and opponent are both batched. Any other
  opponent (an agent spec string such as ``"greedy"``, or an object with ``act(state)``) is
  asked game by game in Python: correct, but it runs at that agent's speed.
* ``parallel``: step the games on every core numba uses (``BatchEnv``'s threaded step). Off
  by default: one ``step`` makes several engine calls (the learner's move, then the
  opponent's moves, each on the games still waiting), and waking the worker threads for each
  costs more than the work at a few hundred games, far more on a busy machine.
* ``learner_seat``: 0, 1, or ``"alternate"`` (default): game ``k`` of slot ``i`` (counting from
  the last ``reset``) has the learner in seat ``(i + k + 1) % 2``, so every batch holds both seats.
* ``action_masks()``: ``(N, num_actions)`` bool, the learner's legal actions in every game.
  Actions must be legal: an illegal one raises ``IllegalActionError`` naming the game and the
  legal actions, and no game of the batch moves (mask your policy; the single-agent env has
  ``illegal_action="terminate"`` for unmasked algorithms).
* Spaces: ``single_observation_space`` is the game's observation ``Box`` (the learner's view),
  ``single_action_space`` ``Discrete(num_actions)``; ``observation_space`` and ``action_space``
  are their batched versions.
* Rewards +1/-1/0 for the learner when a game ends by the rules, 0 otherwise; reaching
  ``max_plies`` truncates.
* **Auto-reset** follows Gymnasium's ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``):
  a game that ends is replaced in the same ``step``; the returned observation is the next
  game's first, and ``infos["final_obs"]`` (an object array, ``None`` where no game ended)
  with the mask ``infos["_final_obs"]`` holds the last observation of the game that ended.
  ``infos["final_info"]["scores"]`` has its scores (learner first). Every step's
  ``infos["learner_seat"]`` gives the learner's seat in each game.
* ``reset(seed=...)`` takes one integer from 0 to ``2**64 - 1`` (or None) for the whole batch:
  the deals, the seats and the random opponent all follow from it, so the same seed and
  actions give the same games.
* Actions are integers: an array of an integer dtype (or a list of ints); floats (``2.0``
  too), bools, strings and None raise ``IllegalActionError`` with the same words as the
  single-game envs (``BatchEnv.step``, ``core.checks``).
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .core.checks import checked_seed
from .core.errors import InvalidOptionError
from .core.game import Game
from .gym import resolve_opponent
from .vector import BatchEnv

# A game refills its slot at once; no board lets the opponent move this often in a row.
_MAX_OPPONENT_ROUNDS = 10_000


class MancalaVectorEnv(gymnasium.vector.VectorEnv):
    """N single-agent games against an opponent, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str | Game = "kalah-v0",
        num_envs: int = 1,
        opponent: Any = None,
        learner_seat: int | str = "alternate",
        parallel: bool = False,
        **options: Any,
    ):
        if learner_seat not in (0, 1, "alternate"):
            raise InvalidOptionError(f"learner_seat={learner_seat!r} is not allowed; use 0, 1 or 'alternate'")
        self.batch = BatchEnv(game, num_envs, parallel=parallel, **options)
        self.game = self.batch.game
        self.num_envs = self.batch.num_envs
        self.batched_opponent = opponent is None or opponent == "random"
        self.opponent = None if self.batched_opponent else resolve_opponent(opponent)
        self.learner_seat_mode = learner_seat
        self.metadata = copy.deepcopy(self.metadata)  # per instance: wrappers may edit it
        low, high = self.game.observation_bounds()
        self.single_observation_space = spaces.Box(low, high, (self.game.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._slots = np.arange(self.num_envs)
        self.seats = np.zeros(self.num_envs, dtype=np.int64)
        self._play_opponent()

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise InvalidOptionError(
                f"{self.game.env_id}: MancalaVectorEnv.reset takes no options, got {', '.join(map(repr, options))}"
            )
        seed = checked_seed(seed, f"{self.game.env_id}: reset(seed=...) takes one integer seed for the whole batch")
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        self.batch.reset(seed)
        if self.opponent is not None and callable(getattr(self.opponent, "reset", None)):
            self.opponent.reset(seed=int(self.np_random.integers(2**63 - 1)) if seed is not None else None)
        self._play_opponent()
        return self.batch.obs.copy(), {"learner_seat": self.seats.copy(), "_learner_seat": np.ones(self.num_envs, bool)}

    def step(self, actions: Any):
        batch = self.batch
        seats = self.seats.copy()
        result = batch.step(actions)  # it checks the type, the shape and legality (core.checks)
        ended = result.terminated | result.truncated
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = result.terminated.copy()
        truncated = result.truncated.copy()
        infos: dict[str, Any] = {}
        if ended.any():
            self._record_ends(result, ended, seats, rewards, infos)
        self._play_opponent(rewards, terminated, truncated, infos)
        infos["learner_seat"] = self.seats.copy()
        infos["_learner_seat"] = np.ones(self.num_envs, dtype=bool)
        return batch.obs.copy(), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learner's legal actions in every game."""
        return self.batch.masks.astype(bool)

    # -- helpers -------------------------------------------------------------------------------
    def _seats_now(self) -> np.ndarray:
        """The learner's seat in the game now in each slot."""
        if self.learner_seat_mode == "alternate":
            return (self._slots + self.batch.episodes + 1) % 2
        return np.full(self.num_envs, int(self.learner_seat_mode), dtype=np.int64)

    def _opponent_actions(self, waiting: np.ndarray) -> np.ndarray:
        if self.batched_opponent:
            return self.batch.sample_actions()
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for i in np.flatnonzero(waiting):
            actions[i] = self.game.check_action(self.opponent.act(self.batch.state(int(i))))
        return actions

    def _play_opponent(self, rewards=None, terminated=None, truncated=None, infos=None) -> None:
        """Opponent moves until every game waits for the learner; record games that end (if asked)."""
        batch = self.batch
        for _ in range(_MAX_OPPONENT_ROUNDS):
            seats = self._seats_now()
            waiting = batch.players != seats
            if not waiting.any():
                self.seats = seats
                return
            result = batch.step(self._opponent_actions(waiting), active=waiting)
            ended = (result.terminated | result.truncated) & waiting
            if rewards is not None and ended.any():
                # a game that ended on the learner's move this step keeps that result: a new game
                # ending before the learner's first move (degenerate boards only) is not an episode
                first = ended & ~(terminated | truncated)
                terminated |= result.terminated & first
                truncated |= result.truncated & first
                self._record_ends(result, first, seats, rewards, infos)
        raise RuntimeError(f"{self.game.env_id}: the opponent kept moving for {_MAX_OPPONENT_ROUNDS} rounds")

    def _record_ends(self, result, ended: np.ndarray, seats: np.ndarray, rewards: np.ndarray, infos: dict) -> None:
        """Rewards, final observations and scores of the games that ``ended``, from the learner's seat."""
        idx = np.flatnonzero(ended)
        if len(idx) == 0:
            return
        mine = seats[idx]
        rewards[idx] = result.rewards[idx, mine]
        final_obs = infos.setdefault("final_obs", np.full(self.num_envs, None, dtype=object))
        mask = infos.setdefault("_final_obs", np.zeros(self.num_envs, dtype=bool))
        final_info = infos.setdefault(
            "final_info",
            {"scores": np.zeros((self.num_envs, 2)), "_scores": np.zeros(self.num_envs, dtype=bool)},
        )
        infos.setdefault("_final_info", np.zeros(self.num_envs, dtype=bool))[idx] = True
        for i, seat in zip(idx.tolist(), mine.tolist()):
            final_obs[i] = result.final_obs[i, seat].copy()
        mask[idx] = True
        final_info["scores"][idx, 0] = result.final_scores[idx, mine]
        final_info["scores"][idx, 1] = result.final_scores[idx, 1 - mine]
        final_info["_scores"][idx] = True
