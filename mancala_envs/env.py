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
* ``env.unwrapped.game_state`` is the live ``State``. ``env.state()`` is PettingZoo's global
  state: the whole position as ``player_0`` observes it (every game here has perfect
  information, and the observation says whose turn it is), a float32 array in
  ``env.state_space`` (the observation ``Box``). ``copy.deepcopy`` and ``pickle`` keep the game.
* ``reset(options={"state": S})`` starts from a position: a ``State`` of this same game (same
  family and options; it is copied) or a ``State.to_json()`` dict. A ``State`` of another game
  or board size raises ``InvalidStateError``. Any other option key is ignored with a warning
  naming it: PettingZoo's own ``api_test`` and ``parallel_api_test`` reset with
  ``options={"options": 1}`` and expect that to work (the Gymnasium env refuses them).
* ``metadata`` is copied per instance, so wrappers that edit it (PettingZoo's
  ``CaptureStdoutWrapper`` appends to ``render_modes``) change only their own env.
* Actions are integers (a Python ``int``, a numpy integer scalar or 0-d integer array):
  ``bool``, floats (``2.0`` too), strings and None raise ``IllegalActionError``, with the same
  words as ``State.apply``, the Gymnasium env and the batched engine (``core.checks``). An
  out-of-range or illegal action raises ``IllegalActionError`` naming the legal actions
  (the error subsumes PettingZoo's ``AssertOutOfBoundsWrapper`` with a clearer message).
  ``make(..., illegal_action="terminate")`` applies PettingZoo's ``TerminateIllegalWrapper``
  instead to an in-range action that is not legal: the game ends and the offender gets -1.
* ``reset(seed=...)``: None or an integer from 0 to ``2**64 - 1``; anything else raises
  ``InvalidOptionError``.

Rendering
---------
``metadata["render_modes"]`` is ``["ansi", "rgb_array", "human"]``, ``render_fps`` 4.

* ``"ansi"``: ``render()`` returns the text board (``str(env.unwrapped.game_state)``).
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

Parallel API
------------
``pettingzoo.make("parallel", "mancala/kalah-v0")`` (or ``turn_based_aec_to_parallel(make(...))``)
gives the same game through PettingZoo's turn-based conversion: each ``step`` takes a dict
with an action for the agent to move (``infos[agent]["active_agent"]`` names it; the other
agent's action is ignored), and an extra turn simply selects the same agent again.

Version history
---------------
* Unreleased (after 0.1.0): the live position moved from ``env.state`` to
  ``env.unwrapped.game_state``, because the attribute shadowed PettingZoo's ``state()``
  method (``env.state()`` raised ``TypeError``). ``state()`` and ``state_space`` are new, as are
  the checks of ``reset`` options and the per-instance ``metadata``. No game changed, so the
  ids stay ``-v0``.
* 0.1.0: initial release.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .core.checks import checked_seed
from .core.errors import InvalidOptionError, InvalidStateError, MancalaError
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
        self.metadata = copy.deepcopy(self.metadata)  # per instance: wrappers may edit it
        self.metadata["name"] = game.env_id
        self.possible_agents = list(AGENTS)
        low, high = game.observation_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (game.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(game.num_actions)
        self.state_space = spaces.Box(low, high, (game.observation_size,), np.float32)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: act_space for a in AGENTS}
        self._scores = np.zeros(2, dtype=np.float64)
        self.game_state: State = game.new_state()
        self._seed: int | None = None
        self._begin()

    def state(self) -> np.ndarray:
        """The global state: the whole position as ``player_0`` observes it (see ``state_space``)."""
        return self.game_state.observation(0)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``options={"state": State or to_json() dict}`` starts from a position."""
        seed = checked_seed(seed, f"{self.game.env_id}: reset")
        start = start_option(self.game, options, unknown="warn")
        if seed is not None:
            self._seed = seed
            for space in self.action_spaces.values():
                space.seed(seed)
        if start is None:
            # Without a new seed, successive resets take fresh seeds from the first one.
            self.game_state = self.game.new_state(self._next_seed())
        else:
            self.game_state = start
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
        self.agent_selection = AGENTS[max(self.game_state.current_player, 0)]
        self._after_move()

    def _after_move(self) -> None:
        """Selection, end of game, truncation and infos after the position changed."""
        state = self.game_state
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
        action = self.game.check_action(action)
        if painter is None:
            self.game_state.apply(action)
        else:
            painter.apply(self.game_state, action)
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
        state = self.game_state
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
            return str(self.game_state)
        return self._painter.render(self.game_state)

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()

    def _repr_svg_(self) -> str | None:
        """How a notebook shows the env: the position as SVG (no pygame needed), the last move
        ringed when the env draws pictures (it remembers moves only then); None before reset."""
        state = getattr(self, "game_state", None)
        if state is None:
            return None
        return state.to_svg(self._painter.last if self._painter is not None else None)

    # -- cloning ------------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        return dict(self.__dict__)

    def __setstate__(self, data: dict) -> None:
        self.__dict__.update(data)


RESET_OPTIONS = ("state",)


def start_option(game: Game, options: dict[str, Any] | None, unknown: str = "raise") -> State | None:
    """The start position of ``reset(options=...)`` (a copy), or None for a new game.

    Refuses positions of another game: a ``State`` must belong to a game of the same family
    with the same options (board size, variant). Option keys other than ``"state"`` raise
    ``InvalidOptionError``, or with ``unknown="warn"`` are ignored with a warning.
    """
    if options is None:
        return None
    if not isinstance(options, dict):
        raise InvalidOptionError(f"{game.env_id}: reset options must be a dict, got {type(options).__name__}")
    unknown_keys = sorted(str(k) for k in options if k not in RESET_OPTIONS)
    if unknown_keys:
        message = (
            f"{game.env_id}: unknown reset option {', '.join(map(repr, unknown_keys))}; the only reset option is "
            f"'state' (a State of this game or a State.to_json() dict)"
        )
        if unknown != "warn":
            raise InvalidOptionError(message)
        warnings.warn(message + "; ignored", stacklevel=3)
    start = options.get("state")
    if start is None:
        return None
    if isinstance(start, State):
        if start.game != game:
            raise InvalidStateError(
                f"reset(options={{'state': ...}}): the State belongs to {start.game!r}, but this env plays "
                f"{game!r}; give a State of the same game and options, or a to_json() dict"
            )
        return State(game, start.array.copy())
    return game.state_from_json(start)


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with the action checked first (``core.checks``).

    An action that is not an integer of the action space raises ``IllegalActionError``, as in
    the Gymnasium env (the base class would index the mask with it: a raw ``IndexError`` for
    2.5 or 99); an integer action that is not legal in the position ends the game.
    """

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):  # a dead step takes None
            action = self.env.unwrapped.game.check_action(action)
        super().step(action)


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

    def _repr_svg_(self) -> str | None:
        return self.unwrapped._repr_svg_()

    @property
    def _cumulative_rewards(self) -> dict:
        return self._inner("_cumulative_rewards")._cumulative_rewards


def wrap_env(game: Game, render_mode: str | None = None, illegal_action: str = "raise") -> AECEnv:
    """``MancalaAEC`` with PettingZoo's usual wrappers."""
    env: AECEnv = MancalaAEC(game, render_mode=render_mode)
    if illegal_action == "terminate":
        env = TerminateIllegalWrapper(env, illegal_reward=-1)
    return OrderEnforcingWrapper(env)
