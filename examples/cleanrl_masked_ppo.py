#!/usr/bin/env python
"""Masked PPO in one file, CleanRL style, on the numba vector env.

    python examples/cleanrl_masked_ppo.py --env kalah-v0 --num-envs 256 --total-timesteps 2000000

The env is ``gymnasium.make_vec("mancala/ID", num_envs=N, vectorization_mode="vector_entry_point")``
(``mancala_envs.vector_gym``): N games of the learner against a uniformly random opponent,
both stepped in numba. The policy's logits of illegal actions are set to -1e8 from
``envs.action_masks()`` when acting and again when the update re-evaluates the stored
actions, so no illegal action is ever sampled. The env resets finished games in the same
step (``AutoresetMode.SAME_STEP``): the observation after a finished game is the next game's
first, so the usual CleanRL ``next_done`` bookkeeping applies as it is. As in CleanRL, a
truncated game (``max_plies``) is treated as an ending without bootstrapping.

The printed figure is the mean learner return (+1 win, -1 loss) of the games that ended in
the last iterations of training, against the training opponent: a learning curve, not a
strength measurement (use ``mancala eval`` with an opening suite for that).

Needs torch (``pip install "mancala-envs[train]"``).
"""

from __future__ import annotations

import argparse
import time
from collections import deque

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import mancala_envs  # noqa: F401  (registers the mancala/ ids)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="kalah-v0", help="any registered id (mancala list)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--total-timesteps", type=int, default=2_000_000)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--num-steps", type=int, default=32, help="steps per env per rollout")
    parser.add_argument("--learning-rate", type=float, default=2.5e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=8)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--torch-threads", type=int, default=1)
    return parser.parse_args(argv)


def layer(in_size: int, out_size: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(in_size, out_size)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, obs_scale: np.ndarray):
        super().__init__()
        self.register_buffer("obs_scale", torch.as_tensor(obs_scale, dtype=torch.float32))
        self.critic = nn.Sequential(layer(obs_size, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, 1, 1.0))
        self.actor = nn.Sequential(
            layer(obs_size, 128), nn.Tanh(), layer(128, 128), nn.Tanh(), layer(128, num_actions, 0.01)
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs / self.obs_scale).squeeze(-1)

    def act(self, obs: torch.Tensor, masks: torch.Tensor, action: torch.Tensor | None = None):
        """Action (sampled if not given), its log-probability, the entropy and the value."""
        # a huge negative logit rather than -inf: probability 0, and no 0 * inf = nan in the entropy
        logits = self.actor(obs / self.obs_scale).masked_fill(~masks, -1e8)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def main(argv: list[str] | None = None) -> float:
    args = parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(f"mancala/{args.env}", num_envs=args.num_envs, vectorization_mode="vector_entry_point")
    obs_size = envs.single_observation_space.shape[0]
    num_actions = int(envs.single_action_space.n)
    obs_scale = np.maximum(envs.single_observation_space.high, 1.0)
    agent = Agent(obs_size, num_actions, obs_scale)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    iterations = max(1, args.total_timesteps // batch_size)
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + (obs_size,))
    masks = torch.zeros(shape + (num_actions,), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))

    next_obs, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(envs.action_masks())
    next_done = torch.zeros(args.num_envs)
    returns_seen: deque[float] = deque(maxlen=1000)
    start = time.time()
    for iteration in range(1, iterations + 1):
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (iteration - 1.0) / iterations)
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            next_obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            ended = terminated | truncated
            returns_seen.extend(reward[ended].tolist())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(envs.action_masks())
            next_done = torch.as_tensor(ended, dtype=torch.float32)

        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.value(next_obs)
            advantages = torch.zeros(shape)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                advantages[t] = last = delta + args.gamma * args.gae_lambda * not_done * last
            returns = advantages + values

        b_obs, b_masks = obs.reshape(batch_size, obs_size), masks.reshape(batch_size, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for first in range(0, batch_size, minibatch_size):
                mb = order[first : first + minibatch_size]
                _, new_logprob, entropy, new_value = agent.act(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (new_logprob - b_logprobs[mb]).exp()
                adv = b_advantages[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((new_value - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        steps = iteration * batch_size
        mean_return = float(np.mean(returns_seen)) if returns_seen else 0.0
        print(f"iteration {iteration}/{iterations}  steps {steps}  "
              f"mean return of the last {len(returns_seen)} games {mean_return:+.3f}  {steps / (time.time() - start):,.0f} steps/s")
    envs.close()
    return float(np.mean(returns_seen)) if returns_seen else 0.0


if __name__ == "__main__":
    main()
