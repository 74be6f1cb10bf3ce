#!/usr/bin/env python
"""RLlib PPO self-play with action masks, in plain RLlib code (no trainer of ours).

    python examples/rllib_selfplay.py --env kalah-v0 --iterations 20
    python examples/rllib_selfplay.py --env rondell-v0 --address auto --env-runners 8

``mancala_envs.wrappers.rllib.MancalaMultiAgentEnv`` is RLlib's multi-agent env with the
``observations`` and float ``action_mask`` keys that RLlib's ``ActionMaskingTorchRLModule``
reads. Both seats map to one module: shared-policy self-play on the new API stack. Each
iteration prints the mean episode length and ``player_0``'s mean return (+1 a win, -1 a
loss; the two seats' returns sum to zero, so the episode return says nothing). ``mancala train kalah-v0-rllib`` is the same
with an opponent pool, checkpoints and a fair evaluation (docs/scale-out.md).

Needs ``pip install "mancala-envs[ray]"``.
"""

from __future__ import annotations

import argparse

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from mancala_envs.wrappers.rllib import MancalaMultiAgentEnv


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="kalah-v0", help="any registered id (mancala list)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--env-runners", type=int, default=0, help="sampling actors (0: in this process)")
    parser.add_argument("--address", default=None, help="Ray cluster (auto, HOST:PORT); default: a local Ray")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    ray.init(address=args.address, include_dashboard=False, logging_level="ERROR")
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": [128, 128], "fcnet_activation": "relu"})
    config = (
        PPOConfig()
        .environment(MancalaMultiAgentEnv, env_config={"env_id": args.env, "seed": args.seed})
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=args.env_runners)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch), num_epochs=4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    for iteration in range(1, args.iterations + 1):
        runners = algo.train()["env_runners"]
        won = runners.get("agent_episode_returns_mean", {}).get("player_0", float("nan"))
        print(f"iteration {iteration}/{args.iterations}: {runners['num_env_steps_sampled_lifetime']:.0f} steps, "
              f"episode length {runners['episode_len_mean']:.1f}, player_0's mean return {won:+.2f}", flush=True)
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
