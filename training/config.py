"""Typed training configuration, read from YAML in ``configs/`` with command-line overrides.

A config file is a mapping with the sections below; anything it leaves out keeps the
default documented here. Unknown keys and values of the wrong type are refused with the
list of valid keys. ``key=value`` overrides use dotted paths: ``ppo.learning_rate=1e-4``,
``total_timesteps=20000``, ``options.pits=4``.

.. code-block:: yaml

    env_id: kalah-v0
    total_timesteps: 1000000
    ppo: {learning_rate: 3.0e-4, n_steps: 256}
    pool: {snapshot_every: 50000, keep_last: 5}
    eval: {every: 100000, openings: 20, ladder: [random, greedy, "alphabeta:depth=2"]}
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from mancala_envs.agents import make_agent
from mancala_envs.core.encodings import ENCODINGS
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import make_game


class ConfigError(MancalaError):
    """A config file or override that cannot be used; the message says what and what is allowed."""


@dataclass
class PPOConfig:
    """MaskablePPO hyper-parameters (see sb3-contrib's MaskablePPO)."""

    learning_rate: float = 3e-4  # Adam step size
    n_steps: int = 128  # rollout length per game before each update
    batch_size: int = 256  # minibatch size
    n_epochs: int = 4  # passes over each rollout
    gamma: float = 0.99  # discount
    gae_lambda: float = 0.95  # GAE lambda
    clip_range: float = 0.2  # PPO clip
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    net_arch: list[int] = field(default_factory=lambda: [64, 64])  # hidden layers of policy and value nets
    activation: str = "relu"  # hidden-layer activation of both nets: "relu" or "tanh"
    obs_encoding: str = "counts"  # network input: a name of mancala_envs.core.encodings.ENCODINGS (e.g. onehot)
    observation_transform: str = "none"  # "log1p": log(1 + counts) instead (obs_encoding counts only; no evaluation.npz)
    margin_reward: float = 0.0  # 0..1: weight of the final score margin in the terminal reward (training.selfplay)


@dataclass
class PoolConfig:
    """Opponents of the learner: frozen snapshots of itself plus baseline agents."""

    snapshot_every: int = 20000  # learner steps between snapshots
    keep_last: int = 5  # snapshots kept in the pool (oldest dropped)
    snapshot_weight: float = 1.0  # sampling weight of each snapshot
    baselines: dict[str, float] = field(default_factory=lambda: {"random": 1.0})  # agent spec -> sampling weight
    opening_plies: list[int] = field(default_factory=lambda: [2, 6])  # [lo, hi] random plies before each game against a baseline other than random


@dataclass
class EvalConfig:
    """Evaluation against a ladder of agents over opening suites, each opening from both seats."""

    every: int = 20000  # learner steps between evaluations
    openings: int = 10  # openings per ladder agent at each evaluation (the same suite every time)
    final_openings: int = 100  # openings per ladder agent at the end (a suite of its own)
    opening_plies: list[int] = field(default_factory=list)  # [lo, hi] random plies per opening; [] = the game's default
    ladder: list[str] = field(default_factory=lambda: ["random", "greedy"])  # agent specs
    ladder_openings: int = 10  # openings per pair of ladder agents, to anchor their ratings (0: none)


@dataclass
class TrainConfig:
    """A self-play training run."""

    env_id: str = "kalah-v0"  # registered id
    options: dict[str, Any] = field(default_factory=dict)  # game options overriding the id's preset
    total_timesteps: int = 200000  # learner steps to train for
    num_envs: int = 32  # games played in parallel
    seed: int = 0  # seed of games, opponents and network
    torch_threads: int = 1  # torch threads (1 is fastest for small networks on a 2-core machine)
    checkpoint_every: int = 20000  # learner steps between checkpoints
    runs_dir: str = "runs"  # where run folders are created
    name: str = ""  # run folder name prefix (default: the env id)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    def validate(self) -> None:
        """Semantic checks the types cannot express."""
        make_game(self.env_id, **self.options)  # unknown id / option: the registry's message
        positive = {
            "total_timesteps": self.total_timesteps,
            "num_envs": self.num_envs,
            "torch_threads": self.torch_threads,
            "checkpoint_every": self.checkpoint_every,
            "ppo.n_steps": self.ppo.n_steps,
            "ppo.batch_size": self.ppo.batch_size,
            "ppo.n_epochs": self.ppo.n_epochs,
            "pool.snapshot_every": self.pool.snapshot_every,
            "pool.keep_last": self.pool.keep_last,
            "eval.every": self.eval.every,
            "eval.openings": self.eval.openings,
            "eval.final_openings": self.eval.final_openings,
        }
        for key, value in positive.items():
            if value < 1:
                raise ConfigError(f"{key} must be at least 1, got {value}")
        if self.eval.ladder_openings < 0:
            raise ConfigError(f"eval.ladder_openings must be >= 0, got {self.eval.ladder_openings}")
        plies = self.eval.opening_plies
        if plies and (len(plies) != 2 or not 0 <= plies[0] <= plies[1]):
            raise ConfigError(f"eval.opening_plies must be [] or [lo, hi] with 0 <= lo <= hi, got {plies}")
        if not self.ppo.learning_rate > 0:
            raise ConfigError(f"ppo.learning_rate must be positive, got {self.ppo.learning_rate}")
        if not self.ppo.net_arch or any(n < 1 for n in self.ppo.net_arch):
            raise ConfigError(f"ppo.net_arch must list positive layer sizes, got {self.ppo.net_arch}")
        self._validate_ppo_inputs()
        if not self.pool.baselines:
            raise ConfigError("pool.baselines must name at least one agent (e.g. {random: 1.0})")
        plies = self.pool.opening_plies
        if len(plies) != 2 or not 0 <= plies[0] <= plies[1]:
            raise ConfigError(f"pool.opening_plies must be [lo, hi] with 0 <= lo <= hi, got {plies}")
        fixed = [spec for spec in self.pool.baselines if spec != "random"]
        if fixed and plies[1] == 0:
            raise ConfigError(
                f"pool.baselines {', '.join(fixed)} play (nearly) the same game from the same position: "
                f"give pool.opening_plies [lo, hi] with hi >= 1 so their games start from random openings")
        for spec in list(self.pool.baselines) + list(self.eval.ladder):
            make_agent(spec)  # the agent spec errors name the known agents
        for spec, weight in self.pool.baselines.items():
            if not weight > 0:
                raise ConfigError(f"pool.baselines[{spec!r}] must be a positive weight, got {weight}")
        if "random" not in self.eval.ladder:
            raise ConfigError("eval.ladder must include 'random': ratings are anchored at random = 0")

    def _validate_ppo_inputs(self) -> None:
        """The network's input, activation and reward shaping (``ppo``)."""
        from mancala_envs.agents.features import OBSERVATION_TRANSFORMS  # imports torch, which `mancala list` must not need

        ppo = self.ppo
        if ppo.observation_transform not in OBSERVATION_TRANSFORMS:
            raise ConfigError(
                f"ppo.observation_transform must be one of {', '.join(OBSERVATION_TRANSFORMS)}, "
                f"got {ppo.observation_transform!r}"
            )
        if ppo.obs_encoding not in ENCODINGS:
            raise ConfigError(f"ppo.obs_encoding must be one of {', '.join(ENCODINGS)}, got {ppo.obs_encoding!r}")
        if ppo.observation_transform != "none" and ppo.obs_encoding != "counts":
            raise ConfigError(f"ppo.observation_transform {ppo.observation_transform!r} transforms raw counts: "
                              f"it needs ppo.obs_encoding counts, got {ppo.obs_encoding!r}")
        if ppo.activation not in ("relu", "tanh"):
            raise ConfigError(f"ppo.activation must be relu or tanh, got {ppo.activation!r}")
        if not 0.0 <= ppo.margin_reward <= 1.0:
            raise ConfigError(f"ppo.margin_reward must be between 0 and 1, got {ppo.margin_reward}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# -- reading ----------------------------------------------------------------------------------------
def _check_value(value: Any, hint: Any, where: str) -> Any:
    """Return ``value`` as type ``hint`` or raise ConfigError naming ``where``."""
    origin = get_origin(hint)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a mapping of {', '.join(f.name for f in fields(hint))}")
        return _build(hint, value, where + ".")
    if origin is list:
        (item,) = get_args(hint)
        if not isinstance(value, list):
            raise ConfigError(f"{where} must be a list, got {value!r}")
        return [_check_value(v, item, f"{where}[{k}]") for k, v in enumerate(value)]
    if origin is dict:
        key_type, value_type = get_args(hint)
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a mapping, got {value!r}")
        return {_check_value(k, key_type, where): _check_value(v, value_type, f"{where}[{k!r}]") for k, v in value.items()}
    if hint is Any:
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number, got {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be an integer, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {value!r}")
        return value
    raise ConfigError(f"{where}: unsupported type {hint}")  # pragma: no cover - our declarations


def _build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    hints = get_type_hints(cls)
    names = [f.name for f in fields(cls)]
    unknown = [k for k in data if k not in names]
    if unknown:
        raise ConfigError(
            f"unknown config key{'s' if len(unknown) > 1 else ''} {', '.join(prefix + str(k) for k in unknown)}; "
            f"valid keys{' in ' + prefix.rstrip('.') if prefix else ''}: {', '.join(names)}"
        )
    values = {k: _check_value(v, hints[k], prefix + k) for k, v in data.items()}
    return cls(**values)


def _parse_scalar(text: str) -> Any:
    """A command-line value: YAML scalar rules (numbers, true/false, lists like [64,64])."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``a.b=value`` overrides to a raw config mapping (a copy)."""
    data = json.loads(json.dumps(data))
    for item in overrides:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ConfigError(f"an override must look like key=value (e.g. total_timesteps=20000), got {item!r}")
        target = data
        parts = key.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ConfigError(f"override {item!r}: {part} is not a section")
        target[parts[-1]] = _parse_scalar(value)
    return data


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (or the defaults when ``path`` is None), apply overrides, validate."""
    import yaml

    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"cannot read config {str(path)!r}: {err.strerror}") from None
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as err:
            raise ConfigError(f"{str(path)!r} is not valid YAML: {err}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{str(path)!r} must hold a mapping of config keys, got {type(data).__name__}")
    data = apply_overrides(data, overrides or [])
    config = _build(TrainConfig, data)
    config.validate()
    return config


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Rebuild a config saved with ``to_dict`` (used when resuming a run)."""
    config = _build(TrainConfig, data)
    config.validate()
    return config
