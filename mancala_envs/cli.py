"""The ``mancala`` command.

    mancala list                                  every registered id with a one-line description
    mancala show ID [key=value ...]               options with defaults, observation and action spaces
    mancala match ID AGENT_A AGENT_B [key=value ...] [--games N] [--seed S] [--json]
                                                  a match with seats swapped every game

Game options are given as ``key=value`` arguments after the id (``mancala show kalah-v0
pits=4``). Agents are specs such as ``random`` or ``greedy``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .core.errors import MancalaError
from .core.options import parse_key_values


def _game_from_args(env_id: str, pairs: Sequence[str]):
    from .registry import ENV_OPTIONS, get_entry, make_game

    entry = get_entry(env_id)
    options = parse_key_values(entry.game_options() + ENV_OPTIONS, pairs, env_id)
    options = {k: v for k, v in options.items() if k not in {o.name for o in ENV_OPTIONS}}
    return entry, make_game(env_id, **options)


def cmd_list(args: argparse.Namespace) -> int:
    from .registry import get_entry, list_envs

    ids = list_envs()
    width = max(len(i) for i in ids)
    for env_id in ids:
        print(f"{env_id:<{width}}  {get_entry(env_id).description}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .registry import ENV_OPTIONS

    entry, game = _game_from_args(args.env_id, args.options)
    print(f"{entry.env_id}: {entry.description}")
    print(f"family: {game.family} ({type(game).__name__}, module {type(game).__module__})")
    print("\noptions (value in use; default of this id; allowed):")
    defaults = entry.defaults()
    for opt in entry.game_options():
        value = game.options[opt.name]
        mark = "" if value == defaults[opt.name] else "   <- overridden"
        print(f"  {opt.name:<24} {value!r:<14} default {defaults[opt.name]!r:<14} {opt.allowed()}{mark}")
        print(f"  {'':<24} {opt.doc}")
    for opt in ENV_OPTIONS:
        print(f"  {opt.name:<24} {opt.default!r:<14} (env option) {opt.allowed()}")
        print(f"  {'':<24} {opt.doc}")
    low, high = game.observation_bounds()
    print(f"\nobservation: Box({low:g}, {high:g}, ({game.observation_size},), float32) plus action_mask int8")
    print(f"actions:     Discrete({game.num_actions})")
    print("agents:      player_0, player_1")
    print(f"ply cap:     {game.max_plies}")
    print("\nstart position:")
    print(game.new_state(0))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from agents import make_agent, play_match

    entry, game = _game_from_args(args.env_id, args.options)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mancala", description="Mancala games as RL environments.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="registered env ids")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="options, spaces and start position of an id")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("match", help="play two agents against each other, seats swapped every game")
    p.add_argument("env_id", metavar="ID")
    p.add_argument("agent_a", metavar="AGENT_A", help="agent spec, e.g. random, greedy")
    p.add_argument("agent_b", metavar="AGENT_B")
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the agents (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_match)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Game options are key=value words anywhere after the subcommand's positionals.
    args, extra = parser.parse_known_args(argv)
    stray = [word for word in extra if "=" not in word or word.startswith("-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = extra
    try:
        return args.func(args)
    except MancalaError as err:
        print(f"mancala: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
