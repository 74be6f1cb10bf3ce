"""Agents built from short specs, as used on the command line: ``name[:key=value,...]``.

=====================================  ===========================================================
spec                                   agent
=====================================  ===========================================================
``random``                             uniformly random legal move
``greedy[:max_chain=64]``              most immediate score gain (through extra turns)
``alphabeta:depth=6``                  iterative-deepening negamax to 6 plies (``mancala_envs.agents.search``)
``alphabeta:time=0.5``                 the same for 0.5 s per move; ``tt_bits=18``, ``key=state|obs``
``alphabeta:depth=6,eval=RUN_DIR``     leaves valued by a run's learned evaluation (``RUN_DIR/evaluation.npz``,
                                       ``mancala_envs.agents.learned_eval``)
``mcts:sims=2000,c=1.4``               UCT with random rollouts (``mancala_envs.agents.mcts``); ``time=``,
                                       ``max_nodes=``
``mcts:sims=800,eval=RUN_DIR``         the learned value at the leaves instead of rollouts; PUCT with the
                                       run's policy as priors where the file has one
``solver[:tt_bits=20,key=state]``      perfect play by exact solving (small boards only)
``human``                              moves typed in the game's notation on stdin
``policy:PATH``                        a trained model: a run folder or model file of ``mancala train``
=====================================  ===========================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from mancala_envs.core.errors import MancalaError

from .base import Agent
from .human import HumanAgent
from .learned_eval import EVAL_FILE, LearnedPolicyAgent
from .mcts import MCTSAgent
from .policy import PolicyAgent
from .search import AlphaBetaAgent, SolverAgent
from .simple import GreedyAgent, RandomAgent


def _key(value: str) -> str:
    if value not in ("state", "obs"):
        raise ValueError(value)
    return value


_key.__name__ = "state|obs"


def _policy_factory(seed=None, path: str = ""):
    """``policy:PATH``: a trained model (``mancala_envs.agents.policy``; loads torch only when used),
    or the policy head in ``evaluation.npz`` of a run folder without ``final_model.zip`` (a value trainer's run)."""
    folder = Path(path)
    if folder.is_dir() and (folder / EVAL_FILE).is_file() and not (folder / "final_model.zip").is_file():
        return LearnedPolicyAgent(folder, seed=seed)
    return PolicyAgent(path, seed=seed)


# name -> (factory(seed, **params), {param: type})
AGENT_FACTORIES: dict[str, tuple[Callable[..., Agent], dict[str, Any]]] = {
    "random": (RandomAgent, {}),
    "greedy": (GreedyAgent, {"max_chain": int}),
    "alphabeta": (AlphaBetaAgent, {"depth": int, "time": float, "tt_bits": int, "key": _key, "eval": str}),
    "mcts": (MCTSAgent, {"sims": int, "c": float, "time": float, "max_nodes": int, "eval": str}),
    "solver": (SolverAgent, {"tt_bits": int, "key": _key}),
    "human": (HumanAgent, {}),
    "policy": (_policy_factory, {}),  # policy:PATH, the rest of the spec is a path
}


class AgentSpecError(MancalaError):
    """An agent spec that cannot be read."""


def _known() -> str:
    return ", ".join(sorted(AGENT_FACTORIES))


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from ``spec``, e.g. ``"greedy"`` or ``"alphabeta:depth=6"``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; known agents: {_known()}")
    name, _, rest = spec.strip().partition(":")
    if name not in AGENT_FACTORIES:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {_known()}")
    factory, accepted = AGENT_FACTORIES[name]
    if name == "policy":
        if not rest.strip():
            raise AgentSpecError("agent spec 'policy' needs a path: policy:PATH")
        agent = factory(seed=seed, path=rest.strip())
        agent.name = spec.strip()
        return agent
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in accepted:
            allowed = ", ".join(f"{k}=<{t.__name__}>" for k, t in accepted.items()) or "no parameters"
            raise AgentSpecError(f"agent spec {spec!r}: bad parameter {item!r}; {name} takes {allowed}")
        try:
            params[key] = accepted[key](value.strip())
        except ValueError:
            raise AgentSpecError(
                f"agent spec {spec!r}: {key}={value!r} is not a valid {accepted[key].__name__}"
            ) from None
    try:
        agent = factory(seed=seed, **params)
    except (ValueError, MancalaError) as err:
        raise AgentSpecError(f"agent spec {spec!r}: {err}") from None
    agent.name = spec.strip()
    return agent
