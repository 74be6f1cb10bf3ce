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
``web``     ``mancala serve``, the browser page (Flask)
``docs``    the documentation site (MkDocs Material, mkdocstrings)
``ray``     ``--backend ray`` (games on a Ray cluster) and ``algo: rllib_ppo`` (RLlib)
==========  =============================================================================

``require_extra("yaml", "train", "reading training configs")`` returns the module, or raises
``MissingExtraError`` with the install command.

The command fits how the package was installed, read from its ``direct_url.json`` (PEP 610,
written by pip into the installed distribution's metadata):

* editable, from a clone (``dir_info.editable``): the repository's own commands, run in that
  clone, ``bash scripts/setup.sh EXTRA`` or ``pip install -c constraints.txt -e ".[EXTRA]"``
  (a plain ``pip install ".[EXTRA]"`` would replace the editable install by a copy);
* from a local folder, not editable: ``pip install -c DIR/constraints.txt "DIR[EXTRA]"``;
* from a wheel or archive file or URL (``archive_info``) or from git (``vcs_info``): the
  same source again with the extra, ``pip install "mancala-envs[EXTRA] @ URL"``;
* from a package index (no ``direct_url.json``): ``pip install "mancala-envs[EXTRA]==VERSION"``,
  which needs no clone (the extras pin torch themselves; the version keeps this release).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from types import ModuleType
from urllib.parse import unquote, urlparse

from .errors import MancalaError

DISTRIBUTION = "mancala-envs"


class MissingExtraError(MancalaError, ImportError):
    """An optional dependency is missing; the message names the extra and how to install it."""


def install_origin() -> tuple[dict | None, str]:
    """``(direct_url, version)`` of the installed distribution: its parsed ``direct_url.json``
    (PEP 610; None when pip installed it from an index, or it cannot be read) and its version.

    Every distribution of the name on the path is read, the first with a ``direct_url.json``
    wins: in a clone, setuptools' ``mancala_envs.egg-info`` (no such file) sits on the path
    before the installed ``.dist-info`` when the current folder is the clone.
    """
    dists = list(importlib.metadata.distributions(name=DISTRIBUTION))
    for dist in dists:
        try:
            origin = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            continue
        if isinstance(origin, dict):
            return origin, dist.version
    return None, dists[0].version if dists else ""


def install_command(extra: str, origin: dict | None = None, version: str | None = None) -> str:
    """The command that installs ``extra`` the way the package was installed (module docstring).

    ``origin`` and ``version`` default to the installed distribution's (``install_origin``).
    """
    if origin is None and version is None:
        origin, version = install_origin()
    url = str((origin or {}).get("url", ""))
    if origin and "dir_info" in origin and url.startswith("file:"):
        folder = unquote(urlparse(url).path)
        if origin["dir_info"].get("editable"):
            return (f'bash scripts/setup.sh {extra}  (or: pip install -c constraints.txt -e ".[{extra}]"), '
                    f"in the clone {folder}")
        return f'pip install -c {folder}/constraints.txt "{folder}[{extra}]"'
    if origin and "vcs_info" in origin:
        vcs = origin["vcs_info"]
        return f'pip install "{DISTRIBUTION}[{extra}] @ {vcs.get("vcs", "git")}+{url}@{vcs.get("commit_id", "")}"'
    if origin and url:
        return f'pip install "{DISTRIBUTION}[{extra}] @ {url}"'
    pin = f"=={version}" if version else ""
    return f'pip install "{DISTRIBUTION}[{extra}]{pin}"'


def require_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``; if it is missing, ``MissingExtraError`` says which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = getattr(err, "name", None) or module
        raise MissingExtraError(
            f"{purpose} needs {missing}, which is not installed: it comes with the {extra!r} extra. "
            f"Install it with: {install_command(extra)}"
        ) from None
