"""Trained policies as agents: ``policy:PATH`` plays a saved MaskablePPO model.

``PATH`` is a model file written by ``mancala train`` (``final_model.zip``, a checkpoint)
or a run folder (its final model, else its latest checkpoint). The agent plays the
greedy action of the policy (``policy:PATH`` in tournaments and ``mancala play``, the
learner in evaluations).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.extras import install_command
from mancala_envs.core.game import State

from mancala_envs.agents.base import Agent
from .frozen_policy import PolicyOpponent


class PolicyLoadError(MancalaError):
    """A model path that does not hold a model this package can play."""


def resolve_model_path(path: str | Path) -> Path:
    """The model file behind ``path`` (a .zip, or a run folder)."""
    path = Path(path)
    if path.is_dir():
        for candidate in (path / "final_model.zip", path / "checkpoints" / "latest.zip"):
            if candidate.is_file():
                return candidate
        raise PolicyLoadError(
            f"{str(path)!r} is a folder without final_model.zip or checkpoints/latest.zip; "
            f"give a model file or a run folder written by 'mancala train'"
        )
    if not path.is_file():
        raise PolicyLoadError(f"no model at {str(path)!r}: give a .zip written by 'mancala train' or a run folder")
    return path


def load_model(path: str | Path) -> Any:
    """Load a MaskablePPO model (on the CPU), with a clear error for anything else."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:  # pragma: no cover - the train extra is missing
        raise PolicyLoadError(f"policy agents need the train extra: {install_command('train')}") from err
    file = resolve_model_path(path)
    try:
        return MaskablePPO.load(str(file), device="cpu")
    except Exception as err:  # noqa: BLE001 - SB3 raises many kinds for a bad file
        raise PolicyLoadError(f"{str(file)!r} is not a MaskablePPO model this package can load: {err}") from None


class PolicyAgent(Agent):
    """A trained policy choosing moves through ``act(state)``."""

    name = "policy"

    def __init__(self, model: Any, seed: int | None = None, name: str | None = None):
        super().__init__(seed)
        if isinstance(model, (str, Path)):
            name = name or f"policy:{model}"
            model = load_model(model)
        self._actor = PolicyOpponent.snapshot(model, deterministic=True)
        self.observation_size = int(np.prod(model.observation_space.shape))
        self.num_actions = int(model.action_space.n)
        if name:
            self.name = name

    def check_game(self, game) -> None:
        """Refuse a game whose observation or action space does not fit the model."""
        if (game.observation_size, game.num_actions) != (self.observation_size, self.num_actions):
            raise PolicyLoadError(
                f"{self.name} was trained on observations of size {self.observation_size} and "
                f"{self.num_actions} actions; {game.env_id} with these options has "
                f"{game.observation_size} and {game.num_actions}"
            )

    def act(self, state: State) -> int:
        self.check_game(state.game)
        player = state.current_player
        obs = state.observation(player)[None, :]
        mask = state.action_mask().astype(bool)[None, :]
        return int(self._actor(obs, mask, self.rng)[0])

