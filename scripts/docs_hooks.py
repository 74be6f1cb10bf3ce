"""MkDocs hook (``mkdocs.yml``: ``hooks``): the source tree mkdocstrings reads, as installed.

The repository keeps one top-level folder per layer (``agents/``, ``evaluation/``, ``training/``,
``cli/``) and installs each into the ``mancala_envs`` namespace (pyproject's ``package-dir``).
mkdocstrings finds modules by walking folders, so before anything else runs this hook builds
``build/docs-api/mancala_envs/...`` in the installed layout, out of symbolic links into the
repository's folders, and ``mkdocs.yml`` points mkdocstrings' ``paths`` at it.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
API_SOURCE = ROOT / "build" / "docs-api"


def mirror_installed_layout() -> None:
    """``API_SOURCE/mancala_envs/...`` as installed, made of links into the repository's folders."""
    package_dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(API_SOURCE, ignore_errors=True)
    for package, folder in sorted(package_dirs.items()):  # parents before children
        target = API_SOURCE.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for entry in (ROOT / folder).iterdir():
            if entry.name != "__pycache__" and not target.joinpath(entry.name).exists():
                target.joinpath(entry.name).symlink_to(entry)


@event_priority(100)  # before mkdocstrings sets up its search paths
def on_config(config):
    mirror_installed_layout()
    return config
