#!/usr/bin/env python
"""Tianshou multi-agent DQN on the PettingZoo AEC env, with no adapter of ours.

    python examples/tianshou_aec.py --env kalah-v0 --epochs 10

``mancala_envs.make(ID)`` is a standard PettingZoo AEC env, so Tianshou's own
``PettingZooEnv`` wraps it as it is: the observation dict's ``action_mask`` becomes Tianshou's
``mask``, ``agent_selection`` picks the acting policy (an extra turn simply selects the same
agent again), and the rewards come per agent. One DQN learner (``player_0`` by default,
``--learner 1`` for the other seat) plays a masked random opponent
(``MARLRandomDiscreteMaskedOffPolicyAlgorithm``), both seats driven by
``MultiAgentOffPolicyAlgorithm``: only the learner is trained, the opponent stays uniformly
random over the legal moves. The printed figure is the learner's best mean test return against
that random opponent (+1 win, -1 loss, 0 draw or truncation): a learning curve, not a strength
measurement (use ``mancala eval`` with an opening suite for that).

Needs ``pip install "mancala-envs[examples]"`` (Tianshou 2, torch). This is the layout of
Tianshou's own tic-tac-toe example (``test/pettingzoo/tic_tac_toe.py``), pointed at our env.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import mancala_envs


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="kalah-v0", help="any registered id (mancala list)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--learner", type=int, default=0, choices=(0, 1), help="the learner's seat")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--epoch-steps", type=int, default=2000)
    parser.add_argument("--step-per-collect", type=int, default=40)
    parser.add_argument("--update-per-step", type=float, default=0.25)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--buffer-size", type=int, default=20_000)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--test-episodes", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--eps-train", type=float, default=0.1)
    parser.add_argument("--eps-test", type=float, default=0.0)
    return parser.parse_args(argv)


def make_env(env_id: str) -> PettingZooEnv:
    return PettingZooEnv(mancala_envs.make(env_id))


def build_algorithm(args: argparse.Namespace) -> MultiAgentOffPolicyAlgorithm:
    env = make_env(args.env)
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n), hidden_sizes=[128, 128])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=args.eps_train, eps_inference=args.eps_test
    )
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=args.gamma, target_update_freq=200)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    seats = [learner, opponent] if args.learner == 0 else [opponent, learner]
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)


def main(argv: list[str] | None = None) -> float:
    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    training_envs = DummyVectorEnv([lambda: make_env(args.env) for _ in range(args.num_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.env) for _ in range(args.num_envs)])
    training_envs.seed(args.seed)
    test_envs.seed(args.seed + 10_000)
    algorithm = build_algorithm(args)
    training_collector = Collector[CollectStats](
        algorithm, training_envs, VectorReplayBuffer(args.buffer_size, args.num_envs), exploration_noise=True
    )
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    training_collector.reset()
    training_collector.collect(n_step=args.batch_size * args.num_envs)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=training_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=args.step_per_collect,
            test_step_num_episodes=args.test_episodes,
            batch_size=args.batch_size,
            update_step_num_gradient_steps_per_sample=args.update_per_step,
            test_in_training=False,
            multi_agent_return_reduction=lambda returns: returns[:, args.learner],
            show_progress=False,
        )
    )
    print(f"{args.env}: best mean test return of the learner (seat {args.learner}) vs random: "
          f"{result.best_score:.3f} over {args.test_episodes} episodes")
    return float(result.best_score)


if __name__ == "__main__":
    main()
