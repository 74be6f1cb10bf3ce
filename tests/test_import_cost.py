"""What a new process imports: ``import mancala_envs`` and ``mancala COMMAND`` load only what they use.

A warm new process (``mancala solve``, the first prompt of ``mancala play``) is meant to start in
about a second, and most of that is imports. The env package needs numpy, numba, Gymnasium and
PettingZoo (it registers its ids with both); nothing here loads torch, Ray or the plotting and
drawing libraries, and a command loads the agents, evaluation and training layers only when it
runs code from them (``mancala_envs.cli`` imports only its command's module). Which modules are
loaded is checked, in a new interpreter each; how long that takes is measured by
``benchmarks/first_use.py``, never asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

# Libraries of the optional extras: none is needed to make an env, solve or play in a terminal.
HEAVY = ("torch", "ray", "rich", "matplotlib", "pygame", "PIL", "stable_baselines3", "sb3_contrib",
         "tensorboard", "open_spiel", "tianshou")


def _loaded_after(code: str) -> set[str]:
    """The modules a new interpreter has loaded after running ``code``."""
    script = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _command_help(*words: str) -> str:
    return f"""
        from mancala_envs.cli import main
        try:
            main({list(words) + ['--help']!r})
        except SystemExit:
            pass
    """


def _layers(modules: set[str]) -> set[str]:
    """The second name of every ``mancala_envs.X...`` module: the layers and env modules loaded."""
    return {name.split(".")[1] for name in modules if name.startswith("mancala_envs.")}


def _heavy(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules} & set(HEAVY)


def test_import_mancala_envs_loads_the_env_layer_only():
    loaded = _loaded_after("import mancala_envs")
    assert _heavy(loaded) == set()
    assert _layers(loaded).isdisjoint({"agents", "evaluation", "training", "cli"})
    assert {"gymnasium", "pettingzoo"} <= {name.split(".")[0] for name in loaded}  # the ids are registered


@pytest.mark.parametrize("command", ["solve", "play", "list", "show"])
def test_a_command_loads_neither_the_training_nor_the_evaluation_layer(command):
    loaded = _loaded_after(_command_help(command))
    assert _heavy(loaded) == set()
    assert _layers(loaded).isdisjoint({"evaluation", "training"})
    others = {"match", "tournament", "train", "eval", "replay"} - {command}
    assert not any(f"mancala_envs.cli.{other}" in loaded for other in others)


def test_mancala_help_still_lists_every_command():
    from mancala_envs.cli import SUBCOMMANDS, build_parser

    text = build_parser().format_help()
    assert all(name in text for name in SUBCOMMANDS)
    with pytest.raises(SystemExit):  # a parser built for `mancala solve ...` knows that command only
        build_parser(["solve", "kalah-v0"]).parse_args(["list"])
