"""Self-play for Stable-Baselines3: the learner plays, the opponents play inside the env.

``SelfPlayVecEnv(env_id, num_envs, opponents=None, seed=None, **options)`` is an SB3
``VecEnv`` over a ``BatchEnv``. Every transition it returns is the learner's own:

* ``step(actions)`` applies the learner's move in every game, then plays the opponents'
  moves (extra turns and bonus moves included) until each game is back at the learner's
  turn or over. The observation is the learner's, the reward is the learner's (+1/-1/0 when
  the game ends), and a finished game is reset at once with SB3's conventions:
  ``infos[i]["terminal_observation"]`` (the learner's view of the final position) and
  ``infos[i]["TimeLimit.truncated"]`` (the game reached ``max_plies``).
* ``action_masks()`` answers for the whole batch (sb3-contrib's ``MaskablePPO`` calls it
  through ``env_method("action_masks")``).
* The learner's seat alternates between episodes in every game (games start on seat
  ``i % 2``); ``infos[i]["episode_result"]`` reports each finished game: the learner's seat,
  return, scores (``[mine, theirs]``), plies and the opponent's name.
* Opponents come from an ``OpponentPool``: each game draws one (by weight) when an
  episode starts. ``"random"`` plays inside numba; a ``PolicyOpponent`` (a frozen snapshot
  of a policy, or any batched callable) is called **once per round for all games waiting
  on it**; an agent (``act(state) -> action``) is called per game.
* An entry added with ``opening_plies=(lo, hi)`` starts each of its games with a uniformly
  random number of plies in that range, played at random by both seats before the
  learner's first decision (the learner gets no transition for them). This is how a
  deterministic opponent (alpha-beta, greedy) stays in the pool without being beaten by
  rote: from the start position it plays the same game every time, and the learner would
  learn the few lines that beat it instead of the game.
* The same seed gives the same games, the same opponent draws and the same opponent moves
  (policies sample with the env's generator, never torch's).
* ``margin_reward=w`` (0 by default) shapes the terminal reward by the final score margin:
  ``(1 - w) * result + w * margin / total``, where ``result`` is the game's +1/-1/0,
  ``margin`` the learner's score minus the opponent's and ``total`` what the game conserves
  (``Game.conserved_total`` of the start position: the stones or cards in play), clipped
  to [-1, 1]. A win by many is then worth more than a win by one, and the reward keeps
  the result's sign and scale, so the value head still estimates the result (up to the
  shaping) and can serve as a search's evaluation. Truncated games get 0 either way.

A game that ends twice before the learner moves again (possible only on degenerate boards
where the opponent's opening ends the game) reports the first ending to SB3 and counts the
second in ``infos[i]["skipped_episodes"]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from mancala_envs.agents.learned.frozen_policy import PolicyOpponent
from mancala_envs.core.errors import InvalidOptionError, MancalaError
from mancala_envs.vector import BatchEnv


RANDOM = "random"


@dataclass
class PoolEntry:
    opponent: Any  # "random", a PolicyOpponent, or an agent with act(state)
    weight: float
    name: str
    opening_plies: tuple[int, int] = (0, 0)  # random plies by both seats before the learner's episode


class OpponentPool:
    """Opponents with sampling weights; games draw one per episode.

    ``OpponentPool()`` (or ``None``) holds ``"random"`` alone; ``OpponentPool([])`` is empty,
    to be filled with ``add`` before a ``SelfPlayVecEnv`` uses it.
    """

    def __init__(self, entries: Iterable[Any] | None = None):
        self.entries: list[PoolEntry] = []
        self._cumulative = None
        for entry in [RANDOM] if entries is None else entries:
            if isinstance(entry, tuple):
                self.add(*entry)
            else:
                self.add(entry)

    def add(self, opponent: Any, weight: float = 1.0, name: str | None = None,
            opening_plies: tuple[int, int] = (0, 0)) -> None:
        if not (opponent == RANDOM or isinstance(opponent, PolicyOpponent) or callable(getattr(opponent, "act", None))):
            raise InvalidOptionError(
                f"an opponent must be 'random', a PolicyOpponent, or an agent with act(state); got {opponent!r}"
            )
        if not weight > 0:
            raise InvalidOptionError(f"an opponent's weight must be positive, got {weight!r}")
        lo, hi = (int(p) for p in opening_plies)
        if not 0 <= lo <= hi:
            raise InvalidOptionError(f"opening_plies must be (lo, hi) with 0 <= lo <= hi, got {opening_plies!r}")
        label = name or (RANDOM if opponent == RANDOM else getattr(opponent, "name", type(opponent).__name__))
        self.entries.append(PoolEntry(opponent, float(weight), label, (lo, hi)))
        self._cumulative = None

    def remove(self, name: str) -> None:
        kept = [e for e in self.entries if e.name != name]
        if not kept:
            raise InvalidOptionError("the opponent pool cannot become empty")
        self.entries = kept
        self._cumulative = None

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` entry indices drawn by weight (called whenever games end: kept cheap)."""
        if not self.entries:
            raise InvalidOptionError("the opponent pool is empty: add an opponent before playing")
        if self._cumulative is None or len(self._cumulative) != len(self.entries):
            cumulative = np.cumsum([e.weight for e in self.entries])
            self._cumulative = cumulative / cumulative[-1]
        picks = np.searchsorted(self._cumulative, rng.random(size), side="right")
        return np.minimum(picks, len(self.entries) - 1)


class SelfPlayVecEnv(VecEnv):
    """SB3 VecEnv in which the learner plays against opponents inside the env (module docstring)."""

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: OpponentPool | Sequence[Any] | None = None,
        seed: int | None = None,
        margin_reward: float = 0.0,
        **options: Any,
    ):
        if not 0.0 <= margin_reward <= 1.0:
            raise InvalidOptionError(f"margin_reward must be between 0 and 1, got {margin_reward!r}")
        self.batch = BatchEnv(env_id, num_envs, seed=seed, **options)
        game = self.batch.game
        self.game = game
        self.margin_reward = float(margin_reward)
        self.margin_scale = float(game.conserved_total(game.new_state(0)) or 1)
        self.pool = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents)
        low, high = game.observation_bounds()
        observation_space = spaces.Box(low, high, (game.observation_size,), np.float32)
        action_space = spaces.Discrete(game.num_actions)
        self.render_mode = None
        super().__init__(num_envs, observation_space, action_space)
        self._seed = seed
        self._actions: np.ndarray | None = None
        self._opponent_actions = np.zeros(num_envs, dtype=np.int64)  # reused by every round of opponent moves
        self._setup(seed)

    # -- episodes ---------------------------------------------------------------------------------
    def _setup(self, seed: int | None) -> None:
        root = np.random.SeedSequence(seed)
        self.rng = np.random.default_rng(root.spawn(1)[0])
        self.seats = np.arange(self.num_envs, dtype=np.int64) % 2
        self.assignment = self.pool.draw(self.rng, self.num_envs)
        self.opening_left = self._opening_plies(self.assignment)
        self.results_by_seat = {0: [0, 0, 0], 1: [0, 0, 0]}  # wins, draws, losses of the learner

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        self.batch.reset(seed)
        self._setup(seed)
        self._reset_seeds()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        done = np.zeros(self.num_envs, dtype=bool)
        self._play_opponents(done, np.zeros(self.num_envs), [None] * self.num_envs, infos)
        self.reset_infos = infos
        return self.batch.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise MancalaError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        n = self.num_envs
        done = np.zeros(n, dtype=bool)
        rewards = np.zeros(n, dtype=np.float32)
        terminal_obs: list[np.ndarray | None] = [None] * n
        infos: list[dict] = [{} for _ in range(n)]
        result = self.batch.step(actions)
        self._collect(result, np.ones(n, dtype=bool), done, rewards, terminal_obs, infos)
        self._play_opponents(done, rewards, terminal_obs, infos)
        for i in done.nonzero()[0]:
            infos[i]["terminal_observation"] = terminal_obs[i]
        return self.batch.obs.copy(), rewards, done, infos

    def _collect(self, result, active, done, rewards, terminal_obs, infos) -> None:
        """Record the learner's outcome of every game that just ended; start its next episode."""
        # ndarray.nonzero, not np.flatnonzero: this runs several times per step, and the
        # wrapper's Python layers cost more than the test itself on 32 games
        ended = (active & (result.terminated | result.truncated)).nonzero()[0]
        if ended.size == 0:
            return
        for i in ended:
            seat = int(self.seats[i])
            if done[i]:
                infos[i]["skipped_episodes"] = infos[i].get("skipped_episodes", 0) + 1
            else:
                done[i] = True
                reward = float(result.rewards[i, seat])
                terminal_obs[i] = result.final_obs[i, seat].copy()
                truncated = bool(result.truncated[i])
                infos[i]["TimeLimit.truncated"] = truncated
                scores = result.final_scores[i]
                rewards[i] = self._shaped(reward, scores[seat] - scores[1 - seat]) if not truncated else reward
                infos[i]["episode_result"] = {
                    "learner_seat": seat,
                    "return": reward,
                    "scores": [float(scores[seat]), float(scores[1 - seat])],
                    "truncated": truncated,
                    "opponent": self.pool.entries[self.assignment[i]].name,
                }
                if not truncated:
                    outcome = 0 if reward > 0 else (1 if reward == 0 else 2)
                    self.results_by_seat[seat][outcome] += 1
        self.seats[ended] = 1 - self.seats[ended]
        self.assignment[ended] = self.pool.draw(self.rng, ended.size)
        self.opening_left[ended] = self._opening_plies(self.assignment[ended])

    def _shaped(self, result: float, margin: float) -> float:
        """The terminal reward: the result, shaped by the margin when ``margin_reward`` > 0."""
        if self.margin_reward == 0.0:
            return result
        w = self.margin_reward
        return float(np.clip((1.0 - w) * result + w * margin / self.margin_scale, -1.0, 1.0))

    def _opening_plies(self, entries: np.ndarray) -> np.ndarray:
        """Random opening plies for games that start against ``entries`` (drawn from each entry's range)."""
        ranges = np.array([self.pool.entries[k].opening_plies for k in entries], dtype=np.int64).reshape(-1, 2)
        if not ranges.any():
            return np.zeros(len(entries), dtype=np.int64)
        return self.rng.integers(ranges[:, 0], ranges[:, 1] + 1)

    def _play_opponents(self, done, rewards, terminal_obs, infos) -> None:
        """Opponent moves, batched per opponent, until every game is at the learner's turn.

        Games still in their random opening plies play a random move whoever is to move."""
        batch = self.batch
        while True:
            opening = self.opening_left > 0
            waiting = (batch.players != self.seats) | opening
            waiting_rows = waiting.nonzero()[0]
            if waiting_rows.size == 0:
                return
            actions = self._opponent_actions  # only the waiting games' entries are read
            random_actions = None
            if opening.any():
                random_actions = batch.sample_actions()
                actions[opening] = random_actions[opening]
                self.opening_left[opening] -= 1
                waiting_rows = (waiting & ~opening).nonzero()[0]
            waiting_entries = self.assignment[waiting_rows]
            counts = np.bincount(waiting_entries, minlength=len(self.pool.entries))
            for k in counts.nonzero()[0]:
                rows = waiting_rows if counts[k] == waiting_rows.size else waiting_rows[waiting_entries == k]
                opponent = self.pool.entries[k].opponent
                if opponent == RANDOM:
                    if random_actions is None:
                        random_actions = batch.sample_actions()
                    actions[rows] = random_actions[rows]
                elif isinstance(opponent, PolicyOpponent):
                    masks = batch.masks[rows].view(np.bool_)  # int8 0/1: the same bytes
                    actions[rows] = opponent(batch.obs[rows], masks, self.rng)
                else:
                    for i in rows:
                        actions[i] = int(opponent.act(batch.state(int(i))))
            result = batch.step(actions, waiting)
            self._collect(result, waiting, done, rewards, terminal_obs, infos)

    # -- the learner's masks ------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions in every game."""
        return self.batch.masks.astype(bool)

    # -- VecEnv plumbing ------------------------------------------------------------------------------
    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)  # AttributeError if absent, as SB3 expects
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._seeds = [seed for _ in range(self.num_envs)]
        return self._seeds
