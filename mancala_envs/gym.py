"""Single-agent Gymnasium env: a learner against a fixed opponent, for any registered game.

``MancalaGymEnv("kalah-v0", opponent=None, learner_seat="alternate", illegal_action="terminate", **options)``

* ``opponent``: any object with ``act(state) -> action`` (an agent of ``mancala_envs.agents``, or
  your own), or an agent spec string such as ``"greedy"`` or ``"alphabeta:depth=2"`` (see
  Opponent specs below); ``reset(seed=...)`` is called on it when it has one. Default:
  ``UniformRandomOpponent``, a seeded uniformly random player.
  It receives a clone of the position, never the live one.
* ``illegal_action``: what a learner's action that is in the action space but not legal in
  the position does. ``"terminate"`` (default, as PettingZoo's ``TerminateIllegalWrapper``):
  the episode ends (``terminated``), the learner gets -1, and ``info["illegal_action"]`` holds
  the action and ``info["illegal_reason"]`` says why (the legal actions). So any algorithm
  trains on the env, masked or not (plain PPO or DQN learn to avoid illegal moves).
  ``"raise"``: ``IllegalActionError``, for debugging. An action outside the action space
  raises ``IllegalActionError`` in both modes: actions are integers (a Python ``int``, a
  numpy integer scalar or 0-d integer array); ``bool``, floats (``2.0`` too), strings and
  None are refused with the same words as in the AEC env and the vector env
  (``core.checks``). ``reset(seed=...)`` takes None or an integer from 0 to ``2**64 - 1``.
* ``learner_seat``: 0 or 1 for a fixed seat, ``"alternate"`` (0 then 1 then 0 ...; a seeded
  reset starts again at 0, so the same seed gives the same episode), or ``"random"`` (drawn
  from the reset seed).
* Observation: the game's observation tensor from the learner's seat (float32 ``Box``).
  Action: ``Discrete(num_actions)``; ``action_masks()`` gives the learner's legal actions,
  which is what sb3-contrib's ``MaskablePPO`` calls, so it trains on this env as it is.
* ``step`` applies the learner's action, then the opponent's moves (extra turns and bonus
  moves included) until it is the learner's turn again or the game is over. Reward +1/-1/0
  for the learner when the game ends, else 0. Reaching ``max_plies`` truncates.
* ``info``: ``scores`` (learner first: ``[mine, theirs]``), ``learner_seat``, ``plies``,
  and ``action_mask``.
* If the opponent's opening moves end the game before the learner has moved (possible only
  on degenerate boards such as ``pits=1``), ``reset`` deals a new game.
* ``render_mode``: ``"ansi"`` (the text board), ``"rgb_array"`` (the picture as an
  ``(H, W, 3)`` uint8 array, the sizes of ``mancala_envs.env``'s Rendering section, the last
  move of either side ringed) or ``"human"`` (a pygame window redrawn after every reset and
  step). The pictures need ``pip install "mancala-envs[render]"``; without it, ``"human"``
  fails at once, ``"rgb_array"`` only when ``render()`` is called (SB3's ``make_vec_env``
  asks every env for ``"rgb_array"``, frames wanted or not).
* ``reset(options={"state": S})`` starts from a position (a ``State`` of the same game and
  options, or a ``to_json()`` dict), as the AEC env does; the learner's seat follows
  ``learner_seat`` and the opponent moves first if it is its turn. A ``State`` of another game
  or board size, a position where the game is already over, and any other option key are
  refused (``InvalidStateError``/``InvalidOptionError``).

Opponent specs
--------------
Agents live in ``mancala_envs.agents``, a layer above this module, so this module does not
import them. A spec string is handed to the resolver that the installed distribution
declares under the ``mancala_envs.agent_specs`` entry-point group (``pyproject.toml``:
``mancala_envs.agents.specs:make_agent``); another installed package can declare its own.
The opponent is built once, in the constructor, with ``make_agent(spec)``.

Version history
---------------
* Unreleased (after 0.1.0): ``illegal_action`` (default ``"terminate"``; before, an illegal
  action always raised), opponent spec strings, and the ``state`` reset option.
* 0.1.0: initial release.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .core.checks import checked_seed
from .core.errors import IllegalActionError, InvalidOptionError, InvalidStateError
from .core.game import Game, State
from .env import start_option
from .registry import game_of
from .render import PICTURE_MODES, RENDER_FPS, Painter, RenderUnavailableError

_RESET_ATTEMPTS = 100

ILLEGAL_ACTION_MODES = ("terminate", "raise")

#: The entry-point group of agent-spec resolvers (``resolver(spec) -> agent``).
AGENT_SPEC_GROUP = "mancala_envs.agent_specs"


def agent_from_spec(spec: str) -> Any:
    """The agent of a spec string (``"greedy"``), built by the installed spec resolver.

    The resolver is found through the ``mancala_envs.agent_specs`` entry points (this
    package declares ``mancala_envs.agents.specs:make_agent``), so the env layer never
    imports the agents layer.
    """
    found = {ep.name: ep for ep in entry_points(group=AGENT_SPEC_GROUP)}
    if not found:
        raise InvalidOptionError(
            f"opponent={spec!r}: no agent-spec resolver is installed (entry-point group {AGENT_SPEC_GROUP!r}); "
            f"reinstall the package (pip install -e .) or pass an agent object with act(state)"
        )
    resolver = (found.get("mancala_envs") or next(iter(found.values()))).load()
    return resolver(spec)


def resolve_opponent(opponent: Any) -> Any:
    """The opponent object of ``opponent``: None (uniformly random), a spec string, or an agent."""
    if opponent is None:
        return UniformRandomOpponent()
    if isinstance(opponent, str):
        opponent = agent_from_spec(opponent)
    if not callable(getattr(opponent, "act", None)):
        raise InvalidOptionError(
            f"opponent must be an agent spec string (e.g. 'greedy') or have an act(state) -> action method, "
            f"got {opponent!r}"
        )
    return opponent


class UniformRandomOpponent:
    """The default opponent: a uniformly random legal move, from its own seeded generator.

    It plays exactly as ``mancala_envs.agents.RandomAgent`` (same generator, same draws), but
    lives here so that the env layer needs nothing from the agents layer.
    """

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, state: State) -> int:
        legal = state.legal_actions()
        return int(legal[self.rng.integers(len(legal))])


class MancalaGymEnv(gymnasium.Env):
    """A registered game as a single-agent env against a fixed opponent (see module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": RENDER_FPS}
    _painter = None  # a render.Painter with render_mode "rgb_array" or "human"

    def __init__(
        self,
        game: str | Game = "kalah-v0",
        opponent: Any = None,
        learner_seat: int | str = "alternate",
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **options: Any,
    ):
        self.game = game_of(game, **options)
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise InvalidOptionError(
                f"illegal_action={illegal_action!r} is not allowed; use one of {', '.join(ILLEGAL_ACTION_MODES)}"
            )
        self.illegal_action = illegal_action
        if learner_seat not in (0, 1, "alternate", "random"):
            raise InvalidOptionError(
                f"learner_seat={learner_seat!r} is not allowed; use 0, 1, 'alternate' or 'random'"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError(
                f"render_mode={render_mode!r} is not supported; use one of {self.metadata['render_modes']} or None"
            )
        self._painter = None
        self._render_error: RenderUnavailableError | None = None
        if render_mode in PICTURE_MODES:
            try:
                self._painter = Painter(self.game, render_mode)
            except RenderUnavailableError as err:
                # SB3's make_vec_env asks every env for "rgb_array" in case frames are wanted:
                # without pygame the env still plays, and only render() says what to install.
                if render_mode != "rgb_array":
                    raise
                self._render_error = err
        self.opponent = resolve_opponent(opponent)
        self.learner_seat_mode = learner_seat
        self.render_mode = render_mode
        low, high = self.game.observation_bounds()
        self.observation_space = spaces.Box(low, high, (self.game.observation_size,), np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: State = self.game.new_state()
        self.seat = 0 if learner_seat == "alternate" else (learner_seat if learner_seat in (0, 1) else 0)
        self._episodes = 0
        self._ended_by_illegal = False  # the episode ended on an illegal learner action

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = checked_seed(seed, f"{self.game.env_id}: reset")
        start = start_option(self.game, options)
        super().reset(seed=seed)
        self._ended_by_illegal = False
        if seed is not None:
            self._episodes = 0  # a seeded reset restarts the alternation: same seed, same episode
        mode = self.learner_seat_mode
        if mode == "alternate":
            self.seat = self._episodes % 2
        elif mode == "random":
            self.seat = int(self.np_random.integers(2))
        else:
            self.seat = int(mode)
        self._episodes += 1
        opponent_reset = getattr(self.opponent, "reset", None)
        if callable(opponent_reset):
            opponent_reset(seed=int(self.np_random.integers(2**63 - 1)))
        if start is not None:
            return self._start_from(start)
        for _ in range(_RESET_ATTEMPTS):
            self.state = self.game.new_state(int(self.np_random.integers(2**63 - 1)))
            if self._painter is not None:
                self._painter.forget()
            self._play_opponent()
            if not self.state.is_terminal() and not self._truncated():
                if self.render_mode == "human":
                    self.render()
                return self._obs(), self._info()
        raise RuntimeError(
            f"{self.game.env_id}: the opponent ended {_RESET_ATTEMPTS} games in a row before the learner "
            f"could move; this board gives seat {self.seat} no move"
        )

    def _start_from(self, start: State):
        """Reset to a given position: the opponent moves first if it is its turn."""
        self.state = start
        if self._painter is not None:
            self._painter.forget()
        self._play_opponent()
        if self.state.is_terminal() or self._truncated():
            raise InvalidStateError(
                f"{self.game.env_id}: reset(options={{'state': ...}}): the game is over (or at max_plies) in that "
                f"position{' after the opponent' + chr(39) + 's moves' if self.state.plies != start.plies else ''}, "
                f"so the learner (seat {self.seat}) has no move"
            )
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action: Any):
        state = self.state
        if self._episode_over():
            raise IllegalActionError(f"{self.game.env_id}: the episode is over; call reset() before step()")
        action = self.game.check_action(action)  # an integer of the action space (core.checks)
        if self.illegal_action == "terminate" and not state.is_legal(action):
            return self._end_on_illegal(action)
        if self._painter is not None:
            self._painter.apply(state, action)
        else:
            state.apply(action)
        self._play_opponent()
        terminated = state.is_terminal()
        truncated = not terminated and self._truncated()
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False when the episode is over)."""
        if self._ended_by_illegal or self.state.current_player != self.seat:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.state.action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        if self._render_error is not None:
            raise self._render_error
        if self.render_mode == "ansi":
            return str(self.state)
        if self._painter is not None:
            return self._painter.render(self.state)
        return None

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()
        super().close()

    def _repr_svg_(self) -> str:
        """How a notebook shows the env (``env.unwrapped`` under Gymnasium's wrappers): the
        position as SVG, the last move ringed when the env draws pictures."""
        return self.state.to_svg(self._painter.last if self._painter is not None else None)

    # -- helpers -------------------------------------------------------------------------------
    def _truncated(self) -> bool:
        return self.state.is_truncated()

    def _episode_over(self) -> bool:
        return self._ended_by_illegal or self.state.is_terminal() or self._truncated()

    def _end_on_illegal(self, action: int):
        """PettingZoo's ``TerminateIllegalWrapper`` rule: the episode ends and the learner gets -1."""
        legal = self.state.legal_actions()
        self._ended_by_illegal = True
        info = self._info()
        info["illegal_action"] = action
        info["illegal_reason"] = f"action {action} is not legal in this position; legal actions are {legal}"
        return self._obs(), -1.0, True, False, info

    def _play_opponent(self) -> None:
        state = self.state
        while True:
            player = state.current_player
            if player < 0 or player == self.seat or self._truncated():
                return
            action = self.opponent.act(state.clone())
            try:
                if self._painter is not None:
                    self._painter.apply(state, action)
                else:
                    state.apply(action)
            except IllegalActionError as err:
                raise IllegalActionError(f"the opponent {self.opponent!r} chose an illegal action: {err}") from err

    def _obs(self) -> np.ndarray:
        return self.state.observation(self.seat)

    def _info(self) -> dict:
        mine, theirs = self.state.scores()[self.seat], self.state.scores()[1 - self.seat]
        return {
            "scores": [mine, theirs],
            "learner_seat": self.seat,
            "plies": self.state.plies,
            "action_mask": self.action_masks(),
        }
