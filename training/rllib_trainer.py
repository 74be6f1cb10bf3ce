"""RLlib training (``algo: rllib_ppo``): shared-policy PPO self-play with action masks, on Ray.

    mancala train configs/kalah-v0-rllib.yaml [rllib.num_env_runners=8 ray_address=auto]
    mancala train --resume runs/kalah-v0-rllib-20261123-230000

The same YAML and run folder as the SB3 trainer (``mancala_envs.training.ppo``), on RLlib's
new API stack:

* **Env and module.** ``mancala_envs.wrappers.rllib.MancalaMultiAgentEnv`` (observations in
  ``ppo.obs_encoding`` and a float action mask) and RLlib's ``ActionMaskingTorchRLModule``;
  both seats map to one module, ``learner`` (shared-policy self-play). Hidden layers
  ``ppo.net_arch`` with ``ppo.activation``, separate actor and critic; the ``ppo`` section's
  learning rate, discount, GAE lambda, clip, entropy and value coefficients, gradient clip,
  epochs and minibatch (``ppo.batch_size``) apply; ``rllib.train_batch_size`` env steps per
  iteration.
* **Scale.** ``rllib.num_env_runners`` sampling actors (0: sample in the driver), each with
  ``rllib.num_envs_per_env_runner`` games, and ``rllib.num_learners`` learner actors, on the
  Ray cluster at ``ray_address`` (``""``: a local Ray started on demand; ``"auto"``: the one
  ``ray start`` began). ``backend: ray`` plays the evaluations' games on the same cluster.
* **Opponents** as in the SB3 trainer: ``pool.baselines`` (by weight; a baseline other than
  random starts from ``pool.opening_plies`` random plies), frozen snapshots of the learner
  every ``pool.snapshot_every`` steps (the last ``pool.keep_last``, each at
  ``pool.snapshot_weight``), and self-play (weight 1) for the rest. A snapshot is the
  learner's network as ``snapshots/<name>.npz`` (``evaluation.npz`` format), played greedily
  from random openings; the env runners get it through ``add_opponent``.
* **Files.** ``checkpoints/latest.zip`` holds RLlib's checkpoint folder (``save_to_path``) and
  the run state, committed as every trainer's (``mancala_envs.training.checkpoint``: the
  previous checkpoint kept, ``--resume`` falling back to it); ``tb/`` holds TensorBoard scalars (RLlib's
  episode returns and losses, ``eval/*``); ``evals.csv``, ``report.md`` and
  ``report.json`` as for SB3 runs. The learning curve is the learner's mean return per
  episode: +1/-1 against pool opponents, 0 for a self-play episode (both seats its own).
* **Playing the result.** After every checkpoint and at the end, the module's actor and
  critic are exported to ``evaluation.npz`` (``mancala_envs.agents.learned.learned_eval``): the one
  loader behind ``policy:RUN_DIR`` (and ``eval=RUN_DIR``) then plays it, and the evaluations
  play exactly that file.

This module imports Ray, RLlib and torch at its top (the ``ray`` extra).
"""

from __future__ import annotations

import functools
import numbers
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from torch.utils.tensorboard import SummaryWriter

from mancala_envs.agents.learned.frozen_policy import save_mlp_evaluation
from mancala_envs.agents.learned.learned_eval import EVAL_FILE, LearnedPolicyAgent
from mancala_envs.evaluation.progress import Progress
from mancala_envs.evaluation.ray_backend import connect
from mancala_envs.wrappers.rllib import MancalaMultiAgentEnv

from .config import ConfigError, TrainConfig
from .evaluation import (LEARNER, evaluate, ladder_from_json, ladder_results, ladder_to_json, learner_ratings,
                         record_evaluation)
from .report import build_report, write_report
from .trainer_base import SUITE_FINAL, SUITE_LADDER, SUITE_PERIODIC, RunTrainer
from .checkpoint import RunState, checkpoint_file, commit_checkpoint, snapshot_file

MODULE = "learner"  # the one module both seats map to
SAMPLE_TIMEOUT = 900.0  # seconds an env runner may take for one iteration's sample
EMPTY_ITERATIONS = 3  # iterations in a row that sample nothing (env runners lost) before giving up

# RLlib result entries written to TensorBoard (path in the result dict -> tag)
SCALARS = {
    ("env_runners", "module_episode_returns_mean", MODULE): "rollout/ep_rew_mean",
    ("env_runners", "episode_len_mean"): "rollout/ep_len_mean",
    ("env_runners", "num_episodes"): "rollout/episodes",
    ("learners", MODULE, "policy_loss"): "train/policy_loss",
    ("learners", MODULE, "vf_loss"): "train/value_loss",
    ("learners", MODULE, "entropy"): "train/entropy",
    ("learners", MODULE, "mean_kl_loss"): "train/approx_kl",
    ("learners", MODULE, "vf_explained_var"): "train/explained_variance",
}


def _map_to_learner(agent_id, episode, **kwargs) -> str:
    return MODULE


class RLlibTrainer(RunTrainer):
    """One RLlib training run in its folder (see the module docstring)."""

    def __init__(self, config: TrainConfig, run_dir: Path, state: RunState, echo: Callable[[str], None] = print):
        super().__init__(config, run_dir, state, echo)
        self.address = config.ray_address or None

    # -- RLlib -----------------------------------------------------------------------------------
    def algorithm_config(self) -> PPOConfig:
        cfg, ppo, rl = self.config, self.config.ppo, self.config.rllib
        plies = tuple(cfg.pool.opening_plies)
        env_config = {"env_id": cfg.env_id, "options": dict(cfg.options), "encoding": ppo.obs_encoding,
                      "opponents": [(spec, weight) for spec, weight in cfg.pool.baselines.items()],
                      "self_play_weight": 1.0, "opening_plies": plies, "seed": cfg.seed}
        model = {"fcnet_hiddens": list(ppo.net_arch), "fcnet_activation": ppo.activation, "head_fcnet_hiddens": [],
                 "vf_share_layers": False}
        module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
        return (
            PPOConfig()
            .environment(MancalaMultiAgentEnv, env_config=env_config)
            .multi_agent(policies={MODULE}, policy_mapping_fn=_map_to_learner)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE: module}))
            # a new env runner compiles the numba kernels first: on a busy machine its first sample
            # outlasts RLlib's default 60 s, and RLlib would drop it
            .env_runners(num_env_runners=rl.num_env_runners, num_envs_per_env_runner=rl.num_envs_per_env_runner,
                         sample_timeout_s=SAMPLE_TIMEOUT)
            .learners(num_learners=rl.num_learners)
            .training(train_batch_size_per_learner=rl.train_batch_size, minibatch_size=ppo.batch_size,
                      num_epochs=ppo.n_epochs, lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                      clip_param=ppo.clip_range, entropy_coeff=ppo.ent_coef, vf_loss_coeff=ppo.vf_coef,
                      grad_clip=ppo.max_grad_norm, grad_clip_by="global_norm")
            .debugging(seed=cfg.seed)
        )

    def _build(self):
        connect(self.address)
        algo = self.algorithm_config().build_algo()
        checkpoint = checkpoint_file(self.run_dir)
        if checkpoint.exists():
            with tempfile.TemporaryDirectory() as folder:
                with zipfile.ZipFile(checkpoint) as archive:
                    archive.extractall(folder)
                algo.restore_from_path(str(Path(folder) / "algorithm"))
            self.echo(f"resumed from {checkpoint} at step {self.state.steps}")
        return algo

    @staticmethod
    def _write_checkpoint(algo, path: Path) -> None:
        """RLlib's checkpoint folder as the members ``algorithm/...`` of a zip at ``path``."""
        with tempfile.TemporaryDirectory() as folder:
            algo.save_to_path(str(Path(folder) / "algorithm"))
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
                for file in sorted((Path(folder) / "algorithm").rglob("*")):
                    if file.is_file():
                        zf.write(file, file.relative_to(folder))

    def _export(self, algo, path: Path) -> Path:
        """The module's actor and critic as an ``evaluation.npz`` at ``path``."""
        module = algo.get_module(MODULE)
        encoder = module.encoder
        written = save_mlp_evaluation((encoder.actor_encoder.net.mlp, module.pi.net.mlp[-1]),
                                      (encoder.critic_encoder.net.mlp, module.vf.net.mlp[-1]),
                                      self.game, self.config.ppo.obs_encoding, path, source="rllib_ppo")
        if written is None:  # pragma: no cover - the module is built from our own model_config
            raise ConfigError("the RLlib module is not a plain MLP; it cannot be exported to evaluation.npz")
        return written

    # -- opponents --------------------------------------------------------------------------------
    def _add_to_pool(self, algo, name: str) -> None:
        data = snapshot_file(self.run_dir, name).with_suffix(".npz").read_bytes()  # the file may be on no runner's disk
        self._on_envs(algo, functools.partial(_seat_snapshot, name, data, self.config.pool.snapshot_weight))

    def _take_snapshot(self, algo, steps: int) -> None:
        name = f"snapshot-{steps}"
        path = snapshot_file(self.run_dir, name).with_suffix(".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._export(algo, path)
        self._add_to_pool(algo, name)
        self.state.snapshots.append(name)
        while len(self.state.snapshots) > self.config.pool.keep_last:
            old = self.state.snapshots.pop(0)  # its file goes when no kept checkpoint names it
            self._on_envs(algo, lambda env: env.remove_opponent(old))

    @staticmethod
    def _on_envs(algo, change: Callable[[MancalaMultiAgentEnv], None]) -> None:
        """Apply ``change`` to every game of every env runner (the driver's included)."""
        def apply(runner):
            env = getattr(runner, "env", None)
            for sub in getattr(env, "envs", []) if env is not None else []:
                change(sub.unwrapped)

        algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)

    # -- the loop ---------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.config
        algo = self._build()
        for name in self.state.snapshots:
            self._add_to_pool(algo, name)
        writer = SummaryWriter(str(self.run_dir / "tb"))
        self.echo(f"TensorBoard: tensorboard --logdir {self.run_dir / 'tb'}")
        if not self.state.ladder and cfg.eval.ladder_openings > 0:
            suite = self._suite(cfg.eval.ladder_openings, SUITE_LADDER)
            self.echo(f"rating the ladder: {', '.join(cfg.eval.ladder)} over {suite.label()}")
            self.state.ladder = ladder_to_json(ladder_results(self.game, cfg.eval.ladder, suite, cfg.backend,
                                                              self.address))
        steps = self.state.steps
        progress = Progress(cfg.total_timesteps, "steps", "training")
        progress.update(steps)
        started, spent_before = time.perf_counter(), self.state.seconds
        empty = 0
        try:
            while steps < cfg.total_timesteps:
                result = algo.train()
                sampled = _find(result, ("env_runners", "num_env_steps_sampled"))
                if not (isinstance(sampled, numbers.Real) and np.isfinite(sampled) and sampled > 0):
                    empty += 1  # RLlib restarts a lost env runner; a few empty iterations are its recovery
                    if empty >= EMPTY_ITERATIONS:
                        raise RuntimeError(f"RLlib sampled nothing in {empty} iterations in a row: the env runners "
                                           "fail (their errors are in the Ray worker logs, "
                                           "/tmp/ray/session_latest/logs on each machine)")
                    continue
                empty = 0
                previous, steps = steps, steps + int(sampled)
                self.state.steps = steps
                self.state.seconds = spent_before + time.perf_counter() - started
                progress.update(steps)
                self._log(writer, result, steps)
                if steps // cfg.pool.snapshot_every > previous // cfg.pool.snapshot_every:
                    self._take_snapshot(algo, steps)
                last = steps >= cfg.total_timesteps
                evaluate_now = last or steps // cfg.eval.every > previous // cfg.eval.every
                checkpoint_now = last or steps // cfg.checkpoint_every > previous // cfg.checkpoint_every
                if evaluate_now or checkpoint_now:
                    self._export(algo, self.run_dir)  # what the evaluation plays and the checkpoint keeps
                if evaluate_now:
                    self._evaluate(writer, steps)
                if checkpoint_now:
                    commit_checkpoint(self.run_dir, self.state, lambda path: self._write_checkpoint(algo, path))
        finally:
            progress.close()
            writer.close()
        self._export(algo, self.run_dir)
        algo.stop()
        return self._final_report(steps)

    def _log(self, writer: SummaryWriter, result: dict, steps: int) -> None:
        for path, tag in SCALARS.items():
            value = _find(result, path)
            if isinstance(value, numbers.Real) and np.isfinite(value):
                writer.add_scalar(tag, float(value), steps)
        # the learner's return per episode: +1/-1 against a pool opponent, 0 in self-play (both seats its own)
        mean = _find(result, ("env_runners", "module_episode_returns_mean", MODULE))
        episodes = _find(result, ("env_runners", "num_episodes"))
        if isinstance(mean, numbers.Real) and np.isfinite(mean) and episodes:
            self.state.curve.append([float(steps), float(mean), float(episodes)])

    def _learner(self) -> LearnedPolicyAgent:
        """What ``policy:RUN_DIR`` plays: the exported ``evaluation.npz``."""
        agent = LearnedPolicyAgent(self.run_dir / EVAL_FILE, seed=self.config.seed)
        agent.name = LEARNER
        return agent

    def _evaluate(self, writer: SummaryWriter, steps: int) -> None:
        cfg = self.config
        if self._periodic_suite is None:
            self._periodic_suite = self._suite(cfg.eval.openings, SUITE_PERIODIC)
        rows, matches = evaluate(self.game, self._learner(), cfg.eval.ladder, self._periodic_suite, steps,
                                 list(cfg.pool.baselines), backend=cfg.backend, address=self.address)
        ladder = ladder_from_json(self.state.ladder, self._suite(cfg.eval.ladder_openings, SUITE_LADDER)) \
            if self.state.ladder else []
        elo, summary = record_evaluation(rows, matches, ladder, self.state.evals, self.run_dir / "evals.csv",
                                         lambda tag, value: writer.add_scalar(tag, value, steps))
        self.echo(f"step {steps}: scores {summary}; learner Elo {elo:+.0f}")

    def _final_report(self, steps: int) -> dict[str, Any]:
        cfg = self.config
        suite = self._suite(cfg.eval.final_openings, SUITE_FINAL)
        self.echo(f"final evaluation over {suite.label()}, against each of {', '.join(cfg.eval.ladder)}")
        rows, matches = evaluate(self.game, self._learner(), cfg.eval.ladder, suite, steps, list(cfg.pool.baselines),
                                 backend=cfg.backend, address=self.address)
        ladder = ladder_from_json(self.state.ladder, self._suite(cfg.eval.ladder_openings, SUITE_LADDER)) \
            if self.state.ladder else []
        report = build_report(cfg, self.state, rows, learner_ratings(ladder, matches, intervals=True), suite,
                              self.run_dir)
        write_report(report, self.run_dir)
        return report


def _seat_snapshot(name: str, data: bytes, weight: float, env: MancalaMultiAgentEnv) -> None:
    """Seat the snapshot whose ``evaluation.npz`` bytes are ``data`` in ``env``'s pool (on an env runner).

    The agent is built where it plays: arrays shipped inside an agent would arrive read-only."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / EVAL_FILE
        path.write_bytes(data)
        agent = LearnedPolicyAgent(path)
    agent.name = name
    env.add_opponent(name, agent, weight)


def _find(result: dict, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return None
        result = result[key]
    return result


