"""A frozen copy of a trained policy, as a batched actor: the opponent in self-play and the
move picker of ``PolicyAgent``.

``PolicyOpponent.snapshot(model)`` copies an SB3 (Maskable)PPO model's policy and returns
``act(obs, masks, rng) -> actions`` for a whole batch; for the standard flat-input MLP the
forward pass runs as numpy matrix products (``_numpy_actor``), an order of magnitude cheaper
per call than torch's module machinery for networks this small. torch and SB3 are imported
only when a snapshot is taken.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


class PolicyOpponent:
    """A batched opponent: a frozen policy, or any ``fn(obs, masks, rng) -> actions``.

    ``PolicyOpponent.snapshot(model)`` freezes a copy of an SB3 (Maskable)PPO model's policy.
    Actions are sampled from the policy's masked distribution with the env's numpy
    generator (or taken greedily with ``deterministic=True``).
    """

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray], name: str = "policy"):
        self.fn = fn
        self.name = name

    def __call__(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self.fn(obs, masks, rng), dtype=np.int64)

    @classmethod
    def snapshot(cls, model: Any, name: str = "snapshot", deterministic: bool = False) -> "PolicyOpponent":
        import torch

        source = model.policy if hasattr(model, "policy") else model
        # A fresh policy with copied weights: deepcopy trips over tensors torch will not copy.
        policy = type(source)(**source._get_constructor_parameters())
        policy.load_state_dict(source.state_dict())
        policy.set_training_mode(False)

        # The actor alone, no distribution objects: the opponent's forward pass sits in the
        # rollout loop next to the learner's, and runs once per round of opponent moves
        # (several per step with extra turns), so its fixed cost matters more than its FLOPs.
        numpy_actor = _numpy_actor(policy)
        features_extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor

        def torch_actor(obs: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                features = features_extractor(torch.as_tensor(obs))
                return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()

        logits_of = numpy_actor or torch_actor

        def act(obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            logits = np.where(masks, logits_of(obs).astype(np.float64), -np.inf)
            if deterministic:
                return logits.argmax(axis=1)
            # Gumbel-max: an exact sample of softmax(logits) per row, from the env's generator
            return (logits + rng.gumbel(size=logits.shape)).argmax(axis=1)

        return cls(act, name)


def _numpy_actor(policy: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    """The policy's actor as numpy matrix products, for the standard flat-input MLP policy.

    For small networks numpy is an order of magnitude faster per call than torch's module
    machinery. Returns None for any other architecture (the caller then uses torch).
    """
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .features import Log1pFlatten

    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    if type(extractor) not in (FlattenExtractor, Log1pFlatten) or not isinstance(policy.action_net, nn.Linear):
        return None
    transform = Log1pFlatten.numpy_forward if isinstance(extractor, Log1pFlatten) else None
    activations = {nn.Tanh: np.tanh, nn.ReLU: lambda x: np.maximum(x, 0.0)}
    layers: list[tuple[str, Any]] = []
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, nn.Linear):
            layers.append(("linear", (module.weight.detach().numpy().T.copy(), module.bias.detach().numpy().copy())))
        elif type(module) in activations:
            layers.append(("activation", activations[type(module)]))
        else:
            return None
    head = (policy.action_net.weight.detach().numpy().T.copy(), policy.action_net.bias.detach().numpy().copy())

    def actor(obs: np.ndarray) -> np.ndarray:
        x = obs.reshape(len(obs), -1).astype(np.float32, copy=False)
        if transform is not None:
            x = transform(x)
        for kind, value in layers:
            x = x @ value[0] + value[1] if kind == "linear" else value(x)
        return x @ head[0] + head[1]

    return actor
