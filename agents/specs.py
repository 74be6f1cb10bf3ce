"""Agents built from short specs, as used on the command line: ``name[:key=value,...]``.

=====================================  ===========================================================
spec                                   agent
=====================================  ===========================================================
``random``                             uniformly random legal move
``greedy[:max_chain=64]``              most immediate score gain (through extra turns)
``alphabeta:depth=6``                  iterative-deepening negamax to 6 plies (``mancala_envs.agents.search``)
``alphabeta:time=0.5``                 the same for 0.5 s per move; ``tt_bits=18``, ``key=state|obs``
``alphabeta:depth=6,eval=RUN_DIR``     leaves valued by a run's learned evaluation (``RUN_DIR/evaluation.npz``,
                                       ``mancala_envs.agents.learned.learned_eval``)
``mcts:sims=2000,c=1.4``               UCT with random rollouts (``mancala_envs.agents.mcts``); ``time=``,
                                       ``max_nodes=``
``mcts:sims=800,eval=RUN_DIR``         the learned value at the leaves instead of rollouts; PUCT with the
                                       run's policy as priors where the file has one
``solver[:memory=256M,threads=1]``     perfect play by exact solving (``mancala_envs.agents.solver``)
``hybrid:solve=0.02,eval=RUN_DIR``     an exact solve when it finishes within ``solve`` seconds, else
                                       ``mcts`` (``sims=800,c=1.4``) or ``then=alphabeta`` (``depth=6``)
                                       with the run's evaluation (``mancala_envs.agents.hybrid``);
                                       ``memory=64M``
``human``                              moves typed in the game's notation on stdin
``policy:PATH``                        a trained model: a run folder or model file of ``mancala train``
``module:callable``                    your own agent: ``callable(seed=...)`` (or ``callable()``)
                                       from an importable module, e.g. ``my_agents:Cautious``
=====================================  ===========================================================

Your own agent
--------------
Anywhere an agent is taken (``make_agent``, ``play_match``, ``round_robin``, ``mancala match``,
``eval --against``, ``tournament --agents``), give either an object or a ``module:callable``
spec. The object needs ``act(state) -> action`` (a legal action of the player to move; it
must not change ``state``); ``reset(seed=None)``, ``warmup(game)`` and ``name`` are used when
present. A plain function ``f(state) -> action`` works too. The callable of a spec is called
with ``seed=`` when it takes one, and must return such an object. On the command line the
module is looked up on the import path, then in the current folder::

    # my_agents.py
    class Cautious:
        name = "cautious"

        def act(self, state):
            return min(state.legal_actions())  # the legal action of lowest index

    mancala match kalah-v0 my_agents:Cautious greedy --openings 20
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Callable

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.extras import require_extra

from .base import Agent
from .human import HumanAgent
from .hybrid import HybridAgent
from .learned.learned_eval import EVAL_FILE, LearnedPolicyAgent
from .mcts import MCTSAgent
from .learned.policy import PolicyAgent
from .search import AlphaBetaAgent
from .simple import GreedyAgent, RandomAgent
from .solver import SolverAgent


def _key(value: str) -> str:
    if value not in ("state", "obs"):
        raise ValueError(value)
    return value


_key.__name__ = "state|obs"


def _policy_factory(seed=None, path: str = ""):
    """``policy:PATH``: a trained model (``mancala_envs.agents.learned.policy``; loads torch only when used),
    or the policy head in ``evaluation.npz`` of a run folder without ``final_model.zip`` (a value trainer's run)."""
    folder = Path(path)
    if folder.is_dir() and (folder / EVAL_FILE).is_file() and not (folder / "final_model.zip").is_file():
        return LearnedPolicyAgent(folder, seed=seed)
    require_extra("sb3_contrib", "train", f"the agent spec policy:{path}")
    return PolicyAgent(path, seed=seed)


# name -> (factory(seed, **params), {param: type})
AGENT_FACTORIES: dict[str, tuple[Callable[..., Agent], dict[str, Any]]] = {
    "random": (RandomAgent, {}),
    "greedy": (GreedyAgent, {"max_chain": int}),
    "alphabeta": (AlphaBetaAgent, {"depth": int, "time": float, "tt_bits": int, "key": _key, "eval": str}),
    "mcts": (MCTSAgent, {"sims": int, "c": float, "time": float, "max_nodes": int, "eval": str}),
    "solver": (SolverAgent, {"memory": str, "threads": int}),
    "hybrid": (HybridAgent, {"solve": float, "then": str, "sims": int, "c": float, "depth": int, "eval": str,
                             "memory": str}),
    "human": (HumanAgent, {}),
    "policy": (_policy_factory, {}),  # policy:PATH, the rest of the spec is a path
}


class AgentSpecError(MancalaError):
    """An agent spec that cannot be read."""


def _known() -> str:
    return ", ".join(sorted(AGENT_FACTORIES))


class CustomAgent(Agent):
    """An object with ``act(state)`` (or a function of the state) seen through the ``Agent`` protocol."""

    def __init__(self, inner: Any, name: str | None = None):
        super().__init__()
        self.inner = inner
        self._act = inner.act if hasattr(inner, "act") else inner
        self.name = name or getattr(inner, "name", None) or getattr(inner, "__name__", None) or type(inner).__name__

    def act(self, state) -> int:
        return int(self._act(state))

    def reset(self, seed: int | None = None) -> None:
        if hasattr(self.inner, "reset"):
            self.inner.reset(seed=seed)

    def warmup(self, game) -> None:
        if hasattr(self.inner, "warmup"):
            self.inner.warmup(game)


def as_agent(agent: Any) -> Agent:
    """``agent`` itself if it is an ``Agent``, else wrapped (it needs ``act(state)`` or to be callable)."""
    if isinstance(agent, Agent):
        return agent
    if callable(getattr(agent, "act", None)) or (callable(agent) and not isinstance(agent, type)):
        return CustomAgent(agent)
    raise AgentSpecError(f"an agent must be an agent spec or an object with act(state) -> action, got {agent!r}")


def _is_import_spec(name: str, rest: str) -> bool:
    """``module:callable`` (``my_agents:Cautious``, ``pkg.mod:make``), not a built-in ``name:params``."""
    return bool(rest) and all(part.isidentifier() for part in name.split(".")) and rest.strip().isidentifier()


def _imported_agent(spec: str, seed: int | None) -> Agent:
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name.split(".")[0] or os.getcwd() in sys.path:
            raise AgentSpecError(f"agent spec {spec!r}: cannot import {module_name!r} ({err}); known agents: "
                                 f"{_known()}, or module:callable for your own") from None
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the user's own module in this folder
        return _imported_agent(spec, seed)
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise AgentSpecError(f"agent spec {spec!r}: {module_name} has no callable {attribute!r}")
    try:
        takes_seed = "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        takes_seed = False
    agent = as_agent(factory(seed=seed) if takes_seed else factory())
    agent.name = spec
    return agent


def make_agent(spec: str | Any, seed: int | None = None) -> Agent:
    """Build an agent from ``spec``, e.g. ``"greedy"``, ``"alphabeta:depth=6"`` or ``"my_agents:Cautious"``.

    An object (an ``Agent``, or anything with ``act(state)``) is returned as an ``Agent`` as it is.
    """
    if not isinstance(spec, str):
        return as_agent(spec)
    if not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; known agents: {_known()}")
    name, _, rest = spec.strip().partition(":")
    if name not in AGENT_FACTORIES:
        if _is_import_spec(name, rest):
            return _imported_agent(spec.strip(), seed)
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {_known()}, or module:callable for your own")
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
