"""What every trainer (PPO, search-bootstrap, RLlib) shares: its run folder and state, the game,
and the opening suites of its evaluations.

Each kind of evaluation draws its own suite, seeded by the config's seed plus the kind's offset
(``SUITE_LADDER``, ``SUITE_PERIODIC``, ``SUITE_FINAL``): the same config gives the same suites
under every trainer, and a resumed run evaluates on the suites it started with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import torch

from mancala_envs.evaluation.openings import OpeningSuite, opening_suite
from mancala_envs.registry import make_game

from .config import TrainConfig
from .checkpoint import RunState

SUITE_LADDER, SUITE_PERIODIC, SUITE_FINAL = 11, 22, 99


class RunTrainer:
    """One training run in its folder; subclasses add their algorithm."""

    def __init__(self, config: TrainConfig, run_dir: Path, state: RunState, echo: Callable[[str], None] = print):
        self.config = config
        self.run_dir = run_dir
        self.state = state
        self.echo = echo
        torch.set_num_threads(config.torch_threads)  # small networks: threads cost more than they give
        self.game = make_game(config.env_id, **config.options)
        self._periodic_suite: OpeningSuite | None = None  # drawn at the first evaluation

    def _suite(self, openings: int, purpose: int) -> OpeningSuite:
        """The opening suite of one kind of evaluation: the same for the same config and purpose."""
        plies = tuple(self.config.eval.opening_plies) or None
        return opening_suite(self.game, openings, plies, seed=self.config.seed + purpose)
