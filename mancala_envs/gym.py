"""Single-agent Gymnasium env: a learner against a fixed opponent, for any registered game.

``MancalaGymEnv("kalah-v0", opponent=None, learner_seat="alternate", **options)``

* ``opponent``: any object with ``act(state) -> action`` (an agent of ``mancala_envs.agents``, or
  your own); ``reset(seed=...)`` is called on it when it has one. Default:
  ``UniformRandomOpponent``, a seeded uniformly random player.
  It receives a clone of the position, never the live one.
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
  step). The pictures need ``pip install "mancala-envs[render]"``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .core.errors import IllegalActionError, InvalidOptionError
from .core.game import Game, State
from .registry import game_of
from .render import PICTURE_MODES, RENDER_FPS, Painter

_RESET_ATTEMPTS = 100


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
        **options: Any,
    ):
        self.game = game_of(game, **options)
        if learner_seat not in (0, 1, "alternate", "random"):
            raise InvalidOptionError(
                f"learner_seat={learner_seat!r} is not allowed; use 0, 1, 'alternate' or 'random'"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError(
                f"render_mode={render_mode!r} is not supported; use one of {self.metadata['render_modes']} or None"
            )
        self._painter = None
        if render_mode in PICTURE_MODES:
            self._painter = Painter(self.game, render_mode)
        if opponent is None:
            opponent = UniformRandomOpponent()
        if not callable(getattr(opponent, "act", None)):
            raise InvalidOptionError(f"opponent must have an act(state) -> action method, got {opponent!r}")
        self.opponent = opponent
        self.learner_seat_mode = learner_seat
        self.render_mode = render_mode
        low, high = self.game.observation_bounds()
        self.observation_space = spaces.Box(low, high, (self.game.observation_size,), np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: State = self.game.new_state()
        self.seat = 0 if learner_seat == "alternate" else (learner_seat if learner_seat in (0, 1) else 0)
        self._episodes = 0

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
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

    def step(self, action: Any):
        state = self.state
        if state.is_terminal() or self._truncated():
            raise IllegalActionError(f"{self.game.env_id}: the episode is over; call reset() before step()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
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
        if self.state.current_player != self.seat:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.state.action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return str(self.state)
        if self._painter is not None:
            return self._painter.render(self.state)
        return None

    def close(self) -> None:
        if self._painter is not None:
            self._painter.close()
        super().close()

    # -- helpers -------------------------------------------------------------------------------
    def _truncated(self) -> bool:
        return self.state.is_truncated()

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
