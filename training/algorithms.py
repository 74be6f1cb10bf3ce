"""The training algorithms of ``mancala train``, in one registry (``ALGORITHMS``).

A config's ``algo`` names one entry of ``ALGORITHMS``. The entry says which trainer class runs
it and which parts of the config it reads: the keys every run reads (``COMMON_KEYS``), its
own top-level keys and its sections. ``mancala_envs.training.config`` validates only those,
refuses a key the algorithm would ignore (naming what it reads and, where there is one, the
key meant), and writes only those to a run's ``config.yaml``.

* ``search-bootstrap`` (the main job): ``search_bootstrap.SearchBootstrapTrainer``, a learned
  evaluation trained from self-play search; reads ``value``, ``eval``, and ``backend`` and
  ``ray_address`` (where its self-play games are played).
* ``ppo``: ``ppo.PPOTrainer``, sb3-contrib's MaskablePPO by self-play against a pool of
  opponents; reads ``ppo``, ``pool``, ``eval`` and the run-length keys (``total_timesteps``,
  ``num_envs``, ``checkpoint_every``, ``backend``, ``ray_address``).
* ``rllib_ppo``: ``rllib_trainer.RLlibTrainer``, RLlib's PPO on Ray; reads ``ppo``, ``rllib``,
  ``pool``, ``eval`` and the run-length keys but ``num_envs``.

This module is plain data (the config imports it); ``mancala_envs.training.train.make_trainer``
builds the chosen trainer, importing its module (torch, SB3 or Ray) only then.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The top-level keys every algorithm reads.
COMMON_KEYS = ("env_id", "options", "seed", "torch_threads", "runs_dir", "name", "algo")


@dataclass(frozen=True)
class Algorithm:
    """One training algorithm: its trainer and the parts of the config it reads."""

    name: str  # the config's algo
    trainer: str  # "module:Class" inside mancala_envs.training, imported by make_trainer
    sections: tuple[str, ...]  # the config sections it reads
    keys: tuple[str, ...] = ()  # top-level keys it reads besides COMMON_KEYS
    # keys it does not read although their section is read, or top-level keys people give it by
    # habit, each with what to do instead
    instead: dict[str, str] = field(default_factory=dict)

    def reads(self, key: str) -> bool:
        """Whether this algorithm reads the dotted config ``key`` (``seed``, ``value.depth``, ``ppo``)."""
        if key in self.instead:
            return False
        head = key.split(".", 1)[0]
        return head in self.sections or ("." not in key and (key in COMMON_KEYS or key in self.keys))

    def describe(self) -> str:
        """What it reads, for error messages."""
        return (f"it reads the sections {', '.join(self.sections)} and the top-level keys "
                f"{', '.join(COMMON_KEYS + self.keys)}")


_RUN_LENGTH = ("total_timesteps", "checkpoint_every", "backend", "ray_address")

ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    Algorithm("ppo", "ppo:PPOTrainer", ("ppo", "pool", "eval"), _RUN_LENGTH + ("num_envs",)),
    Algorithm("search-bootstrap", "search_bootstrap:SearchBootstrapTrainer", ("value", "eval"),
              ("backend", "ray_address"), instead={
        "total_timesteps": "give value.iterations (rounds of self-play games, then fitting)",
        "num_envs": "give value.games (self-play games per iteration) or value.workers (processes or Ray actors)",
        "checkpoint_every": "leave it out: a checkpoint is written after every iteration",
        "eval.every": "give value.eval_every (iterations between evaluations)",
    }),
    Algorithm("rllib_ppo", "rllib_trainer:RLlibTrainer", ("ppo", "rllib", "pool", "eval"), _RUN_LENGTH, instead={
        "num_envs": "give rllib.num_envs_per_env_runner (games each env runner plays side by side)",
        "ppo.n_steps": "give rllib.train_batch_size (env steps sampled per training iteration)",
    }),
)}
