"""``mancala play``: a person plays any game against any agent, in the terminal or a window.

See ``mancala_envs.cli.play_session`` for the commands of a game (hint, undo, save, ...).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mancala_envs.cli.play_session import DEFAULT_HINT, DEFAULT_OPPONENT, PlaySession, play_in_terminal
from mancala_envs.agents.specs import make_agent
from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import Game
from mancala_envs.registry import make_game_from_args

from .arguments import SEED, number_above


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("play", help="play a game against an agent, in the terminal or a window")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--opponent", default=DEFAULT_OPPONENT, metavar="SPEC",
                   help=f"the agent you play against (default {DEFAULT_OPPONENT})")
    p.add_argument("--seat", default="0", help="your seat: 0 (moves first, default), 1 or random")
    p.add_argument("--seed", type=SEED, default=None, help="the game's seed (the deal) and the agents' (default: drawn)")
    p.add_argument("--hint", default=DEFAULT_HINT, metavar="SPEC",
                   help=f"the agent that answers 'hint' (default {DEFAULT_HINT})")
    p.add_argument("--save", default=None, metavar="FILE", help="write the game's JSON record here at the end")
    p.add_argument("--window", action="store_true", help="play in a pygame window by clicking")
    p.add_argument("--delay", type=number_above(0, inclusive=True), default=0.6,
                   help="window: seconds before the opponent replies, so you see each move (default 0.6)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    session = build_session(args)
    if args.window:
        from mancala_envs.cli.play_window import play_in_window

        return play_in_window(session, save_path=args.save, default_save=default_save_path(session.game),
                              delay=args.delay)
    return play_in_terminal(session, save_path=args.save)


def build_session(args: argparse.Namespace) -> PlaySession:
    """A ``PlaySession`` from the ``mancala play`` arguments (bad input raises ``MancalaError``)."""
    game = make_game_from_args(args.env_id, args.options)
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**31)
    elif seed < 0:
        raise MancalaError(f"--seed must be a non-negative integer, got {seed}")
    if args.seat == "random":
        seat = int(np.random.default_rng(seed).integers(2))
    elif args.seat in ("0", "1"):
        seat = int(args.seat)
    else:
        raise MancalaError(f"--seat must be 0, 1 or random, got {args.seat!r}")
    for spec in (args.opponent, args.hint):
        if spec.strip().partition(":")[0] == "human":
            raise MancalaError("mancala play seats you against an agent; 'human' cannot be the opponent or the hint")
    opponent = make_agent(args.opponent, seed=seed + 1)
    hint_agent = make_agent(args.hint, seed=seed + 2)
    opponent.reset(seed=seed + 1)
    return PlaySession(game, seat, opponent, hint_agent, seed, opponent_name=args.opponent)


def default_save_path(game: Game) -> str:
    """``mancala-ID-YYYYmmdd-HHMMSS.json`` in the working folder (the window's Save without --save)."""
    return str(Path.cwd() / f"mancala-{game.env_id}-{time.strftime('%Y%m%d-%H%M%S')}.json")
