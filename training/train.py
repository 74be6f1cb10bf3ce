"""``make_trainer``: the trainer of a config's ``algo`` (the registry: ``algorithms.ALGORITHMS``).

This module imports no trainer at its top: ``make_trainer`` imports the chosen one (torch,
SB3 or Ray) when a run starts, so ``mancala`` loads without them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

from .algorithms import ALGORITHMS
from .config import TrainConfig
from .checkpoint import RunState


def make_trainer(config: TrainConfig, run_dir: Path, state: RunState, echo: Callable[[str], None] = print):
    """The trainer of ``config.algo`` for a run in ``run_dir`` (its module imported now: torch, SB3 or Ray)."""
    module, _, name = ALGORITHMS[config.algo].trainer.partition(":")
    trainer = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return trainer(config, run_dir, state, echo)
