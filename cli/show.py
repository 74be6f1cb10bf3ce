"""``mancala show ID [key=value ...]``: options with defaults, the spaces and the start position."""

from __future__ import annotations

import argparse

from mancala_envs.registry import ENV_OPTIONS, get_entry, make_game_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("show", help="options, spaces and start position of an id")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    entry = get_entry(args.env_id)
    game = make_game_from_args(args.env_id, args.options)
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
