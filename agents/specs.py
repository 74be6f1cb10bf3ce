"""Agents built from short specs, as used on the command line: ``name[:key=value,...]``.

``random``, ``greedy`` and ``greedy:max_chain=128`` so far; the search agents add theirs.
"""

from __future__ import annotations

from typing import Any, Callable

from mancala_envs.core.errors import MancalaError

from .base import Agent
from .simple import GreedyAgent, RandomAgent

# name -> (factory(seed, **params), {param: type})
AGENT_FACTORIES: dict[str, tuple[Callable[..., Agent], dict[str, type]]] = {
    "random": (RandomAgent, {}),
    "greedy": (GreedyAgent, {"max_chain": int}),
}


class AgentSpecError(MancalaError):
    """An agent spec that cannot be read."""


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from ``spec``, e.g. ``"greedy"`` or ``"greedy:max_chain=128"``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(
            f"an agent spec must be a non-empty string, got {spec!r}; known agents: {', '.join(sorted(AGENT_FACTORIES))}"
        )
    name, _, rest = spec.strip().partition(":")
    if name not in AGENT_FACTORIES:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENT_FACTORIES))}")
    factory, accepted = AGENT_FACTORIES[name]
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in accepted:
            allowed = ", ".join(f"{k}=<{t.__name__}>" for k, t in accepted.items()) or "no parameters"
            raise AgentSpecError(f"agent spec {spec!r}: bad parameter {item!r}; {name} takes {allowed}")
        try:
            params[key] = accepted[key](value)
        except ValueError:
            raise AgentSpecError(
                f"agent spec {spec!r}: {key}={value!r} is not a valid {accepted[key].__name__}"
            ) from None
    agent = factory(seed=seed, **params)
    agent.name = spec.strip()
    return agent
