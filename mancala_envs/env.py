"""``MancalaAEC``: the one PettingZoo AEC environment class, for every game.

All AEC bookkeeping lives here once; the rules come from the game's kernel.

* Agents are ``player_0`` and ``player_1``. ``agent_selection`` is the kernel's player to
  move, so extra turns and bonus moves select the same agent again (no ``AgentSelector``).
* ``observe(agent)`` returns ``{"observation": float32 tensor, "action_mask": int8}``. The
  tensor is relative to ``agent`` ("mine" before "theirs", documented per game); the mask
  is all zeros when it is not ``agent``'s turn.
* Rewards are 0 until the game ends, then +1/-1/0 from the kernel's ``returns``.
  ``infos[agent]`` holds ``scores`` (the rules' counts, per agent), ``plies``, and whatever
  the game adds through ``Game.info`` (e.g. a komi-adjusted margin).
* Reaching the game's ``max_plies`` sets ``truncations`` (rewards 0): never a draw.
* ``render_mode``: ``"ansi"``, ``"rgb_array"`` or ``"human"`` (see Rendering below).
* ``env.state`` is the live ``State``. ``copy.deepcopy`` and ``pickle`` keep the game.
* An out-of-range or illegal action raises ``IllegalActionError`` naming the legal actions
  (the error subsumes PettingZoo's ``AssertOutOfBoundsWrapper`` with a clearer message).
  ``make(..., illegal_action="terminate")`` applies PettingZoo's ``TerminateIllegalWrapper``
  instead: the game ends and the offender gets -1.

Rendering
---------
``metadata["render_modes"]`` is ``["ansi", "rgb_array", "human"]``, ``render_fps`` 4.

* ``"ansi"``: ``render()`` returns the text board (``str(env.state)``).
* ``"rgb_array"``: ``render()`` returns the picture as an ``(H, W, 3)`` ``uint8`` array. Its
  size is fixed per board layout: 800 x 360 (W x H) for every ``kalah-*`` id and
  ``afrika-v0``, 960 x 320 for ``progressive-*``, 800 x 720 for ``rondell-*``, 960 x 720 for
  ``widdershins-*`` (``mancala_envs.render.frame_size(game)``). It shows the board as a
  person lays it out, the status line (whose turn, or the result), the scores, and the last
  move ringed in orange and named in the footer.
* ``"human"``: a pygame window opens on the first ``reset`` and is redrawn after every step,
  at most ``render_fps`` frames a second; ``close()`` closes it.

The pictures need pygame (``pip install "mancala-envs[render]"``); asking for them without
it raises ``RenderUnavailableError`` (a ``MancalaError``) naming the install line. With
``render_mode`` None or ``"ansi"`` the env does no drawing work at all: only the picture
modes remember the last move.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core.errors import MancalaError
from .core.game import Game, State
from .render import PICTURE_MODES, RENDER_FPS, Painter

AGENTS = ("player_0", "player_1")


class MancalaAEC(AECEnv):
    """PettingZoo AEC env around any registered game (see the module docstring)."""

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": RENDER_FPS,
        "name": "mancala",
        "is_parallelizable": False,
    }
    _painter = None  # a render.Painter with render_mode "rgb_array" or "human"

    def __init__(self, game: Game, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise MancalaError(
                f"{game.env_id}: render_mode={render_mode!r} is not supported; "
                f"use one of {self.metadata['render_modes']} or None"
            )
        self.game = game
        self.render_mode = render_mode
        self._painter = None
        if render_mode in PICTURE_MODES:
            self._painter = Painter(game, render_mode)  # fails here, clearly, without pygame
        self.metadata = dict(self.metadata, name=game.env_id)
        self.possible_agents = list(AGENTS)
        low, high = game.observation_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (game.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(game.num_actions)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: act_space for a in AGENTS}
        self._scores = np.zeros(2, dtype=np.float64)
        self.state: State = game.new_state()
        self._seed: int | None = None
        self._begin()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``options={"state": State or to_json() dict}`` starts from a position."""
        if seed is not None:
            self._seed = seed
            for space in self.action_spaces.values():
                space.seed(seed)
        start = (options or {}).get("state")
        if start is None:
            # Without a new seed, successive resets take fresh seeds from the first one.
            self.state = self.game.new_state(self._next_seed())
        elif isinstance(start, State):
            self.state = start.clone()
        else:
            self.state = self.game.state_from_json(start)
        self._begin()
        if self._painter is not None:
            self._painter.forget()
            if self.render_mode == "human":
                self.render()

    def _next_seed(self) -> int | None:
        if self._seed is None:
            return None
        seed = self._seed
        self._seed = int(np.random.default_rng(seed).integers(2**63 - 1))
        return seed

    def _begin(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._skip_agent_selection = None
        self.agent_selection = AGENTS[max(self.state.current_player, 0)]
        self._after_move()

    def _after_move(self) -> None:
        """Selection, end of game, truncation and infos after the position changed."""
        state = self.state
        player = state.current_player
        game = self.game
        game.kernel.scores(state.array, game.params, self._scores)
        plies = state.plies
        s0, s1 = self._scores.tolist()
        extra = game.info(state)
        self.infos["player_0"] = {"scores": {"player_0": s0, "player_1": s1}, "plies": plies, **extra}
        self.infos["player_1"] = {"scores": {"player_0": s0, "player_1": s1}, "plies": plies, **extra}
        if player < 0:
            r0, r1 = state.returns()
            self.rewards["player_0"] = r0
            self.rewards["player_1"] = r1
            self.terminations = {a: True for a in AGENTS}
        else:
            self.agent_selection = AGENTS[player]
            if plies >= game.ply_cap:
                self.truncations = {a: True for a in AGENTS}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        painter = self._painter
        if painter is None:
            self.state.apply(_as_int(action))
        else:
            painter.apply(self.state, _as_int(action))
        self._after_move()
        # rewards are nonzero only on the step that ends the game, so nothing needs clearing
        self._accumulate_rewards()
        if painter is not None and self.render_mode == "human":
            self.render()

    def _accumulate_rewards(self) -> None:
        for agent, reward in self.rewards.items():
            self._cumulative_rewards[agent] += reward

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        state = self.state
        obs = state.observation(player)
        if state.current_player == player:
            mask = state.action_mask()
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        """The text board (``"ansi"``), the picture (``"rgb_array"``), or draw the window (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human' to make()"
            )
            return None
        if self._painter is None:
            return str(self.state)
        return self._painter.render(self.state)

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()

    # -- cloning ------------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        return dict(self.__dict__)

    def __setstate__(self, data: dict) -> None:
        self.__dict__.update(data)


def _as_int(action: Any) -> Any:
    """Accept numpy integer scalars and 0-d arrays as actions; leave anything else to apply()."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return action


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with its hot path forwarded directly.

    The base class reaches every attribute of the inner env through ``__getattr__``; a
    standard ``agent_iter``/``last``/``step`` loop does that about eight times per step,
    which costs more than our whole kernel step. Same checks, same errors, fewer hops.
    """

    def _inner(self, name: str) -> AECEnv:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return self.env

    def last(self, observe: bool = True):
        return self._inner("agent_selection").last(observe)

    @property
    def agent_selection(self) -> str:
        return self._inner("agent_selection").agent_selection

    @property
    def agents(self) -> list[str]:
        return self._inner("agents").agents

    @property
    def rewards(self) -> dict:
        return self._inner("rewards").rewards

    @property
    def terminations(self) -> dict:
        return self._inner("terminations").terminations

    @property
    def truncations(self) -> dict:
        return self._inner("truncations").truncations

    @property
    def infos(self) -> dict:
        return self._inner("infos").infos

    @property
    def _cumulative_rewards(self) -> dict:
        return self._inner("_cumulative_rewards")._cumulative_rewards


def wrap_env(game: Game, render_mode: str | None = None, illegal_action: str = "raise") -> AECEnv:
    """``MancalaAEC`` with PettingZoo's usual wrappers."""
    env: AECEnv = MancalaAEC(game, render_mode=render_mode)
    if illegal_action == "terminate":
        env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    return OrderEnforcingWrapper(env)
