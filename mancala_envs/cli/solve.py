"""``mancala solve``: the exact value and a best move of the start position (small boards).

    mancala solve ID [key=value ...] [--json] [--key state|obs] [--tt-bits B] [--method mtdf|alphabeta]
        prints {"value", "best_action", "nodes", "seconds", ...} with --json
        e.g. mancala solve kalah-irving2000-v0 pits=4 seeds=3 --json
"""

from __future__ import annotations

import argparse
import json

from mancala_envs.agents.search import SolverAgent, solve
from mancala_envs.core.errors import MancalaError
from mancala_envs.registry import make_game_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("solve", help="exact value and best move of the start position (small boards)")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--key", choices=("state", "obs"), default="state",
                   help="transposition key: the whole state (safe) or both observations (faster; see mancala_envs.agents.search)")
    p.add_argument("--tt-bits", type=int, default=22, help="transposition table of 2**B entries (default 22)")
    p.add_argument("--method", choices=("mtdf", "alphabeta"), default="mtdf", help="search driver (default mtdf)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    game = make_game_from_args(args.env_id, args.options)
    if not 4 <= args.tt_bits <= 30:
        raise MancalaError(f"--tt-bits must be from 4 to 30, got {args.tt_bits}")
    SolverAgent(key=args.key).warmup(game)  # numba compiles the search here: "seconds" is the solve alone
    result = solve(game, key=args.key, tt_bits=args.tt_bits, method=args.method)
    out = {
        "value": result.to_dict()["value"],
        "best_action": result.best_action,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 6),
        "exact": result.exact,
        "env_id": game.env_id,
        "best_move": game.action_to_string(game.new_state(0), result.best_action),
    }
    if args.json:
        print(json.dumps(out))
    else:
        state = game.new_state(0)
        print(state)
        who = "player_0 wins" if result.value > 0 else "player_1 wins" if result.value < 0 else "draw"
        print(f"value (player_0 - player_1 under perfect play): {out['value']:+} ({who})")
        print(f"best move: {out['best_move']} (action {result.best_action})")
        print(f"{result.nodes} nodes in {result.seconds:.3f} s" + ("" if result.exact else "; ply cap reached, not exact"))
    return 0
