"""``mancala match ID AGENT_A AGENT_B [key=value ...]``: two agents over an opening suite.

Every opening is played twice, each agent once in each seat; the score comes with a 95%
interval bootstrapped over openings, per seat too, with the number of distinct games
(``mancala_envs.evaluation.paired_results``). ``--json`` prints exactly the report's keys:
games, distinct_games, score, score_ci, wins, draws, losses, by_seat, openings.
"""

from __future__ import annotations

import argparse
import json

from mancala_envs.agents import make_agent
from mancala_envs.evaluation import play_match
from mancala_envs.evaluation.progress import Progress
from mancala_envs.registry import make_game_from_args

from .arguments import SEED, integer_at_least
from .output import only_json_on_stdout
from .suite_options import add_backend_arguments, add_suite_arguments, check_backend_args, suite_from_args


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("match", help="play two agents over an opening suite, each opening from both seats")
    p.add_argument("env_id", metavar="ID")
    p.add_argument("agent_a", metavar="AGENT_A", help="agent spec, e.g. random, greedy")
    p.add_argument("agent_b", metavar="AGENT_B")
    add_suite_arguments(p)
    p.add_argument("--seed", type=SEED, default=0, help="seed of the suite and the agents (default 0)")
    p.add_argument("--workers", type=integer_at_least(0), default=1, help="processes (default 1; 0: every core)")
    add_backend_arguments(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines on stderr")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    check_backend_args(args)
    game = make_game_from_args(args.env_id, args.options)
    suite = suite_from_args(game, args)
    agent_a = make_agent(args.agent_a, seed=args.seed)
    agent_b = make_agent(args.agent_b, seed=args.seed + 1)
    bar = Progress(2 * len(suite), "games", "match", enabled=not args.no_progress)
    with only_json_on_stdout(args.json), bar:
        result = play_match(game, agent_a, agent_b, suite, workers=args.workers or None,
                            backend=args.backend, address=args.address,
                            progress=lambda done: bar.update(done, f"{agent_a.name} vs {agent_b.name}"))
    if args.json:
        print(json.dumps(result.report(), indent=2))
    else:
        print(result.summary())
    return 0
