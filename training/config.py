"""Typed training configuration, read from YAML in ``configs/`` with command-line overrides.

A config file is a mapping with the sections below; anything it leaves out keeps the
default documented here. ``algo`` picks the trainer (``mancala_envs.training.algorithms``), and
each algorithm reads only some sections and keys: ``search-bootstrap`` (the main job)
``value``, ``eval``, ``backend`` and ``ray_address``; ``ppo`` the ``ppo``, ``pool`` and ``eval`` sections and the
run-length keys; ``rllib_ppo`` those plus ``rllib``. Only what the algorithm reads is
validated and saved with a run, and a key it does not read is refused (in the file or an
override), with the key probably meant: an ignored setting is an error, not a no-op.
Unknown keys and values of the wrong type are refused with the list of valid keys.
``key=value`` overrides use dotted paths: ``value.iterations=5``,
``value.policy.teacher=plain``, ``options.pits=4``.

.. code-block:: yaml

    env_id: kalah-v0
    algo: search-bootstrap
    value: {iterations: 20, games: 80, depth: 4, policy: {teacher: plain}}
    eval: {openings: 10, ladder: [random, greedy, "alphabeta:depth=4"]}
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib.resources
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, get_args, get_origin, get_type_hints

from mancala_envs.agents import make_agent
from mancala_envs.agents.endgame import EndgameError, check_supported
from mancala_envs.core.encodings import ENCODINGS
from mancala_envs.core.errors import MancalaError
from mancala_envs.agents.learned.move_features import FEATURE_SETS, MoveFeatureError, move_feature_set
from mancala_envs.evaluation.arena import BACKENDS  # where evaluations play their games
from mancala_envs.core.extras import require_extra
from mancala_envs.registry import make_game

from .algorithms import ALGORITHMS, Algorithm


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
class PolicyConfig:
    """The policy head of the value trainer (``value.policy``): its teacher, its network and its fitting."""

    teacher: str = "search"  # its target: "search" (the self-play search's move) or "plain" (plain alpha-beta's)
    teacher_depth: int = 0  # with teacher plain: plies the plain teacher searches (0: value.depth)
    # > 0: soft targets, the softmax of every root move's value / this: plain alpha-beta's (teacher plain, a score
    # difference) or the self-play search's with the evaluation (teacher search, on the [-1, 1] scale)
    temperature: float = 0.0
    # > 0 (teacher plain): games per iteration of the bare policy against random, labelled by the teacher,
    # fitted by the policy only
    dagger_games: int = 0
    hidden: list[int] = field(default_factory=list)  # the policy network's own hidden layers (empty: value.hidden)
    move_hidden: list[int] = field(default_factory=list)  # with move features: the move scorer's layers ([]: none)
    # "moves" (with value.features none): the policy alone reads the game's move features; the value, and so the
    # alpha-beta search that reads only the value, does not compute them at its leaves
    features: str = "none"
    epochs: int = 0  # passes per iteration (0: value.epochs; the value head keeps value.epochs)
    replay: int = 0  # positions it is fitted on (the newest; 0: value.replay; more suits a plain teacher)
    average: float = 0.0  # > 0: the exported policy is a moving average of its weights over iterations, this decay
    weight_decay: float = 0.0  # > 0: the policy MLP's decoupled weight decay (AdamW), per unit of learning rate


@dataclass
class ValueConfig:
    """The value trainer (``algo: search-bootstrap``, ``mancala_envs.training.search_bootstrap``)."""

    iterations: int = 10  # rounds of self-play then fitting
    games: int = 64  # self-play games per iteration (split over the workers)
    depth: int = 3  # plies each self-play move searches (leaves valued by the current evaluation)
    random_plies: int = 8  # each game opens with 0..random_plies uniformly random moves
    epsilon: float = 0.05  # chance of a random move after the opening (the position is still labelled)
    outcome_weight: float = 0.25  # share of the game's result in the value target (the rest: the search value)
    margin_scale: float = 6.0  # before any evaluation exists, search values are tanh(score difference / this)
    # the game's end in the value target: "result" (+1/0/-1 for the mover) or "margin" (tanh(final score
    # difference / margin_scale), so the value learns by how much, as perfect play maximises)
    result_target: str = "result"
    # the exact value of every position the game's endgame database holds (Kalah) replaces its target (the
    # result or margin of perfect play, on the result_target's scale): free supervision for the endgame
    endgame_targets: bool = False
    score_blend: bool = False  # the evaluation is tanh(score difference / margin_scale) + the network (a correction)
    holdout: float = 0.1  # with score_blend: share of positions never fitted, which set the network's gain (0: gain 1)
    encoding: str = "onehot"  # network input (mancala_envs.core.encodings.ENCODINGS)
    features: str = "none"  # "moves": the game's move features added to the input (mancala_envs.agents.learned.move_features)
    hidden: list[int] = field(default_factory=lambda: [64])  # hidden layers of the value network (and the policy's)
    activation: str = "relu"  # hidden activation: relu or tanh
    learning_rate: float = 1e-3  # Adam step size
    epochs: int = 3  # passes over the replay buffer per iteration
    batch_size: int = 256  # minibatch size
    replay: int = 60000  # positions kept (the newest)
    workers: int = 2  # self-play processes (backend ray: actors); 0: one per core (ray: per free CPU of the cluster)
    eval_every: int = 5  # iterations between evaluations of the search agent
    eval_depth: int = 4  # depth of the search agent evaluated (alphabeta:depth=eval_depth,eval=RUN_DIR)
    policy: PolicyConfig = field(default_factory=PolicyConfig)  # the policy head


@dataclass
class RLlibConfig:
    """RLlib's PPO (``algo: rllib_ppo``, ``mancala_envs.training.rllib_trainer``); the ``ppo`` section's
    hyper-parameters and network apply, ``ppo.batch_size`` is the minibatch."""

    num_env_runners: int = 0  # sampling processes (actors, spread over the cluster); 0: sample in the driver
    num_envs_per_env_runner: int = 8  # games each env runner plays side by side
    num_learners: int = 0  # learner processes (0: learn in the driver)
    train_batch_size: int = 2048  # env steps sampled per training iteration


@dataclass
class TrainConfig:
    """A self-play training run."""

    env_id: str = "kalah-v0"  # registered id
    options: dict[str, Any] = field(default_factory=dict)  # game options overriding the id's preset
    total_timesteps: int = 200000  # learner steps to train for
    num_envs: int = 32  # games played in parallel
    seed: int = 0  # seed of games, opponents and network
    torch_threads: int = 1  # torch threads (small networks: more threads cost more than they give)
    checkpoint_every: int = 20000  # learner steps between checkpoints
    runs_dir: str = "runs"  # where run folders are created
    name: str = ""  # run folder name prefix (default: the env id)
    # the trainer (mancala_envs.training.algorithms.ALGORITHMS): "search-bootstrap" (a learned evaluation
    # from self-play search: the value section), "ppo" (MaskablePPO self-play: the ppo and pool
    # sections), "rllib_ppo" (RLlib's PPO: the ppo, rllib and pool sections)
    algo: str = "ppo"
    # where games play, "local" processes or "ray" (the cluster at ray_address): ppo and rllib_ppo, their
    # evaluations'; search-bootstrap, its self-play games (mancala_envs.training.selfplay_backends)
    backend: str = "local"
    # the Ray cluster of backend ray and rllib_ppo: "auto", HOST:PORT, ray://HOST:PORT; "": a local Ray
    ray_address: str = ""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    value: ValueConfig = field(default_factory=ValueConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)

    @property
    def algorithm(self) -> Algorithm:
        """The registry entry of ``algo`` (``mancala_envs.training.algorithms.ALGORITHMS``)."""
        if self.algo not in ALGORITHMS:
            raise ConfigError(f"algo must be one of {', '.join(ALGORITHMS)}, got {self.algo!r}")
        return ALGORITHMS[self.algo]

    def validate(self) -> None:
        """Semantic checks the types cannot express, of the parts of the config the algorithm reads."""
        make_game(self.env_id, **self.options)  # unknown id / option: the registry's message
        algorithm = self.algorithm
        check_bounds(self, reads=algorithm.reads)
        if algorithm.reads("backend"):
            if self.backend not in BACKENDS:
                raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
            if self.backend == "ray":
                require_extra("ray", "ray", "backend: ray")
        self._validate_eval()
        checks = [SECTION_CHECKS.get(section) for section in algorithm.sections] + [ALGORITHM_CHECKS.get(self.algo)]
        for check in filter(None, checks):
            check(self)

    def _validate_eval(self) -> None:
        plies = self.eval.opening_plies
        if plies and (len(plies) != 2 or not 0 <= plies[0] <= plies[1]):
            raise ConfigError(f"eval.opening_plies must be [] or [lo, hi] with 0 <= lo <= hi, got {plies}")
        for spec in self.eval.ladder:
            make_agent(spec)  # the agent spec errors name the known agents
        if "random" not in self.eval.ladder:
            raise ConfigError("eval.ladder must include 'random': ratings are anchored at random = 0")

    def _validate_pool(self) -> None:
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
        for spec in self.pool.baselines:
            make_agent(spec)  # the agent spec errors name the known agents

    def _validate_rollout(self) -> None:
        """SB3's rollout of ``num_envs * ppo.n_steps`` transitions splits into whole minibatches."""
        rollout = self.num_envs * self.ppo.n_steps
        if rollout % self.ppo.batch_size:
            raise ConfigError(
                f"ppo.batch_size={self.ppo.batch_size} must divide the rollout of num_envs * ppo.n_steps = "
                f"{self.num_envs} * {self.ppo.n_steps} = {rollout} transitions (SB3 would train on a partial "
                f"minibatch); e.g. ppo.batch_size={_largest_divisor(rollout, self.ppo.batch_size)}"
            )

    def _validate_value(self) -> None:
        """The value section's names (its numbers are checked by ``NUMBER_BOUNDS``)."""
        v = self.value
        if v.encoding not in ENCODINGS:
            raise ConfigError(f"value.encoding must be one of {', '.join(ENCODINGS)}, got {v.encoding!r}")
        if v.activation not in ("relu", "tanh"):
            raise ConfigError(f"value.activation must be relu or tanh, got {v.activation!r}")
        policy = v.policy
        if policy.teacher not in ("search", "plain"):
            raise ConfigError(f"value.policy.teacher must be search or plain, got {policy.teacher!r}")
        if v.result_target not in ("result", "margin"):
            raise ConfigError(f"value.result_target must be result or margin, got {v.result_target!r}")
        if v.endgame_targets:
            try:
                check_supported(make_game(self.env_id, **self.options))
            except EndgameError as err:
                raise ConfigError(f"value.endgame_targets needs a game with an endgame database: {err}") from None
        for key, needs in (("teacher_depth", "the depth of plain alpha-beta teaching the policy"),
                           ("dagger_games", "plain alpha-beta labels the positions the bare policy reaches")):
            if getattr(policy, key) > 0 and policy.teacher != "plain":
                raise ConfigError(f"value.policy.{key} > 0 needs value.policy.teacher: plain ({needs})")
        try:
            game = make_game(self.env_id, **self.options)
            move_feature_set(v.features, game)
        except MoveFeatureError as err:
            raise ConfigError(f"value.features: {err}") from None
        if policy.features not in FEATURE_SETS:
            raise ConfigError(f"value.policy.features must be one of {', '.join(FEATURE_SETS)}, got {policy.features!r}")
        if policy.features == "moves" and v.features == "moves":
            raise ConfigError("value.policy.features: moves is for the policy alone; value.features: moves already "
                              "gives the move features to both heads: set one of them")
        try:
            move_feature_set(policy.features, game)
        except MoveFeatureError as err:
            raise ConfigError(f"value.policy.features: {err}") from None
        if policy.move_hidden and "moves" not in (v.features, policy.features):
            raise ConfigError("value.policy.move_hidden needs move features (value.features: moves, or "
                              "value.policy.features: moves): the move scorer reads each move's block of them")

    def _validate_selfplay_backend(self) -> None:
        """``ray_address`` names the cluster of ``backend: ray``: with the local backend nothing would read it."""
        if self.ray_address and self.backend != "ray":
            raise ConfigError(f"ray_address={self.ray_address!r} names the Ray cluster of the self-play games, "
                              f"which backend {self.backend!r} does not use: give backend=ray, or leave "
                              f"ray_address out")

    def _validate_rllib(self) -> None:
        """What RLlib's PPO takes from the ppo section."""
        require_extra("ray", "ray", "algo: rllib_ppo")
        if self.rllib.train_batch_size < self.ppo.batch_size:
            raise ConfigError(f"rllib.train_batch_size ({self.rllib.train_batch_size}) must be at least the "
                              f"minibatch ppo.batch_size ({self.ppo.batch_size})")
        if self.ppo.observation_transform != "none" or self.ppo.margin_reward:
            raise ConfigError("algo rllib_ppo reads the network input from ppo.obs_encoding and rewards +1/-1/0: "
                              "leave ppo.observation_transform none and ppo.margin_reward 0")

    def _validate_ppo(self) -> None:
        """The network's layers, input, activation and reward shaping (``ppo``)."""
        from mancala_envs.agents.learned.features import OBSERVATION_TRANSFORMS  # imports torch, which `mancala list` must not need

        ppo = self.ppo
        if not ppo.net_arch:
            raise ConfigError("ppo.net_arch must list at least one layer size, got []")
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

    def to_dict(self) -> dict[str, Any]:
        """The keys the algorithm reads (what ``--dry-run`` prints and a run's ``config.yaml`` holds)."""
        return _only_read(dataclasses.asdict(self), self.algorithm)


# What each section's values must satisfy beyond their types and ranges, run for the sections the
# chosen algorithm reads (``eval`` is checked for every algorithm: each reads it), then what an
# algorithm needs of the sections together.
SECTION_CHECKS: dict[str, Callable[[TrainConfig], None]] = {
    "ppo": TrainConfig._validate_ppo,
    "pool": TrainConfig._validate_pool,
    "value": TrainConfig._validate_value,
}
ALGORITHM_CHECKS: dict[str, Callable[[TrainConfig], None]] = {
    "ppo": TrainConfig._validate_rollout,
    "search-bootstrap": TrainConfig._validate_selfplay_backend,
    "rllib_ppo": TrainConfig._validate_rllib,
}


def _only_read(data: dict[str, Any], algorithm: Algorithm, prefix: str = "") -> dict[str, Any]:
    """``data`` (a config mapping) without the keys ``algorithm`` does not read."""
    kept = {}
    for key, value in data.items():
        if not algorithm.reads(prefix + key):
            continue
        kept[key] = _only_read(value, algorithm, f"{prefix}{key}.") if not prefix and isinstance(value, dict) \
            and key in algorithm.sections else value
    return kept


def refuse_unread(data: dict[str, Any], algorithm: Algorithm, where: str) -> None:
    """Refuse a key of ``data`` (config keys as given in a file or overrides) that ``algorithm`` does not
    read, naming it, ``where`` it was given, what the algorithm reads and the key probably meant."""
    given = [key for key in data if not algorithm.reads(key)]
    given += [f"{section}.{key}" for section in algorithm.sections if isinstance(data.get(section), dict)
              for key in data[section] if not algorithm.reads(f"{section}.{key}")]
    if not given:
        return
    key = given[0]
    value = data.get(key.split(".")[0])
    if "." not in key and isinstance(value, dict) and value:  # a whole section: name its first key
        key = f"{key}.{next(iter(value))}"
    meant = _meant(key, algorithm)
    raise ConfigError(f"{key} ({where}) is not used by algo {algorithm.name}: {algorithm.describe()}"
                      + (f"; {meant}" if meant else ""))


def _meant(key: str, algorithm: Algorithm) -> str:
    """What a user giving ``key`` probably meant, as advice: the registry's word for it, else a key
    ``algorithm`` reads of the same name or a close spelling ("" if none is close)."""
    if key in algorithm.instead:
        return algorithm.instead[key]
    read = [k for k in _dotted_keys(TrainConfig) if algorithm.reads(k)]
    leaf = key.rsplit(".", 1)[-1]
    same_name = [k for k in read if k.rsplit(".", 1)[-1] == leaf]
    close = same_name or difflib.get_close_matches(key, read, n=1, cutoff=0.75)
    return f"did you mean {close[0]}?" if close else ""


def _dotted_keys(cls: type, prefix: str = "", sections: bool = False) -> list[str]:
    """Every leaf key of config class ``cls`` as a dotted path (``value.policy.teacher``), and with
    ``sections`` the paths of its sections too (``value``, ``value.policy``)."""
    keys = []
    for name, hint in get_type_hints(cls).items():
        if dataclasses.is_dataclass(hint):
            keys += [prefix + name] * sections + _dotted_keys(hint, f"{prefix}{name}.", sections)
        else:
            keys.append(prefix + name)
    return keys


# -- ranges -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bounds:
    """The allowed values of one number in a config: ``low <= x <= high`` (``low < x`` if ``above``)."""

    low: float | None = None
    high: float | None = None
    above: bool = False

    def admits(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high

    def describe(self) -> str:
        if self.low is not None and self.high is not None:
            return f"from {self.low:g} to {self.high:g}"
        if self.above:
            return f"greater than {self.low:g}"
        return f"at least {self.low:g}"


AT_LEAST_1, AT_LEAST_0, POSITIVE, FRACTION = Bounds(1), Bounds(0), Bounds(0, above=True), Bounds(0, 1)

# Every number a config holds, by dotted key; ``[]`` stands for each item of a list or each
# value of a mapping. A new numeric field needs its entry here (tests/test_config.py checks).
NUMBER_BOUNDS: dict[str, Bounds] = {
    "total_timesteps": AT_LEAST_1,
    "num_envs": AT_LEAST_1,
    "seed": AT_LEAST_0,
    "torch_threads": AT_LEAST_1,
    "checkpoint_every": AT_LEAST_1,
    "ppo.learning_rate": POSITIVE,
    "ppo.n_steps": AT_LEAST_1,
    "ppo.batch_size": Bounds(2),  # SB3 normalises advantages over each minibatch
    "ppo.n_epochs": AT_LEAST_1,
    "ppo.gamma": FRACTION,
    "ppo.gae_lambda": FRACTION,
    "ppo.clip_range": POSITIVE,
    "ppo.ent_coef": AT_LEAST_0,
    "ppo.vf_coef": AT_LEAST_0,
    "ppo.max_grad_norm": POSITIVE,
    "ppo.net_arch[]": AT_LEAST_1,
    "ppo.margin_reward": FRACTION,
    "pool.snapshot_every": AT_LEAST_1,
    "pool.keep_last": AT_LEAST_1,
    "pool.snapshot_weight": POSITIVE,
    "pool.baselines[]": POSITIVE,
    "pool.opening_plies[]": AT_LEAST_0,
    "eval.every": AT_LEAST_1,
    "eval.openings": AT_LEAST_1,
    "eval.final_openings": AT_LEAST_1,
    "eval.opening_plies[]": AT_LEAST_0,
    "eval.ladder_openings": AT_LEAST_0,
    "value.iterations": AT_LEAST_1,
    "value.games": AT_LEAST_1,
    "value.depth": AT_LEAST_1,
    "value.random_plies": AT_LEAST_0,
    "value.epsilon": FRACTION,
    "value.outcome_weight": FRACTION,
    "value.holdout": FRACTION,
    "value.margin_scale": POSITIVE,
    "value.hidden[]": AT_LEAST_1,
    "value.learning_rate": POSITIVE,
    "value.epochs": AT_LEAST_1,
    "value.batch_size": AT_LEAST_1,
    "value.replay": AT_LEAST_1,
    "value.workers": AT_LEAST_0,
    "value.eval_every": AT_LEAST_1,
    "value.eval_depth": AT_LEAST_1,
    "value.policy.teacher_depth": AT_LEAST_0,
    "value.policy.temperature": AT_LEAST_0,
    "value.policy.dagger_games": AT_LEAST_0,
    "value.policy.hidden[]": AT_LEAST_1,
    "value.policy.move_hidden[]": AT_LEAST_1,
    "value.policy.epochs": AT_LEAST_0,
    "value.policy.replay": AT_LEAST_0,
    "value.policy.average": Bounds(0, 0.99),
    "value.policy.weight_decay": AT_LEAST_0,
    "rllib.num_env_runners": AT_LEAST_0,
    "rllib.num_envs_per_env_runner": AT_LEAST_1,
    "rllib.num_learners": AT_LEAST_0,
    "rllib.train_batch_size": AT_LEAST_1,
}


def number_fields(cls: type, prefix: str = "") -> list[str]:
    """The dotted keys of every number in config class ``cls`` (the keys of ``NUMBER_BOUNDS``)."""
    keys = []
    for name, hint in get_type_hints(cls).items():
        if dataclasses.is_dataclass(hint):
            keys += number_fields(hint, f"{prefix}{name}.")
            continue
        item = get_args(hint)[-1] if get_origin(hint) in (list, dict) else hint
        if item in (int, float):
            keys.append(prefix + name + ("[]" if item is not hint else ""))
    return keys


def check_bounds(config: Any, prefix: str = "", reads: Callable[[str], bool] = lambda key: True) -> None:
    """Refuse any number of ``config`` outside its ``NUMBER_BOUNDS`` entry, naming the key and the range
    (only the keys ``reads`` admits: those the algorithm reads)."""
    for f in fields(config):
        value, key = getattr(config, f.name), prefix + f.name
        if not reads(key):
            continue
        if dataclasses.is_dataclass(value):
            check_bounds(value, key + ".", reads)
            continue
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else None
        if items is not None:
            bounds = NUMBER_BOUNDS.get(key + "[]")
            named = [(f"{key}[{k!r}]", v) for k, v in items]
        else:
            bounds, named = NUMBER_BOUNDS.get(key), [(key, value)]
        for where, number in named:
            if bounds is not None and not bounds.admits(number):
                raise ConfigError(f"{where} must be {bounds.describe()}, got {number!r}")


def _largest_divisor(n: int, limit: int) -> int:
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


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
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number, got {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)  # 1e5 (YAML reads exponents as floats)
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
        meant = {prefix + str(k): _known_key(prefix + str(k)) for k in unknown}
        pairs = [(key, known) for key, known in meant.items() if known]
        hint = (f"did you mean {pairs[0][1]}?" if len(pairs) == 1 else
                "did you mean " + ", ".join(f"{known} for {key}" for key, known in pairs) + "?" if pairs else "")
        raise ConfigError(
            f"unknown config key{'s' if len(unknown) > 1 else ''} {', '.join(prefix + str(k) for k in unknown)}"
            f"{' (' + hint + ')' if hint else ''}; "
            f"valid keys{' in ' + prefix.rstrip('.') if prefix else ''}: {', '.join(names)}"
        )
    values = {k: _check_value(v, hints[k], prefix + k) for k, v in data.items()}
    return cls(**values)


def _known_key(key: str) -> str:
    """The config key closest to an unknown dotted ``key``: the one spelt the same up to dots and
    underscores (``value.policy_teacher`` -> ``value.policy.teacher``), else a close spelling ("" if none)."""
    known = _dotted_keys(TrainConfig, sections=True)
    same = [k for k in known if k.replace(".", "_") == key.replace(".", "_")]
    close = same or difflib.get_close_matches(key, known, n=1, cutoff=0.8)
    return close[0] if close else ""


@functools.cache
def _yaml_loader() -> type:
    """PyYAML's safe loader, reading numbers as YAML 1.2 does: ``1e-4`` and ``1e5`` are numbers.

    PyYAML follows YAML 1.1, where a float needs a dot (``1.0e-4``) and ``1e-4`` is a string.
    """
    yaml = require_extra("yaml", "train", "reading training configs")

    class Loader(yaml.SafeLoader):
        pass

    exponent_float = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$")
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", exponent_float, list("-+0123456789."))
    return Loader


def load_yaml(text: str) -> Any:
    """``text`` read as YAML with ``_yaml_loader`` (raises ``yaml.YAMLError``)."""
    loader = _yaml_loader()
    import yaml

    return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass


def _parse_scalar(text: str) -> Any:
    """A command-line value: YAML scalar rules (numbers like 1e-4, true/false, lists like [64,64])."""
    import yaml

    try:
        return load_yaml(text)
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


def packaged_configs() -> dict[str, Any]:
    """The configs installed with the package (``configs/*.yaml``), by name: ``{"kalah-v0": file, ...}``."""
    folder = importlib.resources.files("mancala_envs.configs")
    return {entry.name[: -len(".yaml")]: entry for entry in folder.iterdir() if entry.name.endswith(".yaml")}


def read_config_text(source: str | Path) -> tuple[str, str]:
    """``(text, label)`` of a config file, or of the packaged config named ``source`` (``kalah-v0``)."""
    path = Path(source)
    if not path.is_file() and path.suffix not in (".yaml", ".yml") and len(path.parts) == 1:
        known = packaged_configs()
        if str(source) not in known:
            raise ConfigError(f"no config file {str(source)!r}, and no packaged config of that name; "
                              f"packaged configs: {', '.join(sorted(known))} (or give a YAML file)")
        return known[str(source)].read_text(encoding="utf-8"), f"{source} (packaged config)"
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except OSError as err:
        raise ConfigError(f"cannot read config {str(path)!r}: {err.strerror}") from None


def load_config(source: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config (a file, a packaged config's name, or the defaults when ``source`` is None),
    apply overrides, validate. A key the chosen algorithm does not read is refused, in the file or
    in an override."""
    yaml = require_extra("yaml", "train", "reading training configs")
    data: dict[str, Any] = {}
    label = "the defaults"
    if source is not None:
        text, label = read_config_text(source)
        try:
            data = load_yaml(text) or {}
        except yaml.YAMLError as err:
            raise ConfigError(f"{label!r} is not valid YAML: {err}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{label!r} must hold a mapping of config keys, got {type(data).__name__}")
    config = _build(TrainConfig, apply_overrides(data, overrides or []))
    algorithm = config.algorithm
    refuse_unread(data, algorithm, f"in {label}")
    refuse_unread(apply_overrides({}, overrides or []), algorithm, "an override")
    config.validate()
    return config


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Rebuild a config saved with ``to_dict`` (used when resuming a run); keys its algorithm does not
    read are dropped (a run folder written before ``to_dict`` left them out holds every section)."""
    config = _build(TrainConfig, data)
    config = _build(TrainConfig, _only_read(data, config.algorithm))
    config.validate()
    return config
