"""``mancala match ID AGENT_A AGENT_B [key=value ...]``: a match with seats swapped every game."""

from __future__ import annotations

import argparse
import json

from mancala_envs.agents import make_agent, play_match
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import make_game_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("match", help="play two agents against each other, seats swapped every game")
    p.add_argument("env_id", metavar="ID")
    p.add_argument("agent_a", metavar="AGENT_A", help="agent spec, e.g. random, greedy")
    p.add_argument("agent_b", metavar="AGENT_B")
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the agents (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    game = make_game_from_args(args.env_id, args.options)
    if args.games < 1:
        raise MancalaError(f"--games must be at least 1, got {args.games}")
    agent_a = make_agent(args.agent_a, seed=args.seed)
    agent_b = make_agent(args.agent_b, seed=args.seed + 1)
    result = play_match(game, agent_a, agent_b, games=args.games, seed=args.seed)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.summary())
    return 0
