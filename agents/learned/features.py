"""Input transforms of the policy network, as SB3 features extractors.

``ppo.obs_encoding`` (``features_extractor(encoding, transform)``) picks the network's input:
``counts`` is the raw observation (SB3's plain ``FlattenExtractor``); any other name of
``mancala_envs.core.encodings.ENCODINGS`` (``onehot``, ``thermometer``, ``scaled``) is
``EncodedObservation``, the same encoding function the search's learned evaluation reads, so
a run's networks can be exported as an ``evaluation.npz`` that search agents load
(``mancala_envs.agents.learned.learned_eval``). On Kalah(6,4), one-hot counts made a stronger
bare network than raw counts against every opponent of the ladder (``docs/strength.md``).

The kernels' observations are raw counts (seeds in a pit, cards on a pile), from 0 to a
few dozen or more. ``Log1pFlatten`` feeds the network ``log(1 + x)`` instead: counts keep
their order, small counts (which decide where a sowing ends) stay apart, and large ones no
longer dominate the first layer's pre-activations. It has no parameters, so a saved model
carries it by class name and ``PolicyOpponent``'s numpy actor reproduces it exactly.

On Kalah(6,4) with ``configs/kalah-v0.yaml`` it trained a weaker policy than raw counts
(``docs/strength.md``), so no config uses it; it is there to try on other games.

``OBSERVATION_TRANSFORMS`` maps the config's ``ppo.observation_transform`` to the
extractor class (``None``: SB3's plain ``FlattenExtractor``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, FlattenExtractor

from mancala_envs.core.encodings import ENCODINGS, EncodingSpec, encode, encoding_spec


class Log1pFlatten(FlattenExtractor):
    """``log1p`` of the flattened observation (observations are non-negative counts)."""

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.log1p(self.flatten(observations))

    @staticmethod
    def numpy_forward(x: np.ndarray) -> np.ndarray:
        return np.log1p(x)


OBSERVATION_TRANSFORMS: dict[str, type | None] = {"none": None, "log1p": Log1pFlatten}


class EncodedObservation(BaseFeaturesExtractor):
    """The observation encoded by ``mancala_envs.core.encodings`` (no parameters).

    The encoding's bounds are the observation space's (the game's ``observation_bounds``).
    """

    def __init__(self, observation_space: spaces.Box, encoding: str = "onehot"):
        spec = encoding_for(observation_space, encoding)
        super().__init__(observation_space, spec.width)
        self.encoding = encoding
        self.spec = spec

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self.numpy_forward(observations.detach().cpu().numpy()))

    def numpy_forward(self, observations: np.ndarray) -> np.ndarray:
        return encode(self.spec, observations.reshape(len(observations), -1))


def encoding_for(observation_space: spaces.Box, encoding: str) -> EncodingSpec:
    """The encoding ``encoding`` of observations in ``observation_space`` (one bound for every entry)."""
    bounds = (float(np.min(observation_space.low)), float(np.max(observation_space.high)))
    return encoding_spec(encoding, int(np.prod(observation_space.shape)), bounds)


def numpy_features(extractor: Any) -> tuple[Callable[[np.ndarray], np.ndarray], str | None] | None:
    """The extractor as a numpy function of a batch of observations, and its encoding's name
    (None for ``log1p``, which no search can read); None for an extractor not made here."""
    if type(extractor) is FlattenExtractor:
        return _flat, "counts"
    if type(extractor) is Log1pFlatten:
        return (lambda obs: Log1pFlatten.numpy_forward(_flat(obs))), None
    if type(extractor) is EncodedObservation:
        return extractor.numpy_forward, extractor.encoding
    return None


def _flat(obs: np.ndarray) -> np.ndarray:
    return obs.reshape(len(obs), -1).astype(np.float32, copy=False)


def features_extractor(encoding: str, transform: str = "none") -> dict[str, Any]:
    """The ``policy_kwargs`` entries of the network input for ``ppo.obs_encoding`` and
    ``ppo.observation_transform`` (an empty dict: SB3's plain flatten of raw counts)."""
    if transform != "none":
        if encoding != "counts":
            raise ValueError(f"observation_transform {transform!r} applies to raw counts; obs_encoding is {encoding!r}")
        return {"features_extractor_class": OBSERVATION_TRANSFORMS[transform]}
    if encoding == "counts":
        return {}
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown obs_encoding {encoding!r}; encodings are {', '.join(ENCODINGS)}")
    return {"features_extractor_class": EncodedObservation, "features_extractor_kwargs": {"encoding": encoding}}
