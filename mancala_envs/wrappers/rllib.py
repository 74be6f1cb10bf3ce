"""RLlib's multi-agent env for every registered id: masks and observations where RLlib looks.

RLlib 2.60's action-masking module (``ActionMaskingTorchRLModule``, new API stack) reads a
``Dict`` observation with two keys, and fails on our AEC env with ``KeyError: 'observations'``.
``MancalaMultiAgentEnv`` gives it exactly that::

    from ray.rllib.algorithms.ppo import PPOConfig
    from mancala_envs.wrappers.rllib import MancalaMultiAgentEnv

    config = PPOConfig().environment(MancalaMultiAgentEnv, env_config={"env_id": "kalah-v0"})

* Agents ``player_0`` and ``player_1``; only the player to move gets an observation (extra
  turns: the same player again), so a turn-based game needs nothing else from RLlib.
* Observation per agent: ``{"observations": float32 encoding of the mover's observation,
  "action_mask": float32 0/1 of its legal actions}``. ``encoding`` (default ``"counts"``,
  the raw observation) is a name of ``mancala_envs.core.encodings.ENCODINGS``; the same
  encoding in ``evaluation.npz`` makes an exported network playable by ``policy:RUN_DIR``.
* Rewards +1/-1/0 per player at the end of the game (0 before); reaching the id's
  ``max_plies`` truncates the episode (``truncateds["__all__"]``) with no reward.
* ``illegal_action``: ``"terminate"`` (default, as ``MancalaGymEnv``; RLlib's env check
  steps unmasked random actions) ends the episode with -1 for the mover and says why in its
  info (``illegal_action``, ``illegal_reason``); ``"raise"`` raises ``IllegalActionError``.
  A masking module never chooses one.
* **Opponents.** By default both seats are agents of the episode (map both to one module for
  shared-policy self-play). ``opponents`` (``[(agent or spec, weight), ...]``, with
  ``self_play_weight`` for the self-play share) seats a fixed opponent in one seat for a
  whole episode, drawn by weight at each reset: the env plays its moves (any object with
  ``act(state)``, or a spec string resolved as ``MancalaGymEnv``'s are), the learner's seat
  alternates, and only the learner's agent id appears. Against an opponent the game starts
  after ``opening_plies`` (lo, hi) uniformly random plies, so (nearly) deterministic
  opponents do not replay one game. ``add_opponent`` / ``remove_opponent`` change the pool
  while training (e.g. a frozen snapshot of the learner).
* ``env_config`` keys: ``env_id``, ``options`` (game options), ``encoding``, ``opponents``,
  ``self_play_weight``, ``opening_plies``, ``illegal_action``, ``seed``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from mancala_envs.core.checks import checked_seed
from mancala_envs.core.encodings import ENCODINGS, encode, encoding_spec
from mancala_envs.core.errors import IllegalActionError, InvalidOptionError
from mancala_envs.core.game import State
from mancala_envs.gym import ILLEGAL_ACTION_MODES, resolve_opponent
from mancala_envs.registry import game_of

AGENTS = ("player_0", "player_1")
CONFIG_KEYS = ("env_id", "options", "encoding", "opponents", "self_play_weight", "opening_plies", "illegal_action",
               "seed")


class MancalaMultiAgentEnv(MultiAgentEnv):
    """A registered game as RLlib's ``MultiAgentEnv`` (module docstring)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise InvalidOptionError(f"MancalaMultiAgentEnv: unknown env_config keys {unknown}; "
                                     f"known keys: {', '.join(CONFIG_KEYS)}")
        self.game = game_of(config.get("env_id", "kalah-v0"), **dict(config.get("options") or {}))
        name = config.get("encoding", "counts")
        if name not in ENCODINGS:
            raise InvalidOptionError(f"encoding={name!r}: use one of {', '.join(ENCODINGS)}")
        self.encoding = encoding_spec(name, self.game.observation_size, self.game.observation_bounds())
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        inputs = spaces.Box(-np.inf, np.inf, (self.encoding.width,), np.float32)
        mask = spaces.Box(0.0, 1.0, (self.game.num_actions,), np.float32)
        space = spaces.Dict({"observations": inputs, "action_mask": mask})
        self.observation_spaces = {agent: space for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in AGENTS}
        self.illegal_action = config.get("illegal_action", "terminate")
        if self.illegal_action not in ILLEGAL_ACTION_MODES:
            raise InvalidOptionError(f"illegal_action={self.illegal_action!r}: use one of {', '.join(ILLEGAL_ACTION_MODES)}")
        self.self_play_weight = float(config.get("self_play_weight", 1.0))
        self.opening_plies = tuple(int(p) for p in config.get("opening_plies", (0, 0)))
        if len(self.opening_plies) != 2 or not 0 <= self.opening_plies[0] <= self.opening_plies[1]:
            raise InvalidOptionError(f"opening_plies must be (lo, hi) with 0 <= lo <= hi, "
                                     f"got {config.get('opening_plies')!r}")
        self.pool: dict[str, tuple[Any, float]] = {}
        for k, (opponent, weight) in enumerate(config.get("opponents") or []):
            self.add_opponent(getattr(opponent, "name", None) or str(opponent) or f"opponent-{k}", opponent, weight)
        self.rng = np.random.default_rng(config.get("seed"))
        self.state: State = self.game.new_state()
        self.opponent: Any = None  # the fixed opponent of this episode, or None (self-play)
        self.opponent_seat = -1
        self._episodes = 0

    # -- the pool -------------------------------------------------------------------------------
    def add_opponent(self, name: str, opponent: Any, weight: float = 1.0) -> None:
        """Seat ``opponent`` (an object with ``act(state)`` or a spec) in episodes drawn with ``weight``."""
        if not weight > 0:
            raise InvalidOptionError(f"opponent {name!r}: the weight must be positive, got {weight!r}")
        self.pool[name] = (resolve_opponent(opponent), float(weight))

    def remove_opponent(self, name: str) -> None:
        self.pool.pop(name, None)

    def _draw_opponent(self) -> tuple[str, Any]:
        names = ["self", *self.pool]
        weights = np.array([self.self_play_weight] + [w for _, w in self.pool.values()])
        if weights.sum() <= 0:
            return "self", None
        name = names[int(self.rng.choice(len(names), p=weights / weights.sum()))]
        return name, None if name == "self" else self.pool[name][0]

    # -- RLlib's API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = checked_seed(seed, f"{self.game.env_id}: reset")
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self.game.new_state(int(self.rng.integers(2**31)))
        name, self.opponent = self._draw_opponent()
        self.opponent_seat = -1
        if self.opponent is not None:
            self.opponent_seat = 1 - self._episodes % 2  # the learner alternates seats
            if hasattr(self.opponent, "reset"):
                self.opponent.reset(seed=int(self.rng.integers(2**31)))
            self._random_opening()
        self._episodes += 1
        self.agents = [a for p, a in enumerate(AGENTS) if p != self.opponent_seat]
        self._play_opponent()
        if self.state.is_terminal() or self.state.is_truncated():  # the opening or the opponent ended it
            return self.reset(options=options)
        return self._observation(), {self._mover(): {"opponent": name}}

    def step(self, action_dict: dict[str, int]):
        mover = self._mover()
        if mover not in action_dict:
            raise InvalidOptionError(f"it is {mover}'s turn; got actions for {sorted(action_dict)}")
        action = self.game.check_action(action_dict[mover])  # an integer of the action space
        if not self.state.is_legal(action):
            reason = (f"{mover} chose action {action}, which is not legal; legal actions: "
                      f"{self.state.legal_actions()} (the action mask says which)")
            if self.illegal_action == "raise":
                raise IllegalActionError(reason)
            rewards = {agent: -1.0 if agent == mover else 0.0 for agent in self.agents}
            info = {mover: {"illegal_action": action, "illegal_reason": reason}}
            return {}, rewards, {"__all__": True}, {"__all__": False}, info
        self.state.apply(action)
        self._play_opponent()
        rewards = {agent: 0.0 for agent in self.agents}
        if self.state.is_terminal():
            returns = self.state.returns()
            rewards = {AGENTS[p]: float(returns[p]) for p in (0, 1) if AGENTS[p] in self.agents}
            return {}, rewards, {"__all__": True}, {"__all__": False}, {}
        if self.state.is_truncated():
            return {}, rewards, {"__all__": False}, {"__all__": True}, {}
        return self._observation(), rewards, {"__all__": False}, {"__all__": False}, {}

    # -- helpers --------------------------------------------------------------------------------
    def _mover(self) -> str:
        return AGENTS[self.state.current_player]

    def _observation(self) -> dict[str, dict[str, np.ndarray]]:
        player = self.state.current_player
        return {AGENTS[player]: {"observations": encode(self.encoding, self.state.observation(player)),
                                 "action_mask": self.state.action_mask().astype(np.float32)}}

    def _random_opening(self) -> None:
        low, high = self.opening_plies
        for _ in range(int(self.rng.integers(low, high + 1))):
            if self.state.is_terminal() or self.state.is_truncated():
                return
            legal = self.state.legal_actions()
            self.state.apply(int(legal[self.rng.integers(len(legal))]))

    def _play_opponent(self) -> None:
        """The opponent's moves until the learner is to move or the game is over."""
        while (self.opponent is not None and not self.state.is_terminal() and not self.state.is_truncated()
               and self.state.current_player == self.opponent_seat):
            self.state.apply(int(self.opponent.act(self.state.clone())))

