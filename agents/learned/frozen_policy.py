"""A frozen copy of a trained policy, as a batched actor: the opponent in self-play and the
move picker of ``PolicyAgent``.

``PolicyOpponent.snapshot(model)`` copies an SB3 (Maskable)PPO model's policy and returns
``act(obs, masks, rng) -> actions`` for a whole batch. The forward pass runs as numpy matrix
products (``numpy_networks``), an order of magnitude cheaper per call than torch's module
machinery for networks this small, for every network ``mancala train`` builds: any input
extractor of ``mancala_envs.agents.learned.features`` (raw counts, ``log1p``, the encodings of
``mancala_envs.core.encodings``), any layer sizes, ReLU or tanh. Any other architecture
falls back to torch. torch and SB3 are imported only when a snapshot is taken.

``numpy_networks(policy)`` also gives the value net in the same form, and
``save_policy_evaluation(policy, game, run_dir)`` writes both into the run's
``evaluation.npz`` (``mancala_envs.agents.learned.learned_eval``): the value head is the search's
evaluation (``alphabeta:depth=6,eval=RUN_DIR``), the policy head MCTS's priors. The value
head estimates the learner's discounted return at its turn: the result for the player to
move, shrunk by ``gamma`` per learner move to the end (and shaped by the score margin
where ``ppo.margin_reward`` > 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mancala_envs.core.game import Game

from .learned_eval import save_evaluation

# in place: the opponent's forward pass runs several times per self-play step, on a few
# dozen rows, where allocating each layer's output again costs as much as computing it
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": lambda x: np.tanh(x, out=x),
    "relu": lambda x: np.maximum(x, 0.0, out=x),
}


@dataclass
class DenseStack:
    """Dense layers as numpy arrays: ``weights[i]`` is (in, out), the hidden layers use
    ``activation``, the last layer is linear."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    activation: str

    def __call__(self, x: np.ndarray) -> np.ndarray:
        act = ACTIVATIONS[self.activation]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w  # a new array: the in-place steps below never touch the caller's input
            x += b
            if i < last:
                x = act(x)
        return x


@dataclass
class NumpyNetworks:
    """A policy's networks in numpy: the input features, the actor (logits) and the value."""

    features: Callable[[np.ndarray], np.ndarray]  # raw observations (n, obs) -> network input
    encoding: str | None  # the features' name in mancala_envs.core.encodings, or None (e.g. log1p)
    actor: DenseStack
    value: DenseStack

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self.actor(self.features(obs))

    def values(self, obs: np.ndarray) -> np.ndarray:
        return self.value(self.features(obs))[:, 0]


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
        networks = numpy_networks(policy)
        features_extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor

        def torch_actor(obs: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                features = features_extractor(torch.as_tensor(obs))
                return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()

        logits_of = networks.logits if networks is not None else torch_actor

        def act(obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            logits = np.where(masks, logits_of(obs).astype(np.float64), -np.inf)
            if deterministic:
                return logits.argmax(axis=1)
            # Gumbel-max: an exact sample of softmax(logits) per row, from the env's generator
            return (logits + rng.gumbel(size=logits.shape)).argmax(axis=1)

        return cls(act, name)


def numpy_networks(policy: Any) -> NumpyNetworks | None:
    """The policy's input features, actor and value net as numpy arrays, or None when the
    architecture is not one ``mancala train`` builds (an input extractor of
    ``mancala_envs.agents.learned.features``, separate or shared, then tanh or ReLU dense layers)."""
    import torch.nn as nn

    from .features import numpy_features

    if not policy.share_features_extractor:
        pi, vf = policy.pi_features_extractor, policy.vf_features_extractor
        if type(pi) is not type(vf) or numpy_features(pi) is None or numpy_features(pi)[1] != numpy_features(vf)[1]:
            return None
    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    found = numpy_features(extractor)
    if found is None or not isinstance(policy.action_net, nn.Linear) or not isinstance(policy.value_net, nn.Linear):
        return None
    features, encoding = found
    actor = _dense_stack(policy.mlp_extractor.policy_net, policy.action_net)
    value = _dense_stack(policy.mlp_extractor.value_net, policy.value_net)
    if actor is None or value is None:
        return None
    return NumpyNetworks(features, encoding, actor, value)


def save_policy_evaluation(policy: Any, game: Game, path: str | Path) -> Path | None:
    """Write the policy's value and policy nets as ``evaluation.npz`` at ``path`` (a run folder).

    Returns the file, or None when the network's input is not an encoding a search can read
    (``observation_transform: log1p``) or the architecture is not one ``numpy_networks`` knows.
    """
    networks = numpy_networks(policy)
    if networks is None or networks.encoding is None:
        return None
    value, actor = networks.value, networks.actor
    activation = actor.activation if len(actor.weights) > 1 else value.activation
    return save_evaluation(path, game, networks.encoding, activation, list(zip(value.weights, value.biases)),
                           list(zip(actor.weights, actor.biases)), source="ppo")


def save_mlp_evaluation(actor: tuple[Any, Any], value: tuple[Any, Any], game: Game, encoding: str,
                        path: str | Path, source: str) -> Path | None:
    """Write torch MLPs as ``evaluation.npz``: ``actor`` and ``value`` are (hidden ``Sequential`` of
    Linear/activation pairs, output ``Linear``) on the ``encoding`` of the mover's observation.

    Any trainer's network of that shape (RLlib's default PPO module, for one) then plays as
    ``policy:RUN_DIR`` and serves as ``eval=RUN_DIR``. None when the layers are not of that shape.
    """
    actor_stack, value_stack = _dense_stack(*actor), _dense_stack(*value)
    if actor_stack is None or value_stack is None:
        return None
    activation = actor_stack.activation if len(actor_stack.weights) > 1 else value_stack.activation
    return save_evaluation(path, game, encoding, activation, list(zip(value_stack.weights, value_stack.biases)),
                           list(zip(actor_stack.weights, actor_stack.biases)), source=source)


def _dense_stack(hidden: Any, head: Any) -> DenseStack | None:
    """``hidden`` (a Sequential of Linear, activation pairs, one kind of activation) then the
    ``head`` Linear; None for anything else."""
    import torch.nn as nn

    kinds = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    modules = list(hidden)
    linears = modules[0::2]
    activations = {kinds.get(type(m)) for m in modules[1::2]}
    if (len(modules) % 2 or not all(isinstance(m, nn.Linear) for m in linears)
            or None in activations or len(activations) > 1):
        return None
    linears.append(head)
    weights = [m.weight.detach().numpy().T.astype(np.float32) for m in linears]
    biases = [m.bias.detach().numpy().astype(np.float32) for m in linears]
    return DenseStack(weights, biases, activations.pop() if activations else "tanh")
