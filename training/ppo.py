"""MaskablePPO by self-play (``algo: ppo``), evaluated against a ladder.

Training runs in chunks between events (snapshot, evaluation, checkpoint); each chunk is a
``model.learn`` call that keeps the step count. Opponents: every ``pool.snapshot_every``
steps a frozen copy of the learner joins the pool (the last ``pool.keep_last`` are kept),
next to the ``pool.baselines`` agents, each drawn by weight per game and episode.
Evaluation: every ``eval.every`` steps the learner plays each ladder agent over one fixed
opening suite (``eval.openings``, each opening from both seats), and at the end over a
larger suite of its own (``eval.final_openings``); rows mark the ladder agents that are also
in the training pool. Ratings: the ladder agents play each other once at the start
(``eval.ladder_openings`` per pair); every evaluation adds the learner's games and a
Bradley-Terry fit gives its Elo (intervals over openings at the end).
The files a run writes are listed in ``run_folder``.

This module needs the train extra (torch, SB3, sb3-contrib, rich) as it is imported.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

from mancala_envs.agents import make_agent
from mancala_envs.agents.learned.features import features_extractor
from mancala_envs.agents.learned.frozen_policy import PolicyOpponent, save_policy_evaluation
from mancala_envs.agents.learned.policy import PolicyAgent
from mancala_envs.evaluation.progress import Progress
from mancala_envs.core.files import atomic_output

from .evaluation import (
    LEARNER,
    evaluate,
    ladder_from_json,
    ladder_results,
    ladder_to_json,
    learner_ratings,
    record_evaluation,
)
from .report import build_report, write_report
from .trainer_base import SUITE_FINAL, SUITE_LADDER, SUITE_PERIODIC, RunTrainer
from .checkpoint import checkpoint_file, commit_checkpoint, snapshot_file
from .selfplay import OpponentPool, SelfPlayVecEnv


ACTIVATIONS = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}  # ppo.activation


class PPOTrainer(RunTrainer):
    """One PPO training run in its folder (see the module docstring)."""

    # files ---------------------------------------------------------------------------------------------
    def _save_model(self, model, path: Path) -> None:
        with atomic_output(path, suffix=".zip") as tmp:  # SB3 adds .zip to a name without it
            model.save(str(tmp))

    def _export_evaluation(self, model) -> None:
        """The value and policy nets as ``evaluation.npz``: the run then serves as ``eval=RUN_DIR``."""
        save_policy_evaluation(model.policy, self.game, self.run_dir)

    # opponents -------------------------------------------------------------------------------------
    def _snapshot_policy(self, model, name: str) -> PolicyOpponent:
        path = snapshot_file(self.run_dir, name)
        if name not in self.state.snapshots:  # a new one (a resumed run loads those of its checkpoint)
            with atomic_output(path) as tmp:
                torch.save(model.policy.state_dict(), tmp)
        policy = type(model.policy)(**model.policy._get_constructor_parameters())
        policy.load_state_dict(torch.load(path, weights_only=True))
        return PolicyOpponent.snapshot(policy, name=name)

    def _build_pool(self) -> OpponentPool:
        pool = OpponentPool([])
        plies = tuple(self.config.pool.opening_plies)
        for k, (spec, weight) in enumerate(self.config.pool.baselines.items()):
            if spec == "random":
                pool.add("random", weight, name=spec)
            else:  # a (nearly) deterministic agent: its games start from random openings
                pool.add(make_agent(spec, seed=self.config.seed + 7 + k), weight, name=spec, opening_plies=plies)
        return pool

    def _take_snapshot(self, model, env: SelfPlayVecEnv) -> None:
        name = f"snapshot-{model.num_timesteps}"
        env.pool.add(self._snapshot_policy(model, name), self.config.pool.snapshot_weight, name=name)
        self.state.snapshots.append(name)
        while len(self.state.snapshots) > self.config.pool.keep_last:
            env.pool.remove(self.state.snapshots.pop(0))  # its file goes when no kept checkpoint names it

    def _model(self, env: SelfPlayVecEnv) -> MaskablePPO:
        """The model of the last checkpoint, or a new one from the config."""
        checkpoint = checkpoint_file(self.run_dir)
        if checkpoint.exists():
            model = MaskablePPO.load(str(checkpoint), env=env, device="cpu")
            self.echo(f"resumed from {checkpoint} at step {model.num_timesteps}")
            return model
        ppo = dict(self.config.ppo.__dict__)
        del ppo["margin_reward"]  # the env's, not the model's
        policy_kwargs: dict[str, Any] = {"net_arch": list(ppo.pop("net_arch")),
                                         "activation_fn": ACTIVATIONS[ppo.pop("activation")]}
        policy_kwargs.update(features_extractor(ppo.pop("obs_encoding"), ppo.pop("observation_transform")))
        return MaskablePPO("MlpPolicy", env, seed=self.config.seed, device="cpu", verbose=0,
                           policy_kwargs=policy_kwargs, **ppo)

    # the loop ------------------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.config
        env = SelfPlayVecEnv(cfg.env_id, cfg.num_envs, opponents=self._build_pool(), seed=cfg.seed + self.state.steps,
                             margin_reward=cfg.ppo.margin_reward, **cfg.options)
        model = self._model(env)
        for name in self.state.snapshots:
            env.pool.add(self._snapshot_policy(model, name), cfg.pool.snapshot_weight, name=name)
        model.set_logger(configure(str(self.run_dir / "tb"), ["tensorboard"]))
        self.echo(f"TensorBoard: tensorboard --logdir {self.run_dir / 'tb'}")

        if not self.state.ladder and cfg.eval.ladder_openings > 0:
            suite = self._suite(cfg.eval.ladder_openings, SUITE_LADDER)
            self.echo(f"rating the ladder: {', '.join(cfg.eval.ladder)} over {suite.label()}")
            self.state.ladder = ladder_to_json(ladder_results(self.game, cfg.eval.ladder, suite, cfg.backend,
                                                              cfg.ray_address or None))

        steps = int(model.num_timesteps)
        callback = ProgressCallback(cfg.total_timesteps, steps)
        started = time.perf_counter()
        spent_before = self.state.seconds
        while steps < cfg.total_timesteps:
            marks = [cfg.total_timesteps]
            for every in (cfg.pool.snapshot_every, cfg.eval.every, cfg.checkpoint_every):
                marks.append((steps // every + 1) * every)
            target = min(marks)
            model.learn(total_timesteps=target - steps, reset_num_timesteps=False, callback=callback)
            previous, steps = steps, int(model.num_timesteps)
            self.state.steps = steps
            self.state.seconds = spent_before + time.perf_counter() - started
            self.state.curve.extend(callback.take_curve(steps))
            if steps // cfg.pool.snapshot_every > previous // cfg.pool.snapshot_every:
                self._take_snapshot(model, env)
            if steps // cfg.eval.every > previous // cfg.eval.every or steps >= cfg.total_timesteps:
                self._evaluate(model, steps)
            if steps // cfg.checkpoint_every > previous // cfg.checkpoint_every or steps >= cfg.total_timesteps:
                commit_checkpoint(self.run_dir, self.state, lambda path: model.save(str(path)))
                self._export_evaluation(model)
        callback.close()

        self._save_model(model, self.run_dir / "final_model.zip")
        self._export_evaluation(model)
        suite = self._suite(cfg.eval.final_openings, SUITE_FINAL)
        self.echo(f"final evaluation over {suite.label()}, against each of {', '.join(cfg.eval.ladder)}")
        learner = PolicyAgent(model, name=LEARNER)
        final_rows, matches = evaluate(self.game, learner, cfg.eval.ladder, suite, steps, list(cfg.pool.baselines),
                                       backend=cfg.backend, address=cfg.ray_address or None)
        ratings = learner_ratings(self._ladder(), matches, intervals=True)
        report = build_report(cfg, self.state, final_rows, ratings, suite, self.run_dir)
        write_report(report, self.run_dir)
        return report

    def _ladder(self) -> list:
        if not self.state.ladder:
            return []
        return ladder_from_json(self.state.ladder, self._suite(self.config.eval.ladder_openings, SUITE_LADDER))

    def _evaluate(self, model, steps: int) -> None:
        cfg = self.config.eval
        if self._periodic_suite is None:
            self._periodic_suite = self._suite(cfg.openings, SUITE_PERIODIC)
        learner = PolicyAgent(model, name=LEARNER)
        rows, matches = evaluate(self.game, learner, cfg.ladder, self._periodic_suite, steps,
                                 list(self.config.pool.baselines), backend=self.config.backend,
                                 address=self.config.ray_address or None)
        elo, summary = record_evaluation(rows, matches, self._ladder(), self.state.evals,
                                         self.run_dir / "evals.csv", model.logger.record)
        model.logger.dump(steps)
        self.echo(f"step {steps}: scores {summary}; learner Elo {elo:+.0f}")


class ProgressCallback(BaseCallback):
    """Progress over the whole run (``mancala_envs.evaluation.progress``), the learner's returns for the
    learning curve, and rollout statistics for TensorBoard (``rollout/*``, at the end of each rollout):
    mean episode return and length (learner moves), episodes, and the win rate from each seat."""

    def __init__(self, total: int, start: int):
        super().__init__()
        self.progress = Progress(total, "steps", "training")
        self.progress.update(start)
        self.returns: list[float] = []  # since the last learning-curve point
        self.rollout: list[tuple[float, int, int]] = []  # (return, length, learner seat) of this rollout
        self.lengths: np.ndarray | None = None  # learner moves so far in each game

    def _on_step(self) -> bool:
        self.progress.update(self.num_timesteps)
        infos = self.locals.get("infos", [])
        if self.lengths is None:
            self.lengths = np.zeros(len(infos), np.int64)
        self.lengths += 1
        for i, info in enumerate(infos):
            result = info.get("episode_result")
            if result is not None:
                self.returns.append(result["return"])
                self.rollout.append((float(result["return"]), int(self.lengths[i]), int(result["learner_seat"])))
                self.lengths[i] = 0
        return True

    def _on_rollout_end(self) -> None:
        if not self.rollout:
            return
        returns, lengths, seats = (np.array(column) for column in zip(*self.rollout))
        self.logger.record("rollout/ep_rew_mean", float(returns.mean()))
        self.logger.record("rollout/ep_len_mean", float(lengths.mean()))
        self.logger.record("rollout/episodes", len(returns))
        for seat in (0, 1):
            mine = returns[seats == seat]
            if mine.size:
                self.logger.record(f"rollout/win_rate_as_player_{seat}", float((mine > 0).mean()))
        self.rollout = []

    def take_curve(self, step: int) -> list[list[float]]:
        """The mean learner return since the last call as one ``[step, mean, episodes]`` point."""
        if not self.returns:
            return []
        point = [[float(step), float(np.mean(self.returns)), float(len(self.returns))]]
        self.returns = []
        return point

    def close(self) -> None:
        self.progress.close()
