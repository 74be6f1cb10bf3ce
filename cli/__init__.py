"""The ``mancala`` command: the top layer, the only code that imports every layer.

One module per subcommand; each has ``add_parser(subparsers)`` and ``run(args)``.

    mancala --version                             the package version
    mancala list                                  every registered id with a one-line description
    mancala show ID [key=value ...]               options with defaults, observation and action spaces
    mancala match ID AGENT_A AGENT_B [key=value ...] [--games N] [--seed S] [--json]
                                                  a match with seats swapped every game
    mancala replay ID FILE [key=value ...] [--json]
                                                  replay a text record in the game's notation
                                                  (Afrika: "1. e G 2. h H ..."); checks counts
    mancala replay FILE [--json]                  replay a JSON record (records.save_json) of any game
    mancala replay ... --gif OUT.gif [--fps F] [--frames DIR] [--svg OUT.svg]
                                                  also draw it: an animated GIF, PNG frames, an
                                                  animated SVG
    mancala play ID [key=value ...] [--opponent SPEC] [--seat 0|1|random] [--window] ...
                                                  play against an agent (mancala_envs.cli.play_session)
    mancala serve [--port P] [--host H] [--opponent SPEC]
                                                  play in a browser (mancala_envs.cli.web_app), on 127.0.0.1
    mancala tournament ID --agents SPEC ... [--games N]
                                                  round robin with Elo ratings (mancala_envs.evaluation.tournament)
    mancala solve ID [key=value ...] [--json]     exact value and best move of the start position
    mancala train CONFIG [key=value ...] | --resume RUN_DIR
                                                  self-play training (mancala_envs.training)
    mancala eval MODEL_OR_RUN_DIR [--against SPEC ...] [--games N]
                                                  a trained model against agents (mancala_envs.training)

Game options are given as ``key=value`` arguments after the id (``mancala show kalah-v0
pits=4``). Agents are specs such as ``random``, ``greedy``, ``alphabeta:depth=4`` or
``policy:RUN_DIR`` (see ``mancala_envs.agents.specs``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

import mancala_envs
from mancala_envs.core.errors import MancalaError

from .arguments import CommandParser

# Each subcommand's module (under mancala_envs.cli), in the order `mancala --help` lists them.
# A command line imports only the module of its command, so `mancala solve` never loads the
# training or evaluation layers; `mancala --help` (or no command, or an unknown one) imports
# them all to list them. A new subcommand is one more line here.
SUBCOMMANDS = {
    "list": "list",
    "show": "show",
    "match": "match",
    "replay": "replay",
    "tournament": "tournament",
    "solve": "solve",
    "play": "play",
    "serve": "serve",
    "train": "train",
    "eval": "eval",
}


def command_module(name: str):
    """The module of subcommand ``name`` (it has ``add_parser(subparsers)`` and ``run(args)``)."""
    return importlib.import_module(f"{__name__}.{SUBCOMMANDS[name]}")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``mancala`` parser: with ``argv``, only its command's subparser when it names one."""
    parser = CommandParser(prog="mancala", description="Mancala games as RL environments.")
    parser.add_argument("--version", action="version", version=f"mancala-envs {mancala_envs.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    first = argv[0] if argv else None  # the command, when no top-level flag comes before it
    for name in [first] if first in SUBCOMMANDS else SUBCOMMANDS:
        command_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # (not list(argv): importing the submodule `list` binds the name `list` in this package)
    argv = sys.argv[1:] if argv is None else [*argv]
    parser = build_parser(argv)
    # Game options are key=value words anywhere after the subcommand's positionals.
    args, extra = parser.parse_known_args(argv)
    stray = [word for word in extra if "=" not in word or word.startswith("-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = extra
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, so that a closed pipe is caught below and not at exit
        return code
    except MancalaError as err:
        print(f"mancala: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`mancala list | head`): stop quietly, as Python's docs advise
        # (point stdout at devnull so the interpreter's final flush does not fail again).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
