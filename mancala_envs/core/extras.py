"""Optional extras: importing an optional dependency, or one clear error naming the extra.

The package's core (games, envs, search agents) needs numpy, numba, Gymnasium and PettingZoo
only. The rest comes with an extra of ``pyproject.toml``:

==========  =============================================================================
extra       what needs it
==========  =============================================================================
``train``   ``mancala train`` and ``eval``, ``policy:`` agents, configs (PyYAML, torch,
            Stable-Baselines3, sb3-contrib, TensorBoard, matplotlib, rich)
``render``  pictures: ``render_mode="rgb_array"``/``"human"``, ``mancala play --window``,
            ``mancala replay --gif`` (pygame, pillow)
``docs``    the documentation site (MkDocs Material, mkdocstrings)
``ray``     ``--backend ray`` (games on a Ray cluster) and ``algo: rllib_ppo`` (RLlib)
==========  =============================================================================

``require_extra("yaml", "train", "reading training configs")`` returns the module, or raises
``MissingExtraError`` with the install command. The package is installed from its repository
(torch is pinned through ``constraints.txt``), so the command is the repository's.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MancalaError


class MissingExtraError(MancalaError, ImportError):
    """An optional dependency is missing; the message names the extra and how to install it."""


def install_command(extra: str) -> str:
    """The command that installs ``extra``, run in a clone of the repository."""
    return f'pip install -c constraints.txt ".[{extra}]"  (or: bash scripts/setup.sh {extra})'


def require_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``; if it is missing, ``MissingExtraError`` says which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = getattr(err, "name", None) or module
        raise MissingExtraError(
            f"{purpose} needs {missing}, which is not installed: it comes with the {extra!r} extra. "
            f"In a clone of mancala-envs, install it with: {install_command(extra)}"
        ) from None
